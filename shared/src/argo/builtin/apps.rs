//! apps/v1 workloads: gitops-engine `pkg/health/health_deployment.go`,
//! `health_statefulset.go`, `health_daemonset.go`, `health_replicaset.go` (themselves borrowed
//! from kubectl's `rollout status`). Only `apps/v1` is accepted; `spec.replicas` is a pointer
//! that the conversion leaves nil when absent (no defaulting to 1), which skips the comparisons
//! that need it.

use super::golang::quote;
use super::{
    flag, get, int32, int32_opt, int64, items, status, text, to_typed, unsupported, Gvk, DEGRADED,
    HEALTHY, PROGRESSING, SUSPENDED,
};
use crate::argo::HealthStatus;
use serde_json::Value;

fn generations(obj: &Value) -> (i64, i64) {
    (
        int64(obj, &["metadata", "generation"]).unwrap_or(0),
        int64(obj, &["status", "observedGeneration"]).unwrap_or(0),
    )
}

/// The first condition of `status.conditions` with this type (`getAppsv1DeploymentCondition`,
/// `getAppsv1ReplicaSetCondition`).
fn condition<'a>(obj: &'a Value, kind: &str) -> Option<&'a Value> {
    items(obj, &["status", "conditions"])
        .iter()
        .find(|c| text(c, &["type"]) == kind)
}

/// `getDeploymentHealth` / `getAppsv1DeploymentHealth` (health_deployment.go).
pub(super) fn deployment(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("apps", "v1") {
        return Err(unsupported("Deployment", gvk));
    }
    to_typed(obj, "apps.Deployment", "Deployment")?;
    if flag(obj, &["spec", "paused"]) {
        return Ok(status(SUSPENDED, "Deployment is paused"));
    }
    let (generation, observed) = generations(obj);
    if generation > observed {
        return Ok(status(
            PROGRESSING,
            "Waiting for rollout to finish: observed deployment generation less than desired generation",
        ));
    }
    let replicas = int32_opt(obj, &["spec", "replicas"]);
    let st_replicas = int32(obj, &["status", "replicas"]);
    let updated = int32(obj, &["status", "updatedReplicas"]);
    let available = int32(obj, &["status", "availableReplicas"]);
    if condition(obj, "Progressing")
        .is_some_and(|c| text(c, &["reason"]) == "ProgressDeadlineExceeded")
    {
        let name = text(obj, &["metadata", "name"]);
        return Ok(status(
            DEGRADED,
            format!("Deployment {} exceeded its progress deadline", quote(name)),
        ));
    }
    if let Some(r) = replicas.filter(|r| updated < *r) {
        return Ok(status(
            PROGRESSING,
            format!("Waiting for rollout to finish: {updated} out of {r} new replicas have been updated..."),
        ));
    }
    if st_replicas > updated {
        return Ok(status(
            PROGRESSING,
            format!(
                "Waiting for rollout to finish: {} old replicas are pending termination...",
                st_replicas.wrapping_sub(updated)
            ),
        ));
    }
    if available < updated {
        return Ok(status(
            PROGRESSING,
            format!("Waiting for rollout to finish: {available} of {updated} updated replicas are available..."),
        ));
    }
    Ok(status(HEALTHY, ""))
}

