//! Core (`v1`) Pod: gitops-engine `pkg/health/health_pod.go` at argo-cd master 37ee0097, with
//! hook detection from `pkg/sync/hook/hook.go` (`IsHook`, `Skip`, `Types`),
//! `pkg/sync/hook/helm/hook.go` and `pkg/sync/resource/annotations.go` (`GetAnnotationCSVs`),
//! and the readiness test of kubectl `pkg/util/podutils` (`IsPodReady`).
//!
//! A pod is assessed as long-running when `spec.restartPolicy` is `Always`, or when it carries
//! `argocd.argoproj.io/ignore-restart-policy: "true"` and is not a hook (the annotation is not
//! honoured on hooks). Note that the conversion applies no defaulting: a hand-written Pod
//! without `restartPolicy` that is Running ends in `Unknown`.

use super::golang::quote;
use super::{annotation, get, int32, items, status, text, to_typed, unsupported, Gvk};
use super::{DEGRADED, HEALTHY, PROGRESSING, UNKNOWN};
use crate::argo::HealthStatus;
use serde_json::Value;

/// gitops-engine `pkg/sync/common` `AnnotationIgnoreRestartPolicy`.
const IGNORE_RESTART_POLICY: &str = "argocd.argoproj.io/ignore-restart-policy";
/// gitops-engine `pkg/sync/common` `AnnotationKeyHook`.
const HOOK: &str = "argocd.argoproj.io/hook";
const HELM_HOOK: &str = "helm.sh/hook";

