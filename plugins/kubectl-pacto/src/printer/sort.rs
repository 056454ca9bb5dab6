//! `--sort-by` as kubectl v1.32 orders objects (`kubectl/pkg/cmd/get/sorter.go`,
//! `RuntimeSort` and `isLess`): by the first result of the path (kubectl's relaxed JSONPath);
//! objects where it finds nothing come first; integers and floats by value; strings by their
//! bytes, or as quantities when both are (`resource.ParseQuantity`: `500m` before `2`, `10`
//! after `9`). Two keys of different types, or booleans, maps and lists, cannot be ordered:
//! kubectl stops with `unsortable type: ...` (`unsortable interface: interface` for a mix).
//! The sort is stable: among equal keys the listing order stays (kubectl's order there is
//! whatever Go's unstable sort leaves).

use super::jsonpath::Template;
use pacto_gates::k8s::gofmt;
use serde_json::Value;
use std::cmp::Ordering;

/// Sorts `objects` by the first result of `path` (whose relaxed text is `text`) in each.
/// Errors: the path fails on an object; no object has the field (kubectl's `couldn't find any
/// field with path "{.x}" in the list of objects`); two keys that cannot be compared.
pub fn sort_objects(objects: &mut [Value], path: &Template, text: &str) -> Result<(), String> {
    // kubectl sorts nothing with fewer than two objects.
    if objects.len() < 2 {
        return Ok(());
    }
    let mut keyed: Vec<(Option<Value>, Value)> = Vec::with_capacity(objects.len());
    for o in objects.iter_mut() {
        let key = path
            .results(o)?
            .into_iter()
            .next()
            .and_then(|first| first.into_iter().next());
        keyed.push((key, std::mem::take(o)));
    }
    let present: Vec<&Value> = keyed.iter().filter_map(|(k, _)| k.as_ref()).collect();
    if present.is_empty() {
        for (slot, (_, o)) in objects.iter_mut().zip(keyed) {
            *slot = o;
        }
        return Err(format!(
            "couldn't find any field with path {text:?} in the list of objects"
        ));
    }
    let unsortable = sortable(&present).err();
    if let Some(e) = unsortable {
        for (slot, (_, o)) in objects.iter_mut().zip(keyed) {
            *slot = o;
        }
        return Err(format!("field {text} is an unsortable type: {e}"));
    }
    keyed.sort_by(|a, b| match (&a.0, &b.0) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => compare(x, y),
    });
    for (slot, (_, o)) in objects.iter_mut().zip(keyed) {
        *slot = o;
    }
    Ok(())
}

/// Whether kubectl's `isLess` can order every pair of these keys (null sorts first whatever the
/// others are). Errors: kubectl's text for the first key that cannot be.
fn sortable(keys: &[&Value]) -> Result<(), String> {
    let typed: Vec<&&Value> = keys.iter().filter(|k| !k.is_null()).collect();
    if typed.len() < 2 {
        return Ok(());
    }
    for k in &typed {
        if matches!(k, Value::Bool(_) | Value::Array(_) | Value::Object(_)) {
            return Err(format!("unsortable type: {}", gofmt::go_type(k)));
        }
    }
    let first = gofmt::go_type(typed[0]);
    if typed.iter().any(|k| gofmt::go_type(k) != first) {
        return Err("unsortable interface: interface".into());
    }
    Ok(())
}

/// kubectl's `isLess` on two keys of one type (checked by [`sortable`]), as an ordering.
fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i.cmp(&j),
            _ => x
                .as_f64()
                .partial_cmp(&y.as_f64())
                .unwrap_or(Ordering::Equal),
        },
        (Value::String(x), Value::String(y)) => match (quantity(x), quantity(y)) {
            (Some(p), Some(q)) => p.partial_cmp(&q).unwrap_or(Ordering::Equal),
            _ => x.as_bytes().cmp(y.as_bytes()),
        },
        _ => Ordering::Equal,
    }
}