/// `getStatefulSetHealth` / `getAppsv1StatefulSetHealth` (health_statefulset.go).
pub(super) fn statefulset(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("apps", "v1") {
        return Err(unsupported("StatefulSet", gvk));
    }
    to_typed(obj, "apps.StatefulSet", "StatefulSet")?;
    let (generation, observed) = generations(obj);
    if observed == 0 || generation > observed {
        return Ok(status(
            PROGRESSING,
            "Waiting for statefulset spec update to be observed...",
        ));
    }
    let replicas = int32_opt(obj, &["spec", "replicas"]);
    let ready = int32(obj, &["status", "readyReplicas"]);
    let updated = int32(obj, &["status", "updatedReplicas"]);
    if let Some(r) = replicas.filter(|r| ready < *r) {
        return Ok(status(
            PROGRESSING,
            format!("Waiting for {} pods to be ready...", r.wrapping_sub(ready)),
        ));
    }
    let strategy = text(obj, &["spec", "updateStrategy", "type"]);
    if strategy == "RollingUpdate"
        && get(obj, &["spec", "updateStrategy", "rollingUpdate"]).is_some()
    {
        let partition = int32_opt(
            obj,
            &["spec", "updateStrategy", "rollingUpdate", "partition"],
        );
        if let (Some(r), Some(p)) = (replicas, partition) {
            let want = r.wrapping_sub(p);
            if updated < want {
                return Ok(status(
                    PROGRESSING,
                    format!("Waiting for partitioned roll out to finish: {updated} out of {want} new pods have been updated..."),
                ));
            }
        }
        return Ok(status(
            HEALTHY,
            format!("partitioned roll out complete: {updated} new pods have been updated..."),
        ));
    }
    if strategy == "OnDelete" {
        return Ok(status(
            HEALTHY,
            format!("statefulset has {ready} ready pods"),
        ));
    }
    let update_revision = text(obj, &["status", "updateRevision"]);
    let current_revision = text(obj, &["status", "currentRevision"]);
    if update_revision != current_revision {
        return Ok(status(
            PROGRESSING,
            format!("waiting for statefulset rolling update to complete {updated} pods at revision {update_revision}..."),
        ));
    }
    let current = int32(obj, &["status", "currentReplicas"]);
    Ok(status(
        HEALTHY,
        format!(
            "statefulset rolling update complete {current} pods at revision {current_revision}..."
        ),
    ))
}

/// `getDaemonSetHealth` / `getAppsv1DaemonSetHealth` (health_daemonset.go).
pub(super) fn daemonset(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("apps", "v1") {
        return Err(unsupported("DaemonSet", gvk));
    }
    to_typed(obj, "apps.DaemonSet", "DaemonSet")?;
    let (generation, observed) = generations(obj);
    if generation > observed {
        return Ok(status(
            PROGRESSING,
            "Waiting for rollout to finish: observed daemon set generation less than desired generation",
        ));
    }
    let updated = int32(obj, &["status", "updatedNumberScheduled"]);
    let desired = int32(obj, &["status", "desiredNumberScheduled"]);
    let available = int32(obj, &["status", "numberAvailable"]);
    if text(obj, &["spec", "updateStrategy", "type"]) == "OnDelete" {
        return Ok(status(
            HEALTHY,
            format!("daemon set {updated} out of {desired} new pods have been updated"),
        ));
    }
    let name = quote(text(obj, &["metadata", "name"]));
    if updated < desired {
        return Ok(status(
            PROGRESSING,
            format!("Waiting for daemon set {name} rollout to finish: {updated} out of {desired} new pods have been updated..."),
        ));
    }
    if available < desired {
        return Ok(status(
            PROGRESSING,
            format!("Waiting for daemon set {name} rollout to finish: {available} of {desired} updated pods are available..."),
        ));
    }
    Ok(status(HEALTHY, ""))
}

