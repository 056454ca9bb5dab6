//! The rules of kstatus that read conditions, for any kind (fluxcd/cli-utils
//! `pkg/kstatus/status`): the first `Reconciling=True` or `Stalled=True` condition of `generic.go`
//! `checkGenericProperties`, the `Ready` condition of `status.go` `checkReadyCondition`, and
//! `util.go` `GetObjectWithConditions`, which decodes `status.conditions` for them (and for the
//! rules of `core.rs` and `job.rs`) with the errors of apimachinery's converter.

use serde_json::Value;

use super::unstructured::go_kind;
use super::{current, failed, in_progress};
use crate::flux::KResult;

// ---------------------------------------------------------------------------------------------
// generic.go and status.go
// ---------------------------------------------------------------------------------------------

/// The conditions part of `generic.go` `checkGenericProperties`: the first `Reconciling=True`
/// (InProgress) or `Stalled=True` (Failed) condition in list order, with its reason and message.
pub(super) fn check_reconciling_stalled(obj: &Value) -> Result<Option<KResult>, String> {
    for c in object_conditions(obj)? {
        if c.kind == "Reconciling" && c.status == "True" {
            return Ok(Some(in_progress(&c.reason, &c.message)));
        }
        if c.kind == "Stalled" && c.status == "True" {
            return Ok(Some(failed(&c.reason, &c.message)));
        }
    }
    Ok(None)
}

pub(super) fn check_ready_condition(obj: &Value) -> Result<Option<KResult>, String> {
    for c in object_conditions(obj)? {
        if c.kind != "Ready" {
            continue;
        }
        match c.status.as_str() {
            "True" => return Ok(Some(current("Resource is Ready"))),
            "False" | "Unknown" => return Ok(Some(in_progress(&c.reason, &c.message))),
            _ => {}
        }
    }
    Ok(None)
}

// ---------------------------------------------------------------------------------------------
// util.go GetObjectWithConditions: status.conditions through DefaultUnstructuredConverter
// ---------------------------------------------------------------------------------------------

/// One element of `status.conditions` as kstatus decodes it (`util.go` `BasicCondition`).
#[derive(Debug, Default)]
pub(super) struct BasicCondition {
    pub(super) kind: String,
    pub(super) status: String,
    pub(super) reason: String,
    pub(super) message: String,
}

/// `GetObjectWithConditions`: decodes `status.conditions` as apimachinery's
/// `runtime.DefaultUnstructuredConverter.FromUnstructured` does into
/// `{status: {conditions: [{type, status, reason, message}]}}`, with its error texts. A null
/// anywhere gives the zero value; unknown keys are ignored.
pub(super) fn object_conditions(obj: &Value) -> Result<Vec<BasicCondition>, String> {
    let status = match obj.get("status") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(m)) => m,
        Some(other) => return Err(format!("cannot restore struct from: {}", go_kind(other))),
    };
    let list = match status.get("conditions") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(other) => return Err(format!("cannot restore slice from {}", go_kind(other))),
    };
    let mut out = Vec::with_capacity(list.len());
    for item in list {
        let m = match item {
            Value::Null => {
                out.push(BasicCondition::default());
                continue;
            }
            Value::Object(m) => m,
            other => return Err(format!("cannot restore struct from: {}", go_kind(other))),
        };
        out.push(BasicCondition {
            kind: converted_string(m.get("type"), "string")?,
            status: converted_string(m.get("status"), "v1.ConditionStatus")?,
            reason: converted_string(m.get("reason"), "string")?,
            message: converted_string(m.get("message"), "string")?,
        });
    }
    Ok(out)
}

