//! kstatus `Compute` (fluxcd/cli-utils `pkg/kstatus/status`: `status.go`, `generic.go`, `core.go`,
//! `util.go`) and Flux's own Job reader (fluxcd/pkg `runtime/statusreaders/job.go`), ported to
//! pure functions over a `serde_json::Value`.
//!
//! Number typing follows Kubernetes' unstructured decoding: a whole number that fits in an i64 is
//! an `int64`; anything else (a fraction, an exponent form, an integer beyond i64) is a `float64`.
//! kstatus reads integers only when they are `int64` (`GetIntField`, `NestedInt64`), so a float
//! falls back to the default, or is an error where kstatus uses `NestedInt64`.
//!
//! Errors carry the text kstatus (and the apimachinery helpers it calls) would return: the
//! `unstructured.Nested*` accessor errors, the `runtime.DefaultUnstructuredConverter` errors of
//! `GetObjectWithConditions`, and the messages kstatus wraps around them. Where kstatus would
//! panic (a failed Go type assertion in `getCrashLoopingContainers`) the error starts with
//! `panic: ` and repeats Go's runtime message.
//!
//! No clock is read: the one rule that needs the time (a Pod that cannot be scheduled is given
//! `ScheduleWindow`, 15 s, after its creation) takes it as a parameter in [`compute_at`].
//!
//! The port is split by concept: `compute.rs` holds `Compute` itself (deletion, the generation
//! guard, the dispatch to a built-in rule or the conditions), `generic.rs` the condition rules for
//! any kind, `core.rs` the built-in rules of the core kinds, `job.rs` Flux's Job reader,
//! `unstructured.rs` the apimachinery field accessors and Go's formatting of values in their
//! errors, and `time.rs` Go's RFC 3339 parsing and formatting. This module holds the public entry
//! points (re-exported from those files, and [`augment_at`]) and the result constructors of
//! `util.go` they all share.

use serde_json::{Map, Value};

use super::{KCondition, KResult, KStatus};

mod compute;
mod core;
mod generic;
mod job;
mod time;
mod unstructured;

pub use self::compute::{compute, compute_at};
pub use self::core::SCHEDULE_WINDOW_SECONDS;
pub use self::job::{compute_job_status, job_status};
pub use self::unstructured::{get_int_field, get_string_field};

use self::time::format_rfc3339_utc;
use self::unstructured::{nested_slice, set_nested_field};

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

/// kstatus `Augment` (`status.go` `Augment`) with `time.Now()` given as `now_unix_seconds`: runs
/// [`compute_at`] and writes the conditions of the result (`Reconciling` or `Stalled`) into
/// `status.conditions`, updating a condition of the same type (a new `lastTransitionTime` only when
/// its status changes) or appending a new one, with `lastUpdateTime` set to the time in RFC 3339
/// UTC. `status.conditions` is always written back, even when nothing changed. On error the object
/// is left as it was (kstatus works on a copy of the list).
pub fn augment_at(obj: &mut Value, now_unix_seconds: i64) -> Result<(), String> {
    let res = compute_at(obj, now_unix_seconds)?;
    let mut conditions: Vec<Value> = match nested_slice(obj, &["status", "conditions"])? {
        Some(list) => list.clone(),
        None => Vec::new(),
    };
    let now = format_rfc3339_utc(now_unix_seconds);
    for wanted in &res.conditions {
        let mut present = false;
        for c in conditions.iter_mut() {
            let Value::Object(condition) = c else {
                return Err("condition does not have the expected structure".to_string());
            };
            let Some(Value::String(condition_type)) = condition.get("type") else {
                return Err("condition type does not have the expected type".to_string());
            };
            if *condition_type != wanted.kind {
                continue;
            }
            let Some(Value::String(condition_status)) = condition.get("status") else {
                return Err("condition status does not have the expected type".to_string());
            };
            if *condition_status != wanted.status {
                condition.insert("lastTransitionTime".into(), Value::String(now.clone()));
            }
            condition.insert("status".into(), Value::String(wanted.status.clone()));
            condition.insert("lastUpdateTime".into(), Value::String(now.clone()));
            condition.insert("reason".into(), Value::String(wanted.reason.clone()));
            condition.insert("message".into(), Value::String(wanted.message.clone()));
            present = true;
        }
        if !present {
            let mut condition = Map::new();
            condition.insert("lastTransitionTime".into(), Value::String(now.clone()));
            condition.insert("lastUpdateTime".into(), Value::String(now.clone()));
            condition.insert("message".into(), Value::String(wanted.message.clone()));
            condition.insert("reason".into(), Value::String(wanted.reason.clone()));
            condition.insert("status".into(), Value::String(wanted.status.clone()));
            condition.insert("type".into(), Value::String(wanted.kind.clone()));
            conditions.push(Value::Object(condition));
        }
    }
    set_nested_field(obj, Value::Array(conditions), &["status", "conditions"])
}

// ---------------------------------------------------------------------------------------------
// Results (util.go newInProgressStatus, newFailedStatus)
// ---------------------------------------------------------------------------------------------

pub(super) fn true_condition(kind: &str, reason: &str, message: &str) -> KCondition {
    KCondition {
        kind: kind.to_string(),
        status: "True".to_string(),
        reason: reason.to_string(),
        message: message.to_string(),
    }
}

pub(super) fn in_progress(reason: &str, message: &str) -> KResult {
    KResult {
        status: KStatus::InProgress,
        message: message.to_string(),
        conditions: vec![true_condition("Reconciling", reason, message)],
    }
}

pub(super) fn failed(reason: &str, message: &str) -> KResult {
    KResult {
        status: KStatus::Failed,
        message: message.to_string(),
        conditions: vec![true_condition("Stalled", reason, message)],
    }
}

pub(super) fn current(message: &str) -> KResult {
    KResult {
        status: KStatus::Current,
        message: message.to_string(),
        conditions: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The (type, status, reason) of each condition of a result.
    pub(super) fn reasons(res: &KResult) -> Vec<(String, String, String)> {
        res.conditions
            .iter()
            .map(|c| (c.kind.clone(), c.status.clone(), c.reason.clone()))
            .collect()
    }

    #[test]
    fn kstatus_augment_writes_conditions() {
        let mut obj = json!({"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Running",
            "conditions": [{"type": "Reconciling", "status": "False", "reason": "Old"}]}});
        augment_at(&mut obj, 0).unwrap();
        assert_eq!(
            obj["status"]["conditions"],
            json!([{"type": "Reconciling", "status": "True", "reason": "PodRunningNotReady",
                "lastTransitionTime": "1970-01-01T00:00:00Z", "lastUpdateTime": "1970-01-01T00:00:00Z",
                "message": "Pod is running but is not Ready"}])
        );
        let mut obj = json!({"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Running",
            "conditions": [{"type": 5}]}});
        let before = obj.clone();
        assert!(augment_at(&mut obj, 0).is_err());
        assert_eq!(obj, before);
        let mut obj = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        augment_at(&mut obj, 0).unwrap();
        assert_eq!(obj["status"], json!({"conditions": []}));
    }
}