/// The value of a string that `resource.ParseQuantity` accepts (apimachinery
/// `pkg/api/resource/quantity.go`): a signed decimal number (`1`, `1.5`, `.5`, `5.`) and a
/// suffix, binary (`Ki` … `Ei`), decimal (`n`, `u`, `m`, none, `k`, `M`, `G`, `T`, `P`, `E`) or
/// an exponent (`e3`, `E-2`). As a float: exact enough to order the quantities objects carry.
pub fn quantity(s: &str) -> Option<f64> {
    let digits_end = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let mut i = usize::from(s.starts_with(['+', '-']));
    let int = digits_end(&s[i..]);
    i += int;
    let mut frac = 0;
    if s[i..].starts_with('.') {
        i += 1;
        frac = digits_end(&s[i..]);
        i += frac;
    }
    if int + frac == 0 {
        return None;
    }
    let number: f64 = s[..i].trim_end_matches('.').parse().ok()?;
    let suffix = &s[i..];
    let scale = match suffix {
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "" => 1.0,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        e if e.len() > 1 && e.starts_with(['e', 'E']) => {
            let exp: i64 = e[1..].parse().ok()?;
            10f64.powf(exp as f64)
        }
        _ => return None,
    };
    Some(number * scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::printer::jsonpath::relaxed;
    use serde_json::json;

    fn by(objs: &mut [Value], path: &str) -> Result<(), String> {
        let (t, text) = relaxed(path).unwrap();
        sort_objects(objs, &t, &text)
    }

    fn names(objs: &[Value]) -> Vec<&str> {
        objs.iter().map(|o| o["n"].as_str().unwrap()).collect()
    }

    /// kubectl's isLess: quantities by value when both strings are quantities, other strings
    /// by their bytes.
    #[test]
    fn strings_by_bytes_or_as_quantities() {
        let mut objs: Vec<Value> = ["10", "9", "500m", "1Ki", "2e3"]
            .iter()
            .map(|k| json!({"n": k, "k": k}))
            .collect();
        by(&mut objs, ".k").unwrap();
        assert_eq!(names(&objs), ["500m", "9", "10", "1Ki", "2e3"]);
        let mut objs: Vec<Value> = ["a10", "a9", "B", "a"]
            .iter()
            .map(|k| json!({"n": k, "k": k}))
            .collect();
        by(&mut objs, ".k").unwrap();
        assert_eq!(names(&objs), ["B", "a", "a10", "a9"]);
        assert_eq!(quantity("1.4.0"), None);
        assert_eq!(quantity("."), None);
        assert_eq!(quantity("5."), Some(5.0));
    }

    #[test]
    fn objects_without_the_field_come_first_and_the_sort_is_stable() {
        let mut objs = vec![
            json!({"n": "x", "s": {"e": 10}}),
            json!({"n": "y"}),
            json!({"n": "z", "s": {"e": 2}}),
            json!({"n": "w", "s": {"e": 2}}),
        ];
        by(&mut objs, ".s.e").unwrap();
        assert_eq!(names(&objs), ["y", "z", "w", "x"]);
        let e = by(&mut objs, ".nothing").unwrap_err();
        assert_eq!(
            e,
            "couldn't find any field with path \"{.nothing}\" in the list of objects"
        );
        assert_eq!(names(&objs), ["y", "z", "w", "x"]);
    }

    #[test]
    fn maps_booleans_and_mixed_types_are_unsortable() {
        let mut objs = vec![json!({"n": "a", "s": {"x": 1}}), json!({"n": "b", "s": {}})];
        let e = by(&mut objs, ".s").unwrap_err();
        assert_eq!(
            e,
            "field {.s} is an unsortable type: unsortable type: map[string]interface {}"
        );
        let mut objs = vec![json!({"n": "a", "s": 1}), json!({"n": "b", "s": "1"})];
        assert!(by(&mut objs, ".s")
            .unwrap_err()
            .ends_with("unsortable interface: interface"));
        // One object is never compared.
        let mut one = vec![json!({"n": "a", "s": {}})];
        by(&mut one, ".s").unwrap();
    }
}