/// A string-kinded destination of the converter (`string` or `v1.ConditionStatus`): an int64 is
/// convertible in Go's reflect sense but refused (`cannot convert int64 to <type>`); a float, a
/// bool, a list or a mapping is not convertible at all (`unrecognized type: string`).
fn converted_string(v: Option<&Value>, dest_type: &str) -> Result<String, String> {
    match v {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) if n.as_i64().is_some() => {
            Err(format!("cannot convert int64 to {dest_type}"))
        }
        Some(_) => Err("unrecognized type: string".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::compute;
    use super::super::tests::reasons;
    use super::*;
    use crate::flux::KStatus;
    use serde_json::json;

    #[test]
    fn kstatus_reconciling_and_stalled_in_list_order() {
        let obj = json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "status": {"conditions": [
                {"type": "Ready", "status": "False", "reason": "Failing"},
                {"type": "Stalled", "status": "True", "reason": "BuildFailed", "message": "boom"},
                {"type": "Reconciling", "status": "True", "reason": "Progressing"}]}});
        let res = compute(&obj).unwrap();
        assert_eq!(res.status, KStatus::Failed);
        assert_eq!(res.message, "boom");
        assert_eq!(
            reasons(&res),
            vec![("Stalled".into(), "True".into(), "BuildFailed".into())]
        );
        assert_eq!(res.conditions[0].message, "boom");
        // Reconciling/Stalled apply to built-in kinds too, before their own rule.
        let obj = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "status": {"conditions": [{"type": "Reconciling", "status": "True", "reason": "R", "message": "m"}]}});
        let res = compute(&obj).unwrap();
        assert_eq!(
            (res.status, res.message.as_str()),
            (KStatus::InProgress, "m")
        );
    }

    #[test]
    fn kstatus_ready_condition_rules() {
        let cr = |status: &str| {
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
                "status": {"conditions": [{"type": "Ready", "status": status, "reason": "Why", "message": "msg"}]}})
        };
        let res = compute(&cr("Unknown")).unwrap();
        assert_eq!(
            (res.status, res.message.as_str()),
            (KStatus::InProgress, "msg")
        );
        assert_eq!(
            reasons(&res),
            vec![("Reconciling".into(), "True".into(), "Why".into())]
        );
        let res = compute(&cr("Maybe")).unwrap();
        assert_eq!(
            (res.status, res.message.as_str()),
            (KStatus::Current, "Resource is current")
        );
        // A built-in rule ignores Ready.
        let obj = json!({"apiVersion": "v1", "kind": "Secret",
            "status": {"conditions": [{"type": "Ready", "status": "False"}]}});
        assert_eq!(compute(&obj).unwrap().message, "Resource is always ready");
        // An apiVersion with two slashes has no group/kind, so no built-in rule.
        let obj = json!({"apiVersion": "a/b/c", "kind": "Secret"});
        assert_eq!(compute(&obj).unwrap().message, "Resource is current");
        // The version is ignored: extensions/v1beta1 Deployment uses the Deployment rule.
        let obj = json!({"apiVersion": "extensions/v1beta1", "kind": "Deployment"});
        assert_eq!(compute(&obj).unwrap().message, "Replicas: 0/1");
    }

    #[test]
    fn kstatus_condition_decoding_errors() {
        let with = |conditions: Value| json!({"apiVersion": "example.com/v1", "kind": "Widget", "status": {"conditions": conditions}});
        let cases = [
            (json!("x"), "cannot restore slice from string"),
            (json!({"a": 1}), "cannot restore slice from map"),
            (json!([1]), "cannot restore struct from: int64"),
            (json!([{"type": 1}]), "cannot convert int64 to string"),
            (
                json!([{"type": "Ready", "status": 1}]),
                "cannot convert int64 to v1.ConditionStatus",
            ),
            (
                json!([{"type": "Ready", "status": true}]),
                "unrecognized type: string",
            ),
            (
                json!([{"type": "Ready", "reason": 1.5}]),
                "unrecognized type: string",
            ),
        ];
        for (conditions, want) in cases {
            assert_eq!(compute(&with(conditions)).unwrap_err(), want);
        }
        // Nulls decode to empty values.
        let res = compute(&with(
            json!([null, {"type": "Ready", "status": "True", "reason": null}]),
        ))
        .unwrap();
        assert_eq!(res.message, "Resource is Ready");
        let obj = json!({"kind": "Widget", "status": 3});
        assert_eq!(
            compute(&obj).unwrap_err(),
            "cannot restore struct from: int64"
        );
    }
}
