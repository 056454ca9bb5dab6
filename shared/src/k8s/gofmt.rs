//! How Go's `fmt` prints the values of a decoded JSON object (`map[string]interface{}`), for
//! output that must read as kubectl's: `fmt.Sprint` of a float64, and `%v` of any JSON value.
//!
//! Sources: Go `fmt/print.go` (`%v` of maps sorts the keys, `map[k:v k:v]`; slices `[a b]`; nil
//! `<nil>`), `strconv/ftoa.go` (`FormatFloat(v, 'g', -1, 64)`: shortest digits, exponent form
//! when the decimal exponent is below -4 or at least 6, at least two exponent digits).

use serde_json::Value;

/// Go's `%T` of a value decoded from JSON the Kubernetes way (whole numbers in int64 are
/// `int64`, other numbers `float64`): `<nil>`, `bool`, `int64`, `float64`, `string`,
/// `[]interface {}`, `map[string]interface {}`. Go `fmt/print.go` (`%T` is `reflect.TypeOf`).
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `reflect.Kind` name of the same value (`Kind.String()` in `reflect/type.go`): `invalid`
/// for null, `bool`, `int64`, `float64`, `string`, `slice`, `map`.
pub fn go_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "invalid",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

/// Go's `fmt.Sprint(float64)`: `0.5`, `123456`, `1e+06`, `1.5e-07`, `NaN`, `+Inf`, `-Inf`.
pub fn sprint_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        format!("{v}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

/// Go's `fmt.Sprint` of a decoded JSON value: strings as they are, whole numbers that fit
/// int64 as integers, other numbers as [`sprint_float`], `true`/`false`, null `<nil>`, arrays `[a b]`, objects
/// `map[k1:v1 k2:v2]` with keys in byte order.
pub fn sprint(v: &Value) -> String {
    let mut out = String::new();
    write_sprint(v, &mut out);
    out
}

fn write_sprint(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // apimachinery decodes a whole number beyond int64 as a float64.
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.push_str(&i.to_string()),
            None => out.push_str(&sprint_float(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_sprint(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push_str("map[");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_sprint(&map[k.as_str()], out);
            }
            out.push(']');
        }
    }
}

/// Go's `json.Marshal` of a decoded JSON value: compact, object keys in byte order, and `<`,
/// `>`, `&`, U+2028, U+2029 escaped as `\u003c`-style sequences (Go's HTML-safe default).
pub fn marshal(v: &Value) -> String {
    html_safe(&serde_json::to_string(&sort_keys(v)).unwrap_or_default())
}

/// Go's `json.MarshalIndent(v, "", indent)`, as kubectl's `-o json` prints objects (four
/// spaces): [`marshal`]'s keys and escapes, one member per line.
pub fn marshal_indent(v: &Value, indent: &str) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    if sort_keys(v).serialize(&mut ser).is_err() {
        return String::new();
    }
    html_safe(&String::from_utf8_lossy(&buf))
}

fn html_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

fn sort_keys(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sort_keys(&map[k.as_str()])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sort_keys).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Go's `fmt.Sprintf("%T", v)` and `reflect.ValueOf(v).Kind().String()` of the values
    /// `json.Unmarshal` into `interface{}` gives, with Kubernetes number typing (int64 for whole
    /// numbers in range: apimachinery `runtime.DefaultUnstructuredConverter`).
    #[test]
    fn type_and_kind_names_are_go_s() {
        let big: Value = serde_json::from_str("18446744073709551615").unwrap();
        for (v, ty, kind) in [
            (json!(null), "<nil>", "invalid"),
            (json!(true), "bool", "bool"),
            (json!(3), "int64", "int64"),
            (json!(-3), "int64", "int64"),
            (json!(1.5), "float64", "float64"),
            (big, "float64", "float64"),
            (json!("x"), "string", "string"),
            (json!([1]), "[]interface {}", "slice"),
            (json!({"a": 1}), "map[string]interface {}", "map"),
        ] {
            assert_eq!((go_type(&v), go_kind(&v)), (ty, kind), "{v}");
        }
    }

    /// Expected texts are what Go 1.22's fmt.Sprint and json.Marshal print for the same values.
    #[test]
    fn values_print_as_go_prints_them() {
        for (v, want) in [
            (0.5, "0.5"),
            (123456.0, "123456"),
            (1e6, "1e+06"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (f64::INFINITY, "+Inf"),
        ] {
            assert_eq!(sprint_float(v), want, "{v}");
        }
        assert_eq!(
            sprint(&json!({"b": [1, "x", null], "a": {"c": true}})),
            "map[a:map[c:true] b:[1 x <nil>]]"
        );
        assert_eq!(
            marshal(&json!({"b": "<a&b>", "a": [1, 2.5]})),
            r#"{"a":[1,2.5],"b":"\u003ca\u0026b\u003e"}"#
        );
        assert_eq!(
            marshal_indent(&json!({"b": [], "a": {"c": 1}}), "    "),
            "{\n    \"a\": {\n        \"c\": 1\n    },\n    \"b\": []\n}"
        );
    }
}
