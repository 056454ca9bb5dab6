//! Values between Kubernetes JSON and CEL.
//!
//! Into CEL, as cel-go sees `unstructured.Unstructured` content decoded by apimachinery: a JSON
//! number that is a whole number fitting int64 is an `int`, every other number a `double`
//! (`2.0` included); never a `uint` (cel 0.15's own `to_value` makes positive integers `uint`,
//! so `status.replicas + 1` would fail there). Objects are `map(string, dyn)`, arrays `list`.
//!
//! Out of CEL, for `Expression::evaluate`: JSON as Go's `encoding/json` would print cel-go's
//! native result (bytes base64, timestamps RFC 3339, durations in seconds `"1.5s"`, types by
//! name, an optional as its value or `null`).

use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelDuration, CelInt, CelList, CelMap, CelMapKey, CelNull,
    CelOptional, CelString, CelTimestamp, CelType, CelUInt, Kind,
};
use cel::common::value::Val;
use serde_json::Value as Json;
use std::collections::HashMap;

/// A JSON value as a CEL value, with Kubernetes number typing.
pub fn json_to_val(v: &Json) -> Box<dyn Val + 'static> {
    match v {
        Json::Null => Box::new(CelNull),
        Json::Bool(b) => Box::new(CelBool::from(*b)),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Box::new(CelInt::from(i)),
            None => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
        Json::String(s) => Box::new(CelString::from(s.clone())),
        Json::Array(items) => Box::new(CelList::from(
            items.iter().map(json_to_val).collect::<Vec<_>>(),
        )),
        Json::Object(m) => {
            let map: HashMap<CelMapKey<'static>, Box<dyn Val + 'static>> = m
                .iter()
                .map(|(k, v)| (CelMapKey::from(k.clone()), json_to_val(v)))
                .collect();
            Box::new(CelMap::from(map))
        }
    }
}

/// The CEL type name of a value, as cel-go's `TypeName()` spells it.
pub fn type_name(v: &dyn Val) -> String {
    v.get_type().name().to_string()
}

/// A CEL value as JSON.
pub fn val_to_json(v: &dyn Val) -> Json {
    match v.get_type().kind() {
        Kind::NullType => Json::Null,
        Kind::Boolean => v
            .downcast_ref::<CelBool>()
            .map(|b| Json::Bool(*b.inner()))
            .unwrap_or(Json::Null),
        Kind::Int => v
            .downcast_ref::<CelInt>()
            .map(|i| Json::from(*i.inner()))
            .unwrap_or(Json::Null),
        Kind::UInt => v
            .downcast_ref::<CelUInt>()
            .map(|i| Json::from(*i.inner()))
            .unwrap_or(Json::Null),
        Kind::Double => v
            .downcast_ref::<CelDouble>()
            .map(|d| {
                let d = *d.inner();
                serde_json::Number::from_f64(d)
                    .map(Json::Number)
                    .unwrap_or_else(|| Json::String(go_float(d)))
            })
            .unwrap_or(Json::Null),
        Kind::String => v
            .downcast_ref::<CelString>()
            .map(|s| Json::String(s.inner().to_string()))
            .unwrap_or(Json::Null),
        Kind::Bytes => v
            .downcast_ref::<CelBytes>()
            .map(|b| Json::String(base64(b.inner())))
            .unwrap_or(Json::Null),
        Kind::Timestamp => v
            .downcast_ref::<CelTimestamp>()
            .map(|t| Json::String(t.inner().to_rfc3339()))
            .unwrap_or(Json::Null),
        Kind::Duration => v
            .downcast_ref::<CelDuration>()
            .map(|d| Json::String(duration_string(d)))
            .unwrap_or(Json::Null),
        Kind::Type => v
            .downcast_ref::<CelType>()
            .map(|t| Json::String(t.name().to_string()))
            .unwrap_or(Json::Null),
        Kind::List => {
            let mut out = Vec::new();
            if let Some(it) = v.as_iterable() {
                let mut it = it.iter();
                while let Some(e) = it.next() {
                    out.push(val_to_json(e));
                }
            }
            Json::Array(out)
        }
        Kind::Map => {
            let mut out = serde_json::Map::new();
            if let Some(m) = v.downcast_ref::<CelMap>() {
                let mut entries: Vec<(String, Json)> = m
                    .inner()
                    .iter()
                    .map(|(k, v)| (go_format(k.inner()), val_to_json(v.as_ref())))
                    .collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                out.extend(entries);
            }
            Json::Object(out)
        }
        _ => match v.downcast_ref::<CelOptional>() {
            Some(opt) => opt.option().map(val_to_json).unwrap_or(Json::Null),
            None => Json::String(format!("{v:?}")),
        },
    }
}

/// A duration as protobuf JSON writes it: seconds with up to nine decimals, `s` suffix.
fn duration_string(d: &CelDuration) -> String {
    let d = d.inner();
    let secs = d.num_seconds();
    let nanos = d.subsec_nanos();
    if nanos == 0 {
        return format!("{secs}s");
    }
    let sign = if secs < 0 || nanos < 0 { "-" } else { "" };
    let frac = format!("{:09}", nanos.unsigned_abs());
    format!(
        "{sign}{}.{}s",
        secs.unsigned_abs(),
        frac.trim_end_matches('0')
    )
}

/// Go's `%v` of a float64.
fn go_float(d: f64) -> String {
    if d.is_nan() {
        "NaN".to_string()
    } else if d.is_infinite() {
        if d > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else {
        format!("{d}")
    }
}

/// Go's `%v` of a cel-go value, for the few error texts that print one.
pub fn go_format(v: &dyn Val) -> String {
    match v.get_type().kind() {
        Kind::String => v
            .downcast_ref::<CelString>()
            .map(|s| s.inner().to_string())
            .unwrap_or_default(),
        Kind::Int => v
            .downcast_ref::<CelInt>()
            .map(|i| i.inner().to_string())
            .unwrap_or_default(),
        Kind::UInt => v
            .downcast_ref::<CelUInt>()
            .map(|i| i.inner().to_string())
            .unwrap_or_default(),
        Kind::Double => v
            .downcast_ref::<CelDouble>()
            .map(|d| go_float(*d.inner()))
            .unwrap_or_default(),
        Kind::Boolean => v
            .downcast_ref::<CelBool>()
            .map(|b| b.inner().to_string())
            .unwrap_or_default(),
        Kind::NullType => "NULL_VALUE".to_string(),
        _ => val_to_json(v).to_string(),
    }
}

/// Standard base64 with padding (RFC 4648 §4): how cel-go's `NativeToValue`/JSON conversion
/// writes bytes (protobuf JSON's `bytes` mapping).
fn base64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_kubernetes_typing() {
        let v: Json = serde_json::from_str(r#"[3, -3, 2.0, 1.5, 18446744073709551615]"#).unwrap();
        let kinds: Vec<String> = match &v {
            Json::Array(items) => items.iter().map(|i| type_name(&*json_to_val(i))).collect(),
            _ => unreachable!(),
        };
        assert_eq!(kinds, ["int", "int", "double", "double", "double"]);
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }
}
