//! `--sort-by` as kubectl orders objects (`kubectl/pkg/cmd/get/sorter.go`): by the first value
//! the path finds, integers and floats by value, strings in natural order
//! (`github.com/fvbommel/sortorder` `NaturalLess`, which kubectl uses), booleans false first;
//! objects where the path finds nothing come first. The sort is stable: among equal keys the
//! listing order stays (kubectl's order there is whatever Go's unstable sort leaves).

use super::jsonpath::Template;
use serde_json::Value;
use std::cmp::Ordering;

/// Sorts `objects` by the first value `path` finds in each. Errors: the path fails on an object,
/// or no object has the field (kubectl's `couldn't find any field with path ... in the list of
/// objects`).
pub fn sort_objects(objects: &mut [Value], path: &Template) -> Result<(), String> {
    let mut keyed: Vec<(Option<Value>, Value)> = Vec::with_capacity(objects.len());
    let mut found = false;
    for o in objects.iter_mut() {
        let key = path.values(o)?.first().map(|v| (*v).clone());
        found |= key.is_some();
        keyed.push((key, std::mem::take(o)));
    }
    if !found && !keyed.is_empty() {
        return Err("couldn't find any field with this path in the list of objects".into());
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

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// kubectl's `isLess` on decoded JSON values, as an ordering. Values of different types (which
/// kubectl cannot compare) are ordered by type so that the sort stays total.
fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i.cmp(&j),
            _ => x
                .as_f64()
                .partial_cmp(&y.as_f64())
                .unwrap_or(Ordering::Equal),
        },
        (Value::String(x), Value::String(y)) => natural(x, y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (i, j) in x.iter().zip(y) {
                match compare(i, j) {
                    Ordering::Equal => continue,
                    o => return o,
                }
            }
            x.len().cmp(&y.len())
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Natural order: runs of digits compare by value (a shorter run without leading zeros is
/// smaller; equal values with fewer leading zeros first), digits before other bytes, other bytes
/// by value; a string that is a prefix of the other comes first.
pub fn natural(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        let (dx, dy) = (x[i].is_ascii_digit(), y[j].is_ascii_digit());
        if dx != dy {
            return if dx {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        if !dx {
            if x[i] != y[j] {
                return x[i].cmp(&y[j]);
            }
            i += 1;
            j += 1;
            continue;
        }
        let (zi, zj) = (i, j);
        while i < x.len() && x[i] == b'0' {
            i += 1;
        }
        while j < y.len() && y[j] == b'0' {
            j += 1;
        }
        let (si, sj) = (i, j);
        while i < x.len() && x[i].is_ascii_digit() {
            i += 1;
        }
        while j < y.len() && y[j].is_ascii_digit() {
            j += 1;
        }
        let (nx, ny) = (&x[si..i], &y[sj..j]);
        if nx.len() != ny.len() {
            return nx.len().cmp(&ny.len());
        }
        if nx != ny {
            return nx.cmp(ny);
        }
        if si - zi != sj - zj {
            return (si - zi).cmp(&(sj - zj));
        }
    }
    x.len().cmp(&y.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::printer::jsonpath::relaxed;
    use serde_json::json;

    /// sortorder's rules: numbers by value, digits before letters, and at the first run of
    /// digits of equal value the one with fewer leading zeros decides at once (so `a2b` sorts
    /// before `a02`).
    #[test]
    fn natural_order() {
        let mut v = vec!["a10", "a2", "a02", "a1", "b", "a", "1", "a2b"];
        v.sort_by(|a, b| natural(a, b));
        assert_eq!(v, ["1", "a", "a1", "a2", "a2b", "a02", "a10", "b"]);
    }

    #[test]
    fn objects_without_the_field_come_first_and_the_sort_is_stable() {
        let mut objs = vec![
            json!({"n": "x", "s": {"e": 10}}),
            json!({"n": "y"}),
            json!({"n": "z", "s": {"e": 2}}),
            json!({"n": "w", "s": {"e": 2}}),
        ];
        sort_objects(&mut objs, &relaxed(".s.e").unwrap()).unwrap();
        let names: Vec<&str> = objs.iter().map(|o| o["n"].as_str().unwrap()).collect();
        assert_eq!(names, ["y", "z", "w", "x"]);
        let e = sort_objects(&mut objs, &relaxed(".nothing").unwrap()).unwrap_err();
        assert!(e.starts_with("couldn't find any field"), "{e}");
    }
}