/// `resource.GetAnnotationCSVs`: comma-separated values, trimmed, empties dropped, deduplicated.
fn annotation_csvs<'a>(obj: &'a Value, key: &str) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for v in annotation(obj, key).unwrap_or("").split(',').map(str::trim) {
        if !v.is_empty() && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// `hook.IsHook`: with an `argocd.argoproj.io/hook` annotation (any value), a hook unless its
/// only valid type is `Skip` (`hook.Skip`; Helm types never map to Skip, so only the Argo
/// annotation matters there); otherwise a Helm hook (`helm.sh/hook` present and not
/// `crd-install`).
fn is_hook(obj: &Value) -> bool {
    if annotation(obj, HOOK).is_some() {
        let types: Vec<&str> = annotation_csvs(obj, HOOK)
            .into_iter()
            .filter(|t| matches!(*t, "PreSync" | "Sync" | "PostSync" | "SyncFail" | "Skip"))
            .collect();
        let skip = types.contains(&"Skip") && types.len() == 1;
        return !skip;
    }
    annotation(obj, HELM_HOOK).is_some_and(|v| v != "crd-install")
}

/// The failure text of a terminated container (`getFailMessage` in health_pod.go).
fn fail_message(ctr: &Value) -> String {
    let Some(t) = get(ctr, &["state", "terminated"]) else {
        return String::new();
    };
    let message = text(t, &["message"]);
    if !message.is_empty() {
        return message.to_string();
    }
    if text(t, &["reason"]) == "OOMKilled" {
        return "OOMKilled".to_string();
    }
    let code = int32(t, &["exitCode"]);
    if code != 0 {
        return format!(
            "container {} failed with exit code {code}",
            quote(text(ctr, &["name"]))
        );
    }
    String::new()
}

/// `getPodHealth` / `getCorev1PodHealth` (health_pod.go).
pub(super) fn pod(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("", "v1") {
        return Err(unsupported("Pod", gvk));
    }
    to_typed(obj, "core.Pod", "Pod")?;
    let ignore_restart_policy = annotation(obj, IGNORE_RESTART_POLICY) == Some("true");
    let policy = text(obj, &["spec", "restartPolicy"]);
    let long_running = policy == "Always" || (ignore_restart_policy && !is_hook(obj));
    let message = text(obj, &["status", "message"]);
    let containers = items(obj, &["status", "containerStatuses"]);

    if long_running {
        let waiting_errors: Vec<&str> = containers
            .iter()
            .filter_map(|c| get(c, &["state", "waiting"]))
            .filter(|w| {
                let r = text(w, &["reason"]);
                r.starts_with("Err") || r.ends_with("Error") || r.ends_with("BackOff")
            })
            .map(|w| text(w, &["message"]))
            .collect();
        if !waiting_errors.is_empty() {
            return Ok(status(DEGRADED, waiting_errors.join(", ")));
        }
    }

    match text(obj, &["status", "phase"]) {
        "Pending" => return Ok(status(PROGRESSING, message)),
        "Succeeded" => return Ok(status(HEALTHY, message)),
        "Failed" => {
            if !message.is_empty() {
                return Ok(status(DEGRADED, message));
            }
            let init = items(obj, &["status", "initContainerStatuses"]);
            for ctr in init.iter().chain(containers) {
                let msg = fail_message(ctr);
                if !msg.is_empty() {
                    return Ok(status(DEGRADED, msg));
                }
            }
            return Ok(status(DEGRADED, ""));
        }
        "Running" => {
            if long_running {
                // podutils.IsPodReady: the first Ready condition has status True.
                let ready = items(obj, &["status", "conditions"])
                    .iter()
                    .find(|c| text(c, &["type"]) == "Ready")
                    .is_some_and(|c| text(c, &["status"]) == "True");
                if ready {
                    return Ok(status(HEALTHY, message));
                }
                if containers
                    .iter()
                    .any(|c| get(c, &["lastState", "terminated"]).is_some())
                {
                    return Ok(status(DEGRADED, message));
                }
                return Ok(status(PROGRESSING, message));
            }
            if policy == "OnFailure" || policy == "Never" {
                return Ok(status(PROGRESSING, message));
            }
        }
        _ => {}
    }
    Ok(status(UNKNOWN, message))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{error, health, hs};
    use serde_json::{json, Value};

    fn pod(annotations: Value, policy: &str, status: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "my-pod", "annotations": annotations},
            "spec": {"restartPolicy": policy,
                "containers": [{"name": "main", "image": "alpine:3.21", "imagePullPolicy": "Always"}]},
            "status": status})
    }

    fn ready(ok: bool) -> Value {
        json!({"type": "Ready", "status": if ok { "True" } else { "False" }})
    }

    fn waiting(reason: &str, message: &str) -> Value {
        json!({"name": "main", "ready": false, "state": {"waiting": {"reason": reason, "message": message}}})
    }

    fn running_ready() -> Value {
        json!({"phase": "Running", "conditions": [{"type": "Initialized", "status": "True"}, ready(true)],
            "containerStatuses": [{"name": "main", "ready": true, "lastState": {},
                "state": {"running": {"startedAt": "2018-12-02T09:15:19Z"}}}]})
    }

    // health_test.go TestPod, pod-pending.yaml: Always, waiting PodInitializing (not an error
    // reason), phase Pending → Progressing with status.message (empty).
    #[test]
    fn pending() {
        let st = json!({"phase": "Pending", "conditions": [ready(false)],
            "containerStatuses": [waiting("PodInitializing", "")]});
        assert_eq!(health(pod(json!({}), "Always", st)), hs("Progressing", ""));
    }

    // health_test.go TestPod, pod-running-not-ready.yaml: Always, Running, Ready False, no
    // lastState.terminated → Progressing.
    #[test]
    fn running_not_ready() {
        let st = json!({"phase": "Running", "conditions": [ready(false)],
            "containerStatuses": [{"name": "main", "lastState": {}, "state": {"running": {}}}]});
        assert_eq!(health(pod(json!({}), "Always", st)), hs("Progressing", ""));
    }

    // health_test.go TestPod, pod-crashloop.yaml: CrashLoopBackOff (suffix BackOff) → Degraded
    // with the waiting message.
    #[test]
    fn crashloop() {
        let msg = "Back-off 40s restarting failed container=main pod=my-pod_argocd(63674389)";
        let st = json!({"phase": "Running", "conditions": [ready(false)],
            "containerStatuses": [{"name": "main",
                "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}},
                "state": {"waiting": {"reason": "CrashLoopBackOff", "message": msg}}}]});
        assert_eq!(health(pod(json!({}), "Always", st)), hs("Degraded", msg));
    }

    // health_test.go TestPod, pod-imagepullbackoff.yaml: ImagePullBackOff while Pending.
    #[test]
    fn image_pull_backoff() {
        let msg = "Back-off pulling image \"gcr.io/heptio-images/ks-guestbook-demo:0.3\"";
        let st =
            json!({"phase": "Pending", "containerStatuses": [waiting("ImagePullBackOff", msg)]});
        assert_eq!(health(pod(json!({}), "Always", st)), hs("Degraded", msg));
    }

    // health_test.go TestPod, pod-error.yaml: Always, Running, not ready, a container with
    // lastState.terminated → Degraded with status.message (empty).
    #[test]
    fn running_with_terminated_container() {
        let st = json!({"phase": "Running", "conditions": [ready(false)],
            "containerStatuses": [{"name": "main",
                "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}},
                "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}]});
        assert_eq!(health(pod(json!({}), "Always", st)), hs("Degraded", ""));
    }

    // health_test.go TestPod, pod-running-restart-always.yaml: ready → Healthy.
    #[test]
    fn running_restart_always() {
        assert_eq!(
            health(pod(json!({}), "Always", running_ready())),
            hs("Healthy", "")
        );
    }

    // health_test.go TestPod, pod-running-restart-never.yaml: Never → Progressing even if ready.
    #[test]
    fn running_restart_never() {
        assert_eq!(
            health(pod(json!({}), "Never", running_ready())),
            hs("Progressing", "")
        );
    }

    // health_test.go TestPod, pod-running-restart-never-with-ignore-annotation.yaml: the
    // ignore-restart-policy annotation on a non-hook pod → assessed as long-running → Healthy.
    #[test]
    fn running_never_with_ignore_annotation() {
        let a = json!({"argocd.argoproj.io/ignore-restart-policy": "true"});
        assert_eq!(health(pod(a, "Never", running_ready())), hs("Healthy", ""));
    }

    // health_test.go TestPod, pod-running-restart-never-hook-with-ignore-annotation.yaml: the
    // annotation is not honoured on a hook (argocd.argoproj.io/hook: PostSync) → Progressing.
    #[test]
    fn running_never_hook_with_ignore_annotation() {
        let a = json!({"argocd.argoproj.io/ignore-restart-policy": "true",
            "argocd.argoproj.io/hook": "PostSync"});
        assert_eq!(
            health(pod(a, "Never", running_ready())),
            hs("Progressing", "")
        );
    }

    // health_test.go TestPod, pod-running-restart-never-with-ignore-annotation-backoff.yaml:
    // the waiting-error scan also applies → Degraded.
    #[test]
    fn running_never_with_ignore_annotation_backoff() {
        let a = json!({"argocd.argoproj.io/ignore-restart-policy": "true"});
        let msg = "Back-off pulling image \"alpine:3.21\"";
        let st = json!({"phase": "Running", "conditions": [ready(false)],
            "containerStatuses": [waiting("ImagePullBackOff", msg)]});
        assert_eq!(health(pod(a, "Never", st)), hs("Degraded", msg));
    }

    // health_test.go TestPod, pod-running-restart-onfailure.yaml: CrashLoopBackOff is ignored
    // for OnFailure; Running → Progressing.
    #[test]
    fn running_restart_onfailure() {
        let st = json!({"phase": "Running", "conditions": [ready(false)],
            "containerStatuses": [waiting("CrashLoopBackOff", "Back-off 1m20s restarting failed container")]});
        assert_eq!(
            health(pod(json!({}), "OnFailure", st)),
            hs("Progressing", "")
        );
    }

    // health_test.go TestPod, pod-failed.yaml: Never, Failed, no status.message, container
    // terminated with exit code 1 and no message → getFailMessage's exit-code text.
    #[test]
    fn failed_exit_code() {
        let st = json!({"phase": "Failed", "containerStatuses": [{"name": "main",
            "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}]});
        assert_eq!(
            health(pod(json!({}), "Never", st)),
            hs("Degraded", "container \"main\" failed with exit code 1")
        );
    }

    // health_test.go TestPod, pod-succeeded.yaml: Succeeded → Healthy.
    #[test]
    fn succeeded() {
        let st = json!({"phase": "Succeeded", "containerStatuses": [{"name": "main",
            "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]});
        assert_eq!(health(pod(json!({}), "Never", st)), hs("Healthy", ""));
    }

    // health_test.go TestPod, pod-deletion.yaml expects Progressing: in Go that is
    // GetResourceHealth's "Pending deletion" short-circuit (health.go), which is the caller's
    // job; the Pod check alone sees phase Pending → Progressing with an empty message.
    #[test]
    fn deletion_pod_check_alone() {
        let mut obj = pod(
            json!({}),
            "Always",
            json!({"phase": "Pending",
            "containerStatuses": [waiting("PodInitializing", "")]}),
        );
        obj["metadata"]["deletionTimestamp"] = json!("2018-12-03T10:16:04Z");
        assert_eq!(health(obj), hs("Progressing", ""));
    }

    // health_pod.go getFailMessage: status.message first, then init containers before
    // containers, terminated message, OOMKilled reason, exit code; nothing → Degraded "".
    #[test]
    fn failed_messages() {
        let st = json!({"phase": "Failed", "message": "Pod was evicted", "containerStatuses": []});
        assert_eq!(
            health(pod(json!({}), "Always", st)),
            hs("Degraded", "Pod was evicted")
        );
        let st = json!({"phase": "Failed",
            "initContainerStatuses": [{"name": "init", "state": {"terminated": {"exitCode": 2}}}],
            "containerStatuses": [{"name": "main", "state": {"terminated": {"exitCode": 1, "message": "boom"}}}]});
        assert_eq!(
            health(pod(json!({}), "Never", st)),
            hs("Degraded", "container \"init\" failed with exit code 2")
        );
        let st = json!({"phase": "Failed", "containerStatuses": [
            {"name": "a", "state": {"terminated": {"exitCode": 0}}},
            {"name": "b", "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}]});
        assert_eq!(
            health(pod(json!({}), "Never", st)),
            hs("Degraded", "OOMKilled")
        );
        let st = json!({"phase": "Failed", "containerStatuses": [
            {"name": "a", "state": {"terminated": {"exitCode": 1, "message": "boom"}}}]});
        assert_eq!(health(pod(json!({}), "Never", st)), hs("Degraded", "boom"));
        let st = json!({"phase": "Failed"});
        assert_eq!(health(pod(json!({}), "Never", st)), hs("Degraded", ""));
    }

    // health_pod.go: waiting reasons with prefix Err / suffix Error / suffix BackOff, messages
    // joined with ", ".
    #[test]
    fn waiting_error_reasons() {
        let st = json!({"phase": "Pending", "containerStatuses": [
            waiting("ErrImagePull", "pull failed"),
            waiting("ContainerCreating", "not an error"),
            waiting("CreateContainerConfigError", "secret \"x\" not found")]});
        assert_eq!(
            health(pod(json!({}), "Always", st)),
            hs("Degraded", "pull failed, secret \"x\" not found")
        );
    }

    // health_pod.go: Running with an empty restartPolicy (no defaulting by the conversion) is
    // neither branch → Unknown with status.message; an unknown phase likewise.
    #[test]
    fn unknown() {
        let mut st = running_ready();
        st["message"] = json!("m");
        assert_eq!(health(pod(json!({}), "", st)), hs("Unknown", "m"));
        assert_eq!(
            health(pod(json!({}), "Always", json!({"phase": "Weird"}))),
            hs("Unknown", "")
        );
        assert_eq!(
            health(pod(json!({}), "Always", json!({}))),
            hs("Unknown", "")
        );
    }

    // hook.go IsHook / Skip / Types and helm/hook.go IsHook decide whether the
    // ignore-restart-policy annotation is honoured.
    #[test]
    fn hook_detection() {
        let run = |a: Value| health(pod(a, "Never", running_ready())).status;
        let ignore = "argocd.argoproj.io/ignore-restart-policy";
        // Only type Skip: not a hook → annotation honoured → Healthy.
        assert_eq!(
            run(json!({ignore: "true", "argocd.argoproj.io/hook": "Skip"})),
            "Healthy"
        );
        assert_eq!(
            run(json!({ignore: "true", "argocd.argoproj.io/hook": " Skip,Skip "})),
            "Healthy"
        );
        // Skip with another type, or an Argo hook annotation without valid types: a hook.
        assert_eq!(
            run(json!({ignore: "true", "argocd.argoproj.io/hook": "Skip,PreSync"})),
            "Progressing"
        );
        assert_eq!(
            run(json!({ignore: "true", "argocd.argoproj.io/hook": ""})),
            "Progressing"
        );
        // Helm hooks: any value but crd-install.
        assert_eq!(
            run(json!({ignore: "true", "helm.sh/hook": "post-install"})),
            "Progressing"
        );
        assert_eq!(
            run(json!({ignore: "true", "helm.sh/hook": "crd-install"})),
            "Healthy"
        );
        // The annotation value must be exactly "true".
        assert_eq!(run(json!({ignore: "True"})), "Progressing");
    }

    // health_pod.go getPodHealth: typed conversion and version check.
    #[test]
    fn errors() {
        let mut obj = pod(json!({}), "Always", json!({"phase": "Running"}));
        obj["spec"]["containers"][0]["env"] = json!([{"name": "PORT", "value": 8080}]);
        assert_eq!(
            error(obj),
            "failed to convert unstructured Pod to typed: cannot convert int64 to string"
        );
        let mut obj = pod(json!({}), "Always", json!({}));
        obj["metadata"]["annotations"] = json!({"a": true});
        assert_eq!(
            error(obj),
            "failed to convert unstructured Pod to typed: unrecognized type: string"
        );
        let mut obj = pod(json!({}), "Always", json!({}));
        obj["apiVersion"] = json!("v1beta1");
        assert_eq!(error(obj), "unsupported Pod GVK: /v1beta1, Kind=Pod");
    }
}
