//! kstatus `Compute` (fluxcd/cli-utils `pkg/kstatus/status/status.go` `Compute`) and the checks it
//! makes before any rule of a kind: the deletionTimestamp and the generation guard of `generic.go`
//! `checkGenericProperties`, then the dispatch to the built-in rule of `core.go`
//! `GetLegacyConditionsFn` or to the condition rules of `generic.rs`.

use serde_json::Value;

use super::core::legacy_conditions_fn;
use super::generic::{check_ready_condition, check_reconciling_stalled};
use super::unstructured::{nested_int64, nested_string, object_kind, require_mapping};
use super::{current, in_progress};
use crate::flux::{KResult, KStatus};

/// kstatus `Compute` (`status.go` `Compute`) without a clock: the object is judged as if the
/// current time were far past any `metadata.creationTimestamp`. The only rule this changes is the
/// Pod scheduling window of `core.go` `podConditions`: a Pending Pod with `PodScheduled=False`,
/// reason `Unschedulable`, is always Failed `PodUnschedulable` (the state kstatus reaches 15 s
/// after creation), never InProgress `PodNotScheduled`. Use [`compute_at`] to supply the time.
pub fn compute(obj: &Value) -> Result<KResult, String> {
    compute_at(obj, i64::MAX)
}

/// kstatus `Compute` (`status.go` `Compute`) evaluated at `now_unix_seconds`, the value kstatus
/// reads from `time.Now()` in `core.go` `podConditions`.
///
/// The order is kstatus's: `generic.go` `checkGenericProperties` (deletionTimestamp, then
/// `checkGeneration`, then the first `Reconciling=True` or `Stalled=True` condition in list order),
/// then the built-in rule of `core.go` `GetLegacyConditionsFn` if the group/kind has one, then
/// `status.go` `checkReadyCondition`, then Current `Resource is current`.
///
/// An `Err` is what `Compute` returns as its error (kstatus's pollers report it as status Unknown
/// with that error). The object must be a mapping (Go's `unstructured.Unstructured` always is); any
/// other value is an error that kstatus itself cannot produce.
pub fn compute_at(obj: &Value, now_unix_seconds: i64) -> Result<KResult, String> {
    require_mapping(obj)?;
    if let Some(res) = check_generic_properties(obj)? {
        return Ok(res);
    }
    if let Some(rule) = legacy_conditions_fn(obj) {
        return rule(obj, now_unix_seconds);
    }
    if let Some(res) = check_ready_condition(obj)? {
        return Ok(res);
    }
    Ok(current("Resource is current"))
}

/// `generic.go` `checkGenericProperties`: a non-empty `metadata.deletionTimestamp`, then
/// `checkGeneration`, then the first `Reconciling=True` or `Stalled=True` condition.
fn check_generic_properties(obj: &Value) -> Result<Option<KResult>, String> {
    let deletion = nested_string(obj, &["metadata", "deletionTimestamp"])
        .map_err(|e| format!("looking up metadata.deletionTimestamp from resource: {e}"))?;
    if matches!(deletion, Some(s) if !s.is_empty()) {
        return Ok(Some(KResult {
            status: KStatus::Terminating,
            message: "Resource scheduled for deletion".to_string(),
            conditions: Vec::new(),
        }));
    }

    if let Some(res) = check_generation(obj)? {
        return Ok(Some(res));
    }

    check_reconciling_stalled(obj)
}

fn check_generation(obj: &Value) -> Result<Option<KResult>, String> {
    let generation = nested_int64(obj, &["metadata", "generation"])
        .map_err(|e| format!("looking up metadata.generation from resource: {e}"))?;
    let Some(generation) = generation else {
        return Ok(None);
    };
    let observed = nested_int64(obj, &["status", "observedGeneration"])
        .map_err(|e| format!("looking up status.observedGeneration from resource: {e}"))?;
    match observed {
        Some(observed) if observed != generation => {
            let message = format!(
                "{} generation is {generation}, but latest observed generation is {observed}",
                object_kind(obj)
            );
            Ok(Some(in_progress("LatestGenerationNotObserved", &message)))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kstatus_deletion_timestamp_wins_over_everything() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"generation": 3, "deletionTimestamp": "2024-01-01T00:00:00Z"},
            "status": {"observedGeneration": 1, "conditions": "not a list"}});
        let res = compute(&obj).unwrap();
        assert_eq!(res.status, KStatus::Terminating);
        assert_eq!(res.message, "Resource scheduled for deletion");
        assert!(res.conditions.is_empty());
        // An empty deletionTimestamp does not count.
        let obj = json!({"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"deletionTimestamp": ""}});
        assert_eq!(compute(&obj).unwrap().status, KStatus::Current);
        // A non-string one is an error.
        let obj = json!({"kind": "ConfigMap", "metadata": {"deletionTimestamp": 5}});
        assert_eq!(
            compute(&obj).unwrap_err(),
            "looking up metadata.deletionTimestamp from resource: .metadata.deletionTimestamp accessor error: 5 is of the type int64, expected string"
        );
    }

    #[test]
    fn kstatus_generation_typing_errors() {
        let obj = json!({"apiVersion": "networking.istio.io/v1", "kind": "VirtualService",
            "metadata": {"generation": 3}, "status": {"observedGeneration": "3"}});
        assert_eq!(
            compute(&obj).unwrap_err(),
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: 3 is of the type string, expected int64"
        );
        let obj = json!({"kind": "X", "metadata": {"generation": 1.5}});
        assert_eq!(
            compute(&obj).unwrap_err(),
            "looking up metadata.generation from resource: .metadata.generation accessor error: 1.5 is of the type float64, expected int64"
        );
        let obj = json!({"kind": "X", "metadata": {"generation": 1}, "status": {"observedGeneration": null}});
        assert_eq!(
            compute(&obj).unwrap_err(),
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: <nil> is of the type <nil>, expected int64"
        );
        let obj = json!({"kind": "X", "metadata": {"generation": 1}, "status": "odd"});
        assert_eq!(
            compute(&obj).unwrap_err(),
            "looking up status.observedGeneration from resource: .status.observedGeneration accessor error: odd is of the type string, expected map[string]interface{}"
        );
        // Without metadata.generation the observed generation is never read.
        let obj = json!({"kind": "X", "status": {"observedGeneration": "3"}});
        assert_eq!(compute(&obj).unwrap().message, "Resource is current");
        // Equal generations fall through; a negative one differs.
        let obj = json!({"kind": "X", "metadata": {"generation": 1}, "status": {"observedGeneration": -1}});
        let res = compute(&obj).unwrap();
        assert_eq!(res.status, KStatus::InProgress);
        assert_eq!(
            res.message,
            "X generation is 1, but latest observed generation is -1"
        );
    }
}
