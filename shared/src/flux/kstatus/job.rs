//! Flux's own Job reader (fluxcd/pkg `runtime/statusreaders/job.go`), which kustomize-controller
//! and helm-controller use for `batch/Job` in place of kstatus `Compute`.

use serde_json::Value;

use super::generic::object_conditions;
use super::unstructured::{get_int_field, get_string_field, nested_bool, require_mapping};
use super::{current, failed, in_progress};
use crate::flux::{KResult, KStatus};

/// Flux's Job status function, fluxcd/pkg `runtime/statusreaders/job.go` `jobConditions`, which
/// kustomize-controller and helm-controller use for `batch/Job` instead of kstatus. It does not go
/// through `Compute`: no deletionTimestamp, generation or Reconciling/Stalled check. A suspended
/// Job (`spec.suspend: true`) is Current; `Complete=True` is Current; `Failed=True` is Failed
/// `JobFailed`; no `status.startTime` is InProgress `JobNotStarted`; otherwise InProgress
/// `JobInProgress` (stock kstatus says Current there).
pub fn job_status(obj: &Value) -> Result<KResult, String> {
    require_mapping(obj)?;
    // An error reading spec.suspend (a wrong type) is ignored, as in job.go.
    if let Ok(Some(true)) = nested_bool(obj, &["spec", "suspend"]) {
        return Ok(current("Job is suspended"));
    }
    let parallelism = get_int_field(obj, ".spec.parallelism", 1);
    let completions = get_int_field(obj, ".spec.completions", parallelism);
    let active = get_int_field(obj, ".status.active", 0);
    let succeeded = get_int_field(obj, ".status.succeeded", 0);
    let failed_pods = get_int_field(obj, ".status.failed", 0);
    let start_time = get_string_field(obj, ".status.startTime", "");

    for c in object_conditions(obj)? {
        match c.kind.as_str() {
            "Complete" if c.status == "True" => {
                return Ok(current(&format!(
                    "Job Completed. succeeded: {succeeded}/{completions}"
                )));
            }
            "Failed" if c.status == "True" => {
                let message = format!("Job Failed. failed: {failed_pods}/{completions}");
                return Ok(failed("JobFailed", &message));
            }
            _ => {}
        }
    }
    if start_time.is_empty() {
        let message = format!("Job not started. active: 0/{parallelism}");
        return Ok(in_progress("JobNotStarted", &message));
    }
    let message =
        format!("Job in progress. success:{succeeded}, active: {active}, failed: {failed_pods}");
    Ok(in_progress("JobInProgress", &message))
}

/// fluxcd/pkg `runtime/statusreaders/job.go` `ComputeJobStatus`: [`job_status`], with an error
/// turned into status Unknown, message `Failed to compute job status: <error>`, no conditions.
pub fn compute_job_status(obj: &Value) -> KResult {
    match job_status(obj) {
        Ok(res) => res,
        Err(e) => KResult {
            status: KStatus::Unknown,
            message: format!("Failed to compute job status: {e}"),
            conditions: Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::compute;
    use super::*;
    use serde_json::json;

    #[test]
    fn kstatus_flux_job_reader() {
        let obj = json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"generation": 2, "deletionTimestamp": "2024-01-01T00:00:00Z"},
            "spec": {"suspend": true},
            "status": {"observedGeneration": 1, "conditions": [{"type": "Failed", "status": "True"}]}});
        assert_eq!(job_status(&obj).unwrap().message, "Job is suspended");
        // A non-bool suspend is ignored.
        let obj = json!({"kind": "Job", "spec": {"suspend": "yes", "completions": 3},
            "status": {"startTime": "2024-01-01T00:00:00Z", "succeeded": 2, "active": 1}});
        let res = job_status(&obj).unwrap();
        assert_eq!(res.status, KStatus::InProgress);
        assert_eq!(
            res.message,
            "Job in progress. success:2, active: 1, failed: 0"
        );
        // Stock kstatus says Current for the same running Job.
        let mut stock = obj.clone();
        stock["apiVersion"] = json!("batch/v1");
        assert_eq!(compute(&stock).unwrap().status, KStatus::Current);
        let obj =
            json!({"kind": "Job", "status": {"conditions": [{"type": "Complete", "status": 1}]}});
        let res = compute_job_status(&obj);
        assert_eq!(res.status, KStatus::Unknown);
        assert_eq!(
            res.message,
            "Failed to compute job status: cannot convert int64 to v1.ConditionStatus"
        );
    }
}
