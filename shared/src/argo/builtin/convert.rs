//! What `runtime.DefaultUnstructuredConverter.FromUnstructured` (k8s.io/apimachinery v0.36.1
//! `pkg/runtime/converter.go`) does to an object before a built-in check sees it, reduced to
//! its observable outcome: success (absent keys and JSON nulls become Go zero values, unknown
//! keys are ignored) or the first error, worded as the converter words it. The walk follows Go
//! struct field order, so when several fields are wrong the same one is reported; within a map
//! Go's order is random, here it is the document order.

use super::golang::{
    check_base64, json_number, json_string, json_word, parse_quantity, parse_rfc3339, reflect_kind,
    QTY_FORMAT_WRONG,
};
use super::schema::{schema, Scalar, Schema, Ty};
use serde_json::{Map, Value};

/// Converts `obj` into the Go struct `root` (a name of the schema table, e.g. `apps.Deployment`)
/// and returns the converter's error text, if any.
pub(super) fn from_unstructured(obj: &Value, root: &'static str) -> Result<(), String> {
    check(obj, &Ty::Struct(root), schema())
}

fn check(v: &Value, ty: &Ty, s: &Schema) -> Result<(), String> {
    if v.is_null() {
        // fromUnstructured: an invalid (nil) source sets the zero value.
        return Ok(());
    }
    match ty {
        Ty::Scalar(kind, go_name) => scalar(v, *kind, go_name),
        Ty::Struct(name) => match v {
            Value::Object(m) => check_struct(m, name, s),
            other => Err(format!(
                "cannot restore struct from: {}",
                reflect_kind(other)
            )),
        },
        Ty::Slice(elem) => match v {
            Value::Array(items) => items.iter().try_for_each(|i| check(i, elem, s)),
            other => Err(format!("cannot restore slice from {}", reflect_kind(other))),
        },
        Ty::Map(elem) => match v {
            Value::Object(m) => m.values().try_for_each(|i| check(i, elem, s)),
            other => Err(format!("cannot restore map from {}", reflect_kind(other))),
        },
        Ty::Bytes => match v {
            // sliceFromUnstructured: a string is base64 decoded through encoding/json.
            Value::String(text) if text.is_empty() => Ok(()),
            Value::String(text) => {
                check_base64(text).map_err(|e| format!("error decoding from json: {e}"))
            }
            Value::Array(items) => items
                .iter()
                .try_for_each(|i| scalar_int(i, "uint8", "uint8")),
            other => Err(format!("cannot restore slice from {}", reflect_kind(other))),
        },
        // Types with an UnmarshalJSON method: the value is marshalled to JSON and handed to it.
        Ty::Time => match v {
            Value::String(t) => parse_rfc3339(t),
            other => Err(unmarshal_type_error(other, "string")),
        },
        Ty::IntOrString => match v {
            Value::String(_) => Ok(()),
            Value::Number(n) => {
                let text = json_number(n);
                match text.parse::<i64>() {
                    Ok(i) if i32::try_from(i).is_ok() => Ok(()),
                    _ => Err(format!(
                        "json: cannot unmarshal number {text} into Go value of type int32"
                    )),
                }
            }
            other => Err(unmarshal_type_error(other, "int32")),
        },
        Ty::Quantity => {
            let text = match v {
                Value::String(q) => {
                    let quoted = json_string(q);
                    quoted[1..quoted.len() - 1].to_string()
                }
                Value::Number(n) => json_number(n),
                // true/false/{…}/[…] never match the quantity syntax.
                _ => return Err(QTY_FORMAT_WRONG.to_string()),
            };
            parse_quantity(text.trim()).map_err(str::to_string)
        }
        Ty::Raw => Ok(()),
    }
}

fn check_struct(m: &Map<String, Value>, name: &str, s: &Schema) -> Result<(), String> {
    let fields = s
        .get(name)
        .unwrap_or_else(|| panic!("schema has no struct {name}"));
    for f in fields {
        if f.name.is_empty() {
            // Embedded inline struct: same map.
            check_struct(m, struct_name(&f.ty), s)?;
        } else if let Some(v) = m.get(f.name) {
            check(v, &f.ty, s)?;
        }
    }
    Ok(())
}

fn struct_name(ty: &Ty) -> &'static str {
    match ty {
        Ty::Struct(n) => n,
        other => panic!("inline field of non-struct type {other:?}"),
    }
}

/// `encoding/json`'s `UnmarshalTypeError` text for a top-level value.
fn unmarshal_type_error(v: &Value, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        json_word(v)
    )
}

/// The simple-type branch of `fromUnstructured`: assignable or convertible within JSON's four
/// groups (bools, integers, floats with a whole value, strings), else an error.
fn scalar(v: &Value, kind: Scalar, go_name: &str) -> Result<(), String> {
    match kind {
        Scalar::Str => match v {
            Value::String(_) => Ok(()),
            // int64 is ConvertibleTo string in Go, but the converter refuses it.
            Value::Number(n) if n.is_i64() => Err(format!("cannot convert int64 to {go_name}")),
            _ => Err("unrecognized type: string".to_string()),
        },
        Scalar::Bool => match v {
            Value::Bool(_) => Ok(()),
            _ => Err("unrecognized type: bool".to_string()),
        },
        Scalar::I32 | Scalar::I64 => scalar_int(v, kind.kind_name(), go_name),
    }
}