/// `getReplicaSetHealth` / `getAppsv1ReplicaSetHealth` (health_replicaset.go).
pub(super) fn replicaset(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("apps", "v1") {
        return Err(unsupported("ReplicaSet", gvk));
    }
    to_typed(obj, "apps.ReplicaSet", "ReplicaSet")?;
    let (generation, observed) = generations(obj);
    if generation > observed {
        return Ok(status(
            PROGRESSING,
            "Waiting for rollout to finish: observed replica set generation less than desired generation",
        ));
    }
    if let Some(c) = condition(obj, "ReplicaFailure").filter(|c| text(c, &["status"]) == "True") {
        return Ok(status(DEGRADED, text(c, &["message"])));
    }
    let available = int32(obj, &["status", "availableReplicas"]);
    if let Some(r) = int32_opt(obj, &["spec", "replicas"]).filter(|r| available < *r) {
        return Ok(status(
            PROGRESSING,
            format!("Waiting for rollout to finish: {available} out of {r} new replicas are available..."),
        ));
    }
    Ok(status(HEALTHY, ""))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{error, health, hs};
    use super::*;
    use serde_json::json;

    fn deploy(spec: Value, status: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "guestbook-ui", "generation": 4}, "spec": spec, "status": status})
    }

    // health_test.go TestDeploymentHealth, utils/kube/testdata/nginx.yaml: a rolled-out
    // Deployment (1/1 updated, available) is Healthy; no message (health_deployment.go end).
    #[test]
    fn deployment_nginx_healthy() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "nginx-deployment", "generation": 1,
                "creationTimestamp": "2018-07-05T09:30:00Z"},
            "spec": {"replicas": 1, "progressDeadlineSeconds": 600,
                "strategy": {"type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}},
            "status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
                "readyReplicas": 1, "availableReplicas": 1,
                "conditions": [{"type": "Progressing", "status": "True",
                    "reason": "NewReplicaSetAvailable",
                    "lastUpdateTime": "2018-07-05T09:30:09Z"}]}});
        assert_eq!(health(obj), hs("Healthy", ""));
    }

    // health_test.go TestDeploymentHealth, deployment-progressing.yaml: replicas 1, status
    // replicas 2, updated 1 → the "old replicas are pending termination" branch.
    #[test]
    fn deployment_progressing() {
        let obj = deploy(
            json!({"replicas": 1}),
            json!({"observedGeneration": 4, "replicas": 2, "updatedReplicas": 1,
                "availableReplicas": 1, "readyReplicas": 1,
                "conditions": [{"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}]}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Progressing",
                "Waiting for rollout to finish: 1 old replicas are pending termination..."
            )
        );
    }

    // health_test.go TestDeploymentHealth, deployment-suspended.yaml: spec.paused.
    #[test]
    fn deployment_suspended() {
        let obj = deploy(
            json!({"replicas": 1, "paused": true}),
            json!({"observedGeneration": 4}),
        );
        assert_eq!(health(obj), hs("Suspended", "Deployment is paused"));
    }

    // health_test.go TestDeploymentHealth, deployment-degraded.yaml: Progressing condition with
    // reason ProgressDeadlineExceeded; message from health_deployment.go (%q of the name).
    #[test]
    fn deployment_degraded() {
        let obj = deploy(
            json!({"replicas": 1}),
            json!({"observedGeneration": 4, "replicas": 2, "updatedReplicas": 1,
                "conditions": [
                    {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                    {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Degraded",
                "Deployment \"guestbook-ui\" exceeded its progress deadline"
            )
        );
    }

    // health_deployment.go: generation > observedGeneration.
    #[test]
    fn deployment_generation_not_observed() {
        let obj = deploy(json!({"replicas": 1}), json!({"observedGeneration": 3}));
        assert_eq!(
            health(obj),
            hs("Progressing", "Waiting for rollout to finish: observed deployment generation less than desired generation")
        );
    }

    // health_deployment.go: updatedReplicas < *spec.replicas.
    #[test]
    fn deployment_updating() {
        let obj = deploy(
            json!({"replicas": 3}),
            json!({"observedGeneration": 4, "updatedReplicas": 1}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Progressing",
                "Waiting for rollout to finish: 1 out of 3 new replicas have been updated..."
            )
        );
    }

    // health_deployment.go: availableReplicas < updatedReplicas.
    #[test]
    fn deployment_waiting_available() {
        let obj = deploy(
            json!({"replicas": 2}),
            json!({"observedGeneration": 4, "replicas": 2, "updatedReplicas": 2, "availableReplicas": 1}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Progressing",
                "Waiting for rollout to finish: 1 of 2 updated replicas are available..."
            )
        );
    }

    // health_deployment.go: spec.replicas absent is a nil pointer (the converter applies no
    // defaulting), so the "new replicas have been updated" comparison is skipped; with empty
    // status and generation 0 <= observedGeneration 0 the result is Healthy.
    #[test]
    fn deployment_without_replicas_or_status() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}});
        assert_eq!(health(obj), hs("Healthy", ""));
    }

    // health_deployment.go getDeploymentHealth: only apps/v1; conversion errors are wrapped.
    #[test]
    fn deployment_errors() {
        let mut obj = deploy(json!({}), json!({}));
        obj["apiVersion"] = json!("apps/v1beta1");
        assert_eq!(
            error(obj),
            "unsupported Deployment GVK: apps/v1beta1, Kind=Deployment"
        );
        let obj = deploy(json!({"replicas": "2"}), json!({}));
        assert_eq!(
            error(obj),
            "failed to convert unstructured Deployment to typed: unrecognized type: int32"
        );
    }

    fn sts(spec: Value, status: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "redis-master", "generation": 1}, "spec": spec, "status": status})
    }

    fn sts_ondelete() -> Value {
        sts(
            json!({"replicas": 1, "updateStrategy": {"type": "OnDelete"}}),
            json!({"observedGeneration": 1, "replicas": 1, "readyReplicas": 1, "currentReplicas": 1,
                "currentRevision": "redis-master-7b8f75b98", "updateRevision": "redis-master-7b8f75b98"}),
        )
    }

    // health_test.go TestStatefulSetHealth (statefulset.yaml, an OnDelete StatefulSet): Healthy,
    // message from the OnDelete branch of health_statefulset.go.
    #[test]
    fn statefulset_healthy() {
        assert_eq!(
            health(sts_ondelete()),
            hs("Healthy", "statefulset has 1 ready pods")
        );
    }

    // health_test.go TestStatefulSetOnDeleteHealth (statefulset-ondelete.yaml, the same object).
    #[test]
    fn statefulset_ondelete_healthy() {
        assert_eq!(
            health(sts_ondelete()),
            hs("Healthy", "statefulset has 1 ready pods")
        );
    }

    // health_statefulset.go: observedGeneration 0, or behind generation.
    #[test]
    fn statefulset_not_observed() {
        let msg = "Waiting for statefulset spec update to be observed...";
        assert_eq!(health(sts(json!({}), json!({}))), hs("Progressing", msg));
        let mut obj = sts(json!({}), json!({"observedGeneration": 1}));
        obj["metadata"]["generation"] = json!(2);
        assert_eq!(health(obj), hs("Progressing", msg));
    }

    // health_statefulset.go: readyReplicas < *spec.replicas.
    #[test]
    fn statefulset_pods_not_ready() {
        let obj = sts(
            json!({"replicas": 3}),
            json!({"observedGeneration": 1, "readyReplicas": 1}),
        );
        assert_eq!(
            health(obj),
            hs("Progressing", "Waiting for 2 pods to be ready...")
        );
    }

    // health_statefulset.go: RollingUpdate with a partition not yet reached.
    #[test]
    fn statefulset_partition_in_progress() {
        let obj = sts(
            json!({"replicas": 3, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}}),
            json!({"observedGeneration": 1, "readyReplicas": 3, "updatedReplicas": 1}),
        );
        assert_eq!(
            health(obj),
            hs("Progressing", "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...")
        );
    }

    // health_statefulset.go: RollingUpdate with rollingUpdate set (partition reached, or no
    // partition at all) → Healthy "partitioned roll out complete".
    #[test]
    fn statefulset_partition_complete() {
        let obj = sts(
            json!({"replicas": 3, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}}),
            json!({"observedGeneration": 1, "readyReplicas": 3, "updatedReplicas": 2}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Healthy",
                "partitioned roll out complete: 2 new pods have been updated..."
            )
        );
        let obj = sts(
            json!({"replicas": 3, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {}}}),
            json!({"observedGeneration": 1, "readyReplicas": 3, "updatedReplicas": 0}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Healthy",
                "partitioned roll out complete: 0 new pods have been updated..."
            )
        );
    }

    // health_statefulset.go: no rollingUpdate block → revisions compared.
    #[test]
    fn statefulset_rolling_update() {
        let obj = sts(
            json!({"replicas": 2, "updateStrategy": {"type": "RollingUpdate"}}),
            json!({"observedGeneration": 1, "readyReplicas": 2, "updatedReplicas": 1, "currentReplicas": 1,
                "currentRevision": "web-1", "updateRevision": "web-2"}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Progressing",
                "waiting for statefulset rolling update to complete 1 pods at revision web-2..."
            )
        );
        let obj = sts(
            json!({"replicas": 2}),
            json!({"observedGeneration": 1, "readyReplicas": 2, "updatedReplicas": 2, "currentReplicas": 2,
                "currentRevision": "web-2", "updateRevision": "web-2"}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Healthy",
                "statefulset rolling update complete 2 pods at revision web-2..."
            )
        );
    }

    // health_statefulset.go getStatefulSetHealth: only apps/v1.
    #[test]
    fn statefulset_unsupported() {
        let mut obj = sts(json!({}), json!({}));
        obj["apiVersion"] = json!("apps/v1beta2");
        assert_eq!(
            error(obj),
            "unsupported StatefulSet GVK: apps/v1beta2, Kind=StatefulSet"
        );
    }

    fn ds(strategy: &str, status: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "fluentd-elasticsearch", "generation": 4},
            "spec": {"updateStrategy": {"type": strategy}}, "status": status})
    }

    // health_test.go TestDaemonSetOnDeleteHealth (daemonset-ondelete.yaml): OnDelete → Healthy,
    // message from health_daemonset.go (updatedNumberScheduled absent → 0).
    #[test]
    fn daemonset_ondelete_healthy() {
        let obj = ds(
            "OnDelete",
            json!({"observedGeneration": 4, "currentNumberScheduled": 1,
            "desiredNumberScheduled": 1, "numberAvailable": 1, "numberReady": 1}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Healthy",
                "daemon set 0 out of 1 new pods have been updated"
            )
        );
    }

    // health_daemonset.go: generation > observedGeneration.
    #[test]
    fn daemonset_generation_not_observed() {
        let obj = ds("RollingUpdate", json!({"observedGeneration": 3}));
        assert_eq!(
            health(obj),
            hs("Progressing", "Waiting for rollout to finish: observed daemon set generation less than desired generation")
        );
    }

    // health_daemonset.go: updatedNumberScheduled < desired, then numberAvailable < desired.
    #[test]
    fn daemonset_rolling() {
        let obj = ds(
            "RollingUpdate",
            json!({"observedGeneration": 4, "desiredNumberScheduled": 3,
            "updatedNumberScheduled": 1}),
        );
        assert_eq!(
            health(obj),
            hs("Progressing", "Waiting for daemon set \"fluentd-elasticsearch\" rollout to finish: 1 out of 3 new pods have been updated...")
        );
        let obj = ds(
            "RollingUpdate",
            json!({"observedGeneration": 4, "desiredNumberScheduled": 3,
            "updatedNumberScheduled": 3, "numberAvailable": 2}),
        );
        assert_eq!(
            health(obj),
            hs("Progressing", "Waiting for daemon set \"fluentd-elasticsearch\" rollout to finish: 2 of 3 updated pods are available...")
        );
        let obj = ds(
            "RollingUpdate",
            json!({"observedGeneration": 4, "desiredNumberScheduled": 3,
            "updatedNumberScheduled": 3, "numberAvailable": 3}),
        );
        assert_eq!(health(obj), hs("Healthy", ""));
    }

    fn rs(replicas: Value, status: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-7d9f", "generation": 2}, "spec": {"replicas": replicas},
            "status": status})
    }

    // health_replicaset.go: ReplicaFailure=True → Degraded with the condition message; a False
    // ReplicaFailure is ignored.
    #[test]
    fn replicaset_failure() {
        let obj = rs(
            json!(2),
            json!({"observedGeneration": 2, "conditions": [
            {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
             "message": "pods \"web-7d9f-\" is forbidden: exceeded quota"}]}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Degraded",
                "pods \"web-7d9f-\" is forbidden: exceeded quota"
            )
        );
        let obj = rs(
            json!(2),
            json!({"observedGeneration": 2, "availableReplicas": 2, "conditions": [
            {"type": "ReplicaFailure", "status": "False", "message": "x"}]}),
        );
        assert_eq!(health(obj), hs("Healthy", ""));
    }

    // health_replicaset.go: availableReplicas < *spec.replicas; stale generation.
    #[test]
    fn replicaset_progressing() {
        let obj = rs(
            json!(3),
            json!({"observedGeneration": 2, "availableReplicas": 1}),
        );
        assert_eq!(
            health(obj),
            hs(
                "Progressing",
                "Waiting for rollout to finish: 1 out of 3 new replicas are available..."
            )
        );
        let obj = rs(json!(3), json!({"observedGeneration": 1}));
        assert_eq!(
            health(obj),
            hs("Progressing", "Waiting for rollout to finish: observed replica set generation less than desired generation")
        );
        // spec.replicas null: nil pointer, comparison skipped.
        assert_eq!(
            health(rs(json!(null), json!({"observedGeneration": 2}))),
            hs("Healthy", "")
        );
    }
}
