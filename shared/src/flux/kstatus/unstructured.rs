//! The apimachinery unstructured accessors kstatus reads objects with (`unstructured.Nested*`,
//! `SetNestedField`, `Unstructured.GetKind`) and kstatus's own `GetIntField` and `GetStringField`
//! (fluxcd/cli-utils `pkg/kstatus/status/util.go`), with Go's formatting of values (`%v`, `%T`)
//! for the accessor errors they return.
//!
//! Number typing follows Kubernetes' unstructured decoding: a whole number that fits in an i64 is
//! an `int64`; anything else (a fraction, an exponent form, an integer beyond i64) is a `float64`.

use crate::k8s::gofmt::sprint as go_value;
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------------
// util.go GetIntField, GetStringField
// ---------------------------------------------------------------------------------------------

/// kstatus `GetIntField` (`util.go`): the value at a dotted path (a leading `.` is allowed) if it
/// is an integer (`int64`), otherwise `default` — also for a float, a string, a missing field or a
/// path that runs through a non-mapping.
pub fn get_int_field(obj: &Value, field_path: &str, default: i64) -> i64 {
    match nested_field(obj, &split_field_path(field_path)) {
        Ok(Some(Value::Number(n))) => n.as_i64().unwrap_or(default),
        _ => default,
    }
}

/// kstatus `GetStringField` (`util.go`): the value at a dotted path (a leading `.` is allowed) if
/// it is a string, otherwise `default`.
pub fn get_string_field(obj: &Value, field_path: &str, default: &str) -> String {
    match nested_field(obj, &split_field_path(field_path)) {
        Ok(Some(Value::String(s))) => s.clone(),
        _ => default.to_string(),
    }
}

pub(super) fn require_mapping(obj: &Value) -> Result<(), String> {
    if obj.is_object() {
        Ok(())
    } else {
        Err(format!(
            "expected a Kubernetes object (a map), found {}",
            go_type(obj)
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// apimachinery unstructured helpers (NestedFieldNoCopy and friends)
// ---------------------------------------------------------------------------------------------

fn split_field_path(path: &str) -> Vec<&str> {
    let mut fields: Vec<&str> = path.split('.').collect();
    if fields.first() == Some(&"") {
        fields.remove(0);
    }
    fields
}

fn json_path(fields: &[&str]) -> String {
    format!(".{}", fields.join("."))
}

/// `NestedFieldNoCopy`: `Ok(None)` when missing (or a null on the way), `Ok(Some(v))` when found
/// (`v` may be null), an accessor error when the path runs through a non-mapping.
fn nested_field<'a>(obj: &'a Value, fields: &[&str]) -> Result<Option<&'a Value>, String> {
    let mut val = obj;
    for (i, field) in fields.iter().enumerate() {
        match val {
            Value::Null => return Ok(None),
            Value::Object(m) => match m.get(*field) {
                Some(v) => val = v,
                None => return Ok(None),
            },
            other => {
                return Err(format!(
                    "{} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                    json_path(&fields[..=i]),
                    go_value(other),
                    go_type(other)
                ))
            }
        }
    }
    Ok(Some(val))
}

fn accessor_error(fields: &[&str], v: &Value, expected: &str) -> String {
    format!(
        "{} accessor error: {} is of the type {}, expected {expected}",
        json_path(fields),
        go_value(v),
        go_type(v)
    )
}

/// `NestedString`.
pub(super) fn nested_string(obj: &Value, fields: &[&str]) -> Result<Option<String>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(accessor_error(fields, other, "string")),
    }
}

/// `NestedInt64`: only an int64 (a whole number within i64) is accepted.
pub(super) fn nested_int64(obj: &Value, fields: &[&str]) -> Result<Option<i64>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(v @ Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(Some(i)),
            None => Err(accessor_error(fields, v, "int64")),
        },
        Some(other) => Err(accessor_error(fields, other, "int64")),
    }
}

/// `NestedBool`.
pub(super) fn nested_bool(obj: &Value, fields: &[&str]) -> Result<Option<bool>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(accessor_error(fields, other, "bool")),
    }
}

/// `NestedSlice` (without the copy).
pub(super) fn nested_slice<'a>(
    obj: &'a Value,
    fields: &[&str],
) -> Result<Option<&'a Vec<Value>>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(other) => Err(accessor_error(fields, other, "[]interface{}")),
    }
}

/// `getNestedString`: the string, or "" when missing, not a string, or unreachable.
pub(super) fn get_nested_string(obj: &Value, fields: &[&str]) -> String {
    nested_string(obj, fields)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// `Unstructured.GetKind`.
pub(super) fn object_kind(obj: &Value) -> String {
    get_nested_string(obj, &["kind"])
}

/// `SetNestedField`: creates missing (or null) mappings on the way.
pub(super) fn set_nested_field(
    obj: &mut Value,
    value: Value,
    fields: &[&str],
) -> Result<(), String> {
    let Some((last, path)) = fields.split_last() else {
        return Ok(());
    };
    let mut m = obj
        .as_object_mut()
        .ok_or_else(|| "value cannot be set because the object is not a mapping".to_string())?;
    for (i, field) in path.iter().enumerate() {
        let slot = m
            .entry(field.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if slot.is_null() {
            *slot = Value::Object(Map::new());
        }
        m = slot.as_object_mut().ok_or_else(|| {
            format!(
                "value cannot be set because {} is not a map[string]interface{{}}",
                json_path(&fields[..=i])
            )
        })?;
    }
    m.insert(last.to_string(), value);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Go formatting of values in error messages (%v and %T)
// ---------------------------------------------------------------------------------------------

pub(super) use crate::k8s::gofmt::{go_kind, go_type};

#[cfg(test)]
mod tests {
    use super::super::compute;
    use super::*;
    use crate::k8s::gofmt::sprint_float as go_float;
    use serde_json::json;

    #[test]
    fn kstatus_int_fields_ignore_floats() {
        // spec.replicas 2.0 is a float64, so the default 1 applies.
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"replicas": 2.0},
            "status": {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
                "conditions": [{"type": "Available", "status": "True"}]}});
        assert_eq!(
            compute(&obj).unwrap().message,
            "Deployment is available. Replicas: 1"
        );
        let obj = json!({"a": {"b": 7, "c": 7.5, "d": "7"}, "e": [1]});
        assert_eq!(get_int_field(&obj, ".a.b", -1), 7);
        assert_eq!(get_int_field(&obj, "a.b", -1), 7);
        assert_eq!(get_int_field(&obj, ".a.c", -1), -1);
        assert_eq!(get_int_field(&obj, ".a.d", -1), -1);
        assert_eq!(get_int_field(&obj, ".e.x", -1), -1);
        assert_eq!(get_string_field(&obj, ".a.d", "no"), "7");
        assert_eq!(get_string_field(&obj, ".a.b", "no"), "no");
    }

    #[test]
    fn kstatus_go_value_formatting() {
        assert_eq!(go_float(1.5), "1.5");
        assert_eq!(go_float(3.0), "3");
        assert_eq!(go_float(123456.0), "123456");
        assert_eq!(go_float(1234567.0), "1.234567e+06");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_float(-2.5e21), "-2.5e+21");
        assert_eq!(go_float(0.0), "0");
        assert_eq!(
            go_value(&json!({"b": [1, "x", null], "a": {"c": true}})),
            "map[a:map[c:true] b:[1 x <nil>]]"
        );
        // An integer beyond int64 is a float64 in Kubernetes typing.
        let big: Value = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(go_type(&big), "float64");
        assert_eq!(go_value(&big), "1.8446744073709552e+19");
    }
}