fn scalar_int(v: &Value, kind_name: &str, go_name: &str) -> Result<(), String> {
    match v {
        Value::Null => Ok(()),
        Value::Number(n) if n.is_i64() => Ok(()),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f == f.trunc() {
                Ok(())
            } else {
                Err(format!("cannot convert float64 to {go_name}"))
            }
        }
        _ => Err(format!("unrecognized type: {kind_name}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Expected texts follow the branches of apimachinery v0.36.1 pkg/runtime/converter.go
    // (fromUnstructured, structFromUnstructured, sliceFromUnstructured, mapFromUnstructured) and
    // the UnmarshalJSON methods of metav1.Time, intstr.IntOrString and resource.Quantity.

    fn conv(obj: Value) -> Result<(), String> {
        from_unstructured(&obj, "apps.Deployment")
    }

    #[test]
    fn zero_values_and_unknown_fields() {
        assert_eq!(conv(json!({})), Ok(()));
        assert_eq!(
            conv(json!({"metadata": null, "spec": {"replicas": null, "bogus": [1]}, "x": 1})),
            Ok(())
        );
        assert_eq!(conv(json!({"spec": {"replicas": 3.0}})), Ok(()));
    }

    #[test]
    fn scalar_errors() {
        assert_eq!(
            conv(json!({"spec": {"replicas": "3"}})),
            Err("unrecognized type: int32".into())
        );
        assert_eq!(
            conv(json!({"spec": {"replicas": 1.5}})),
            Err("cannot convert float64 to int32".into())
        );
        assert_eq!(
            conv(json!({"metadata": {"name": 7}})),
            Err("cannot convert int64 to string".into())
        );
        assert_eq!(
            conv(json!({"metadata": {"name": true}})),
            Err("unrecognized type: string".into())
        );
        assert_eq!(
            conv(json!({"spec": {"paused": "true"}})),
            Err("unrecognized type: bool".into())
        );
        assert_eq!(
            conv(json!({"status": {"conditions": [{"status": 1}]}})),
            Err("cannot convert int64 to v1.ConditionStatus".into())
        );
        assert_eq!(
            conv(json!({"metadata": {"uid": 1}})),
            Err("cannot convert int64 to types.UID".into())
        );
    }

    #[test]
    fn container_errors() {
        assert_eq!(
            conv(json!({"spec": "x"})),
            Err("cannot restore struct from: string".into())
        );
        assert_eq!(
            conv(json!({"status": {"conditions": {}}})),
            Err("cannot restore slice from map".into())
        );
        assert_eq!(
            conv(json!({"metadata": {"labels": []}})),
            Err("cannot restore map from slice".into())
        );
        assert_eq!(
            conv(json!({"metadata": {"labels": {"a": 1}}})),
            Err("cannot convert int64 to string".into())
        );
        // Deep in the pod template: a container port given as a string.
        assert_eq!(
            conv(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "c", "ports": [{"containerPort": "80"}]}]}}}})),
            Err("unrecognized type: int32".into())
        );
        // Go struct order: metadata is converted before spec.
        assert_eq!(
            conv(json!({"spec": {"replicas": "1"}, "metadata": {"name": 1}})),
            Err("cannot convert int64 to string".into())
        );
    }

    #[test]
    fn custom_unmarshalers() {
        assert_eq!(
            conv(json!({"metadata": {"creationTimestamp": null}})),
            Ok(())
        );
        assert_eq!(
            conv(json!({"metadata": {"creationTimestamp": 5}})),
            Err("json: cannot unmarshal number into Go value of type string".into())
        );
        assert_eq!(
            conv(json!({"metadata": {"creationTimestamp": "yesterday"}})),
            Err(r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#.into())
        );
        let ru = |v: Value| conv(json!({"spec": {"strategy": {"rollingUpdate": {"maxSurge": v}}}}));
        assert_eq!(ru(json!("25%")), Ok(()));
        assert_eq!(ru(json!(1)), Ok(()));
        assert_eq!(ru(json!(2.0)), Ok(()));
        assert_eq!(
            ru(json!(1.5)),
            Err("json: cannot unmarshal number 1.5 into Go value of type int32".into())
        );
        assert_eq!(
            ru(json!(3000000000i64)),
            Err("json: cannot unmarshal number 3000000000 into Go value of type int32".into())
        );
        assert_eq!(
            ru(json!(true)),
            Err("json: cannot unmarshal bool into Go value of type int32".into())
        );
        let res = |v: Value| {
            conv(json!({"spec": {"template": {"spec": {"containers": [
                {"resources": {"limits": {"cpu": v}}}]}}}}))
        };
        assert_eq!(res(json!("500m")), Ok(()));
        assert_eq!(res(json!(2)), Ok(()));
        assert_eq!(res(json!(" 1 ")), Ok(()));
        assert_eq!(res(json!("1 cpu")), Err(QTY_FORMAT_WRONG.into()));
        assert_eq!(res(json!(true)), Err(QTY_FORMAT_WRONG.into()));
        assert_eq!(res(json!("1Q")), Err(QTY_FORMAT_WRONG.into()));
        assert_eq!(
            res(json!("1kK")),
            Err("unable to parse quantity's suffix".into())
        );
    }

    #[test]
    fn bytes_field() {
        let ca = |v: Value| from_unstructured(&json!({"spec": {"caBundle": v}}), "arv1.APIService");
        assert_eq!(ca(json!("aGVsbG8=")), Ok(()));
        assert_eq!(ca(json!([104, 105])), Ok(()));
        assert_eq!(
            ca(json!("not base64")),
            Err("error decoding from json: illegal base64 data at input byte 3".into())
        );
        assert_eq!(ca(json!(1)), Err("cannot restore slice from int64".into()));
    }
}
