//! batch/v1 Job: gitops-engine `pkg/health/health_job.go`.

use super::{items, status, text, to_typed, unsupported, Gvk};
use super::{DEGRADED, HEALTHY, PROGRESSING, SUSPENDED};
use crate::argo::HealthStatus;
use serde_json::Value;

/// `getJobHealth` / `getBatchv1JobHealth` (health_job.go). All conditions are scanned (the last
/// one of each type wins): `Failed` → Degraded with its message; `Complete` → Healthy with its
/// message; `Suspended` → Suspended when its status is `True` (a non-True Suspended condition
/// still counts as terminal: Healthy with its message); no such condition → Progressing.
pub(super) fn job(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("batch", "v1") {
        return Err(unsupported("Job", gvk));
    }
    to_typed(obj, "batch.Job", "Job")?;
    let (mut failed, mut complete, mut suspended) = (false, false, false);
    let (mut fail_msg, mut message) = ("", "");
    for c in items(obj, &["status", "conditions"]) {
        match text(c, &["type"]) {
            "Failed" => {
                failed = true;
                complete = true;
                fail_msg = text(c, &["message"]);
            }
            "Complete" => {
                complete = true;
                message = text(c, &["message"]);
            }
            "Suspended" => {
                complete = true;
                message = text(c, &["message"]);
                if text(c, &["status"]) == "True" {
                    suspended = true;
                }
            }
            _ => {}
        }
    }
    Ok(if !complete {
        status(PROGRESSING, message)
    } else if failed {
        status(DEGRADED, fail_msg)
    } else if suspended {
        status(SUSPENDED, message)
    } else {
        status(HEALTHY, message)
    })
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{error, health, hs};
    use serde_json::{json, Value};

    fn job(status: Value) -> Value {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "succeed"},
            "spec": {"backoffLimit": 0, "completions": 1, "parallelism": 1}, "status": status})
    }

    // health_test.go TestJob, job-running.yaml: no terminal condition → Progressing.
    #[test]
    fn running() {
        let st = json!({"active": 1, "startTime": "2018-12-02T08:19:14Z"});
        assert_eq!(health(job(st)), hs("Progressing", ""));
    }

    // health_test.go TestJob, job-failed.yaml: Failed condition → Degraded with its message.
    #[test]
    fn failed() {
        let st = json!({"failed": 1, "conditions": [{"type": "Failed", "status": "True",
            "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit",
            "lastProbeTime": "2018-12-02T08:09:27Z", "lastTransitionTime": "2018-12-02T08:09:27Z"}]});
        assert_eq!(
            health(job(st)),
            hs("Degraded", "Job has reached the specified backoff limit")
        );
    }

    // health_test.go TestJob, job-succeeded.yaml: Complete condition without message → Healthy.
    #[test]
    fn succeeded() {
        let st = json!({"succeeded": 1, "completionTime": "2018-12-02T08:19:26Z",
            "conditions": [{"type": "Complete", "status": "True"}]});
        assert_eq!(health(job(st)), hs("Healthy", ""));
    }

    // health_test.go TestJob, job-suspended.yaml: Suspended=True → Suspended, and the test
    // asserts the message "Job suspended".
    #[test]
    fn suspended() {
        let mut obj = job(
            json!({"conditions": [{"type": "Suspended", "status": "True",
            "reason": "JobSuspended", "message": "Job suspended"}]}),
        );
        obj["spec"]["suspend"] = json!(true);
        assert_eq!(health(obj), hs("Suspended", "Job suspended"));
    }

    // health_job.go: Failed wins over Complete whatever the order; a Suspended condition that is
    // not True still marks the job complete (Healthy, with its message).
    #[test]
    fn condition_combinations() {
        let st = json!({"conditions": [{"type": "Failed", "message": "f"},
            {"type": "Complete", "message": "c"}]});
        assert_eq!(health(job(st)), hs("Degraded", "f"));
        let st = json!({"conditions": [{"type": "Suspended", "status": "False", "message": "Job resumed"}]});
        assert_eq!(health(job(st)), hs("Healthy", "Job resumed"));
    }

    // health_job.go getJobHealth: typed conversion and version check.
    #[test]
    fn errors() {
        let mut obj = job(json!({}));
        obj["status"]["startTime"] = json!("2018-12-02");
        assert_eq!(
            error(obj),
            "failed to convert unstructured Job to typed: parsing time \"2018-12-02\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"T\""
        );
        let mut obj = job(json!({}));
        obj["apiVersion"] = json!("batch/v1beta1");
        assert_eq!(error(obj), "unsupported Job GVK: batch/v1beta1, Kind=Job");
    }
}
