//! The built-in rules of kstatus for the core kinds (fluxcd/cli-utils
//! `pkg/kstatus/status/core.go` `GetLegacyConditionsFn`): Service, Pod, Secret, ConfigMap,
//! CronJob, PersistentVolumeClaim, StatefulSet, DaemonSet, Deployment, ReplicaSet,
//! PodDisruptionBudget, Job (stock kstatus's rule, not Flux's reader of `job.rs`) and
//! CustomResourceDefinition.

use serde_json::{Map, Value};

use super::generic::object_conditions;
use super::time::{creation_timestamp_nanos, NANOS_PER_SECOND};
use super::unstructured::{
    get_int_field, get_nested_string, get_string_field, go_type, nested_int64, nested_slice,
    object_kind,
};
use super::{current, failed, in_progress, true_condition};
use crate::flux::{KResult, KStatus};

/// `ScheduleWindow` of `core.go`: how long, in seconds, a Pod may stay unscheduled
/// (`PodScheduled=False`, reason `Unschedulable`) before kstatus reports it as Failed.
pub const SCHEDULE_WINDOW_SECONDS: i64 = 15;

// ---------------------------------------------------------------------------------------------
// core.go
// ---------------------------------------------------------------------------------------------

pub(super) type ConditionsFn = fn(&Value, i64) -> Result<KResult, String>;

/// `GetLegacyConditionsFn`: the key is `<group>/<Kind>`, or the bare Kind for the core group, with
/// the group taken from `apiVersion` as `schema.ParseGroupVersion` does (the version is ignored; a
/// value with two or more `/` gives an empty group and kind, so no rule).
pub(super) fn legacy_conditions_fn(obj: &Value) -> Option<ConditionsFn> {
    let api_version = get_nested_string(obj, &["apiVersion"]);
    let group = match api_version.matches('/').count() {
        _ if api_version.is_empty() || api_version == "/" => "",
        0 => "",
        1 => api_version.split('/').next().unwrap_or(""),
        _ => return None,
    };
    let kind = object_kind(obj);
    let key = if group.is_empty() {
        kind
    } else {
        format!("{group}/{kind}")
    };
    let rule: ConditionsFn = match key.as_str() {
        "Service" => |o, _| Ok(service_conditions(o)),
        "Pod" => pod_conditions,
        "Secret" | "ConfigMap" | "batch/CronJob" => |_, _| Ok(current("Resource is always ready")),
        "PersistentVolumeClaim" => |o, _| Ok(pvc_conditions(o)),
        "apps/StatefulSet" => |o, _| Ok(sts_conditions(o)),
        "apps/DaemonSet" | "extensions/DaemonSet" => |o, _| daemonset_conditions(o),
        "apps/Deployment" | "extensions/Deployment" => |o, _| deployment_conditions(o),
        "apps/ReplicaSet" | "extensions/ReplicaSet" => |o, _| replicaset_conditions(o),
        "policy/PodDisruptionBudget" => |_, _| Ok(current("AllowedDisruptions has been computed.")),
        "batch/Job" => |o, _| kstatus_job_conditions(o),
        "apiextensions.k8s.io/CustomResourceDefinition" => |o, _| crd_conditions(o),
        _ => return None,
    };
    Some(rule)
}

/// `stsConditions`.
fn sts_conditions(obj: &Value) -> KResult {
    if get_string_field(obj, ".spec.updateStrategy.type", "") == "OnDelete" {
        return current("StatefulSet is using the ondelete update strategy");
    }
    let spec = get_int_field(obj, ".spec.replicas", 1);
    let ready = get_int_field(obj, ".status.readyReplicas", 0);
    let current_replicas = get_int_field(obj, ".status.currentReplicas", 0);
    let updated = get_int_field(obj, ".status.updatedReplicas", 0);
    let replicas = get_int_field(obj, ".status.replicas", 0);
    let partition = get_int_field(obj, ".spec.updateStrategy.rollingUpdate.partition", -1);

    if spec > replicas {
        return in_progress("LessReplicas", &format!("Replicas: {replicas}/{spec}"));
    }
    if spec > ready {
        return in_progress("LessReady", &format!("Ready: {ready}/{spec}"));
    }
    if replicas > spec {
        let extra = replicas.wrapping_sub(spec);
        return in_progress("ExtraPods", &format!("Pending termination: {extra}"));
    }
    if partition != -1 {
        let wanted = spec.wrapping_sub(partition);
        if updated < wanted {
            return in_progress("PartitionRollout", &format!("updated: {updated}/{wanted}"));
        }
        return current(&format!("Partition rollout complete. updated: {updated}"));
    }
    if spec > current_replicas {
        return in_progress(
            "LessCurrent",
            &format!("current: {current_replicas}/{spec}"),
        );
    }
    let current_revision = get_string_field(obj, ".status.currentRevision", "");
    let update_revision = get_string_field(obj, ".status.updateRevision", "");
    if current_revision != update_revision {
        return in_progress(
            "RevisionMismatch",
            "Waiting for updated revision to match current",
        );
    }
    current(&format!(
        "All replicas scheduled as expected. Replicas: {replicas}"
    ))
}

/// `deploymentConditions`.
fn deployment_conditions(obj: &Value) -> Result<KResult, String> {
    const MAX_INT32: i64 = i32::MAX as i64;
    let mut progressing =
        get_int_field(obj, ".spec.progressDeadlineSeconds", MAX_INT32) == MAX_INT32;
    let mut available = false;

    for c in object_conditions(obj)? {
        match c.kind.as_str() {
            "Progressing" => {
                if c.reason == "ProgressDeadlineExceeded" {
                    return Ok(KResult {
                        status: KStatus::Failed,
                        message: "Progress deadline exceeded".to_string(),
                        conditions: vec![true_condition("Stalled", &c.reason, &c.message)],
                    });
                }
                if c.status == "True" && c.reason == "NewReplicaSetAvailable" {
                    progressing = true;
                }
            }
            "Available" if c.status == "True" => available = true,
            _ => {}
        }
    }

    let spec = get_int_field(obj, ".spec.replicas", 1);
    let replicas = get_int_field(obj, ".status.replicas", 0);
    let updated = get_int_field(obj, ".status.updatedReplicas", 0);
    let ready = get_int_field(obj, ".status.readyReplicas", 0);
    let available_replicas = get_int_field(obj, ".status.availableReplicas", 0);

    if spec > replicas {
        return Ok(in_progress(
            "LessReplicas",
            &format!("Replicas: {replicas}/{spec}"),
        ));
    }
    if spec > updated {
        return Ok(in_progress(
            "LessUpdated",
            &format!("Updated: {updated}/{spec}"),
        ));
    }
    if replicas > spec {
        let extra = replicas.wrapping_sub(spec);
        return Ok(in_progress(
            "ExtraPods",
            &format!("Pending termination: {extra}"),
        ));
    }
    if updated > available_replicas {
        return Ok(in_progress(
            "LessAvailable",
            &format!("Available: {available_replicas}/{updated}"),
        ));
    }
    if spec > ready {
        return Ok(in_progress("LessReady", &format!("Ready: {ready}/{spec}")));
    }
    if !progressing {
        return Ok(in_progress(
            "ReplicaSetNotAvailable",
            "ReplicaSet not Available",
        ));
    }
    if !available {
        return Ok(in_progress(
            "DeploymentNotAvailable",
            "Deployment not Available",
        ));
    }
    Ok(current(&format!(
        "Deployment is available. Replicas: {replicas}"
    )))
}

/// `replicasetConditions`.
fn replicaset_conditions(obj: &Value) -> Result<KResult, String> {
    for c in object_conditions(obj)? {
        if c.kind == "ReplicaFailure" && c.status == "True" {
            return Ok(in_progress(
                "ReplicaFailure",
                "Replica Failure condition. Check Pods",
            ));
        }
    }
    let spec = get_int_field(obj, ".spec.replicas", 1);
    let replicas = get_int_field(obj, ".status.replicas", 0);
    let ready = get_int_field(obj, ".status.readyReplicas", 0);
    let available = get_int_field(obj, ".status.availableReplicas", 0);
    let labelled = get_int_field(obj, ".status.fullyLabeledReplicas", 0);

    if spec > labelled {
        return Ok(in_progress(
            "LessLabelled",
            &format!("Labelled: {labelled}/{spec}"),
        ));
    }
    if spec > available {
        return Ok(in_progress(
            "LessAvailable",
            &format!("Available: {available}/{spec}"),
        ));
    }
    if spec > ready {
        return Ok(in_progress("LessReady", &format!("Ready: {ready}/{spec}")));
    }
    if replicas > spec {
        let extra = replicas.wrapping_sub(spec);
        return Ok(in_progress(
            "ExtraPods",
            &format!("Pending termination: {extra}"),
        ));
    }
    Ok(current(&format!(
        "ReplicaSet is available. Replicas: {replicas}"
    )))
}

/// `daemonsetConditions`, starting with `checkGenerationSet`.
fn daemonset_conditions(obj: &Value) -> Result<KResult, String> {
    let generation = nested_int64(obj, &["metadata", "generation"])
        .map_err(|e| format!("looking up metadata.generation from resource: {e}"))?;
    if generation.is_none() {
        let message = format!("{} metadata.generation not found", object_kind(obj));
        return Ok(in_progress("NoGeneration", &message));
    }
    let observed = nested_int64(obj, &["status", "observedGeneration"])
        .map_err(|e| format!("looking up status.observedGeneration from resource: {e}"))?;
    if observed.is_none() {
        let message = format!("{} status.observedGeneration not found", object_kind(obj));
        return Ok(in_progress("NoObservedGeneration", &message));
    }

    let desired = get_int_field(obj, ".status.desiredNumberScheduled", -1);
    let current_scheduled = get_int_field(obj, ".status.currentNumberScheduled", 0);
    let updated = get_int_field(obj, ".status.updatedNumberScheduled", 0);
    let available = get_int_field(obj, ".status.numberAvailable", 0);
    let ready = get_int_field(obj, ".status.numberReady", 0);

    if desired == -1 {
        return Ok(in_progress(
            "NoDesiredNumber",
            "Missing .status.desiredNumberScheduled",
        ));
    }
    if desired > current_scheduled {
        return Ok(in_progress(
            "LessCurrent",
            &format!("Current: {current_scheduled}/{desired}"),
        ));
    }
    if desired > updated {
        return Ok(in_progress(
            "LessUpdated",
            &format!("Updated: {updated}/{desired}"),
        ));
    }
    if desired > available {
        return Ok(in_progress(
            "LessAvailable",
            &format!("Available: {available}/{desired}"),
        ));
    }
    if desired > ready {
        return Ok(in_progress(
            "LessReady",
            &format!("Ready: {ready}/{desired}"),
        ));
    }
    Ok(current(&format!(
        "All replicas scheduled as expected. Replicas: {desired}"
    )))
}

/// `pvcConditions`.
fn pvc_conditions(obj: &Value) -> KResult {
    let phase = get_string_field(obj, ".status.phase", "unknown");
    if phase != "Bound" {
        return in_progress("NotBound", &format!("PVC is not Bound. phase: {phase}"));
    }
    current("PVC is Bound")
}

/// `podConditions`, with `time.Now()` given as `now_unix_seconds`.
fn pod_conditions(obj: &Value, now_unix_seconds: i64) -> Result<KResult, String> {
    let conditions = object_conditions(obj)?;
    let phase = get_string_field(obj, ".status.phase", "");
    match phase.as_str() {
        "Succeeded" => Ok(current("Pod has completed successfully")),
        "Failed" => Ok(current("Pod has completed, but not successfully")),
        "Running" => {
            if conditions
                .iter()
                .any(|c| c.kind == "Ready" && c.status == "True")
            {
                return Ok(current("Pod is Ready"));
            }
            let names = crash_looping_containers(obj)?;
            if !names.is_empty() {
                return Ok(failed(
                    "ContainerCrashLooping",
                    &format!("Containers in CrashLoop state: {}", names.join(",")),
                ));
            }
            Ok(in_progress(
                "PodRunningNotReady",
                "Pod is running but is not Ready",
            ))
        }
        "Pending" => {
            let unschedulable = conditions
                .iter()
                .find(|c| c.kind == "PodScheduled" && c.status == "False")
                .is_some_and(|c| c.reason == "Unschedulable");
            if unschedulable {
                let created = creation_timestamp_nanos(obj);
                let window_start = i128::from(now_unix_seconds) * NANOS_PER_SECOND
                    - i128::from(SCHEDULE_WINDOW_SECONDS) * NANOS_PER_SECOND;
                if window_start < created {
                    return Ok(in_progress("PodNotScheduled", "Pod has not been scheduled"));
                }
                return Ok(failed("PodUnschedulable", "Pod could not be scheduled"));
            }
            Ok(in_progress("PodPending", "Pod is in the Pending phase"))
        }
        "" => Ok(in_progress("PodNotObserved", "Pod phase not available")),
        other => Err(format!("unknown phase {other}")),
    }
}

/// `getCrashLoopingContainers`: names of containers waiting with reason `CrashLoopBackOff`. Go's
/// unchecked type assertions panic; that becomes an error here.
fn crash_looping_containers(obj: &Value) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let Some(statuses) = nested_slice(obj, &["status", "containerStatuses"])? else {
        return Ok(names);
    };
    for item in statuses {
        let cs = assert_map(item)?;
        let Some(name) = cs.get("name") else {
            continue;
        };
        let name = assert_string(name)?;
        let Some(state) = cs.get("state") else {
            continue;
        };
        let Some(waiting) = assert_map(state)?.get("waiting") else {
            continue;
        };
        let Some(reason) = assert_map(waiting)?.get("reason") else {
            continue;
        };
        if assert_string(reason)? == "CrashLoopBackOff" {
            names.push(name.to_string());
        }
    }
    Ok(names)
}

fn assert_map(v: &Value) -> Result<&Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| panic_conversion(v, "map[string]interface {}"))
}

fn assert_string(v: &Value) -> Result<&str, String> {
    v.as_str().ok_or_else(|| panic_conversion(v, "string"))
}

fn panic_conversion(v: &Value, wanted: &str) -> String {
    let found = if v.is_null() { "nil" } else { go_type(v) };
    format!("panic: interface conversion: interface {{}} is {found}, not {wanted}")
}

/// `jobConditions` of kstatus (the fluxcd fork, without upstream's `Suspended` rule).
fn kstatus_job_conditions(obj: &Value) -> Result<KResult, String> {
    let parallelism = get_int_field(obj, ".spec.parallelism", 1);
    let completions = get_int_field(obj, ".spec.completions", parallelism);
    let succeeded = get_int_field(obj, ".status.succeeded", 0);
    let active = get_int_field(obj, ".status.active", 0);
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
                return Ok(failed(
                    "JobFailed",
                    &format!("Job Failed. failed: {failed_pods}/{completions}"),
                ));
            }
            _ => {}
        }
    }
    if start_time.is_empty() {
        return Ok(in_progress("JobNotStarted", "Job not started"));
    }
    Ok(current(&format!(
        "Job in progress. success:{succeeded}, active: {active}, failed: {failed_pods}"
    )))
}

/// `serviceConditions`.
fn service_conditions(obj: &Value) -> KResult {
    let spec_type = get_string_field(obj, ".spec.type", "ClusterIP");
    let cluster_ip = get_string_field(obj, ".spec.clusterIP", "");
    if spec_type == "LoadBalancer" && cluster_ip.is_empty() {
        return in_progress(
            "NoIPAssigned",
            "ClusterIP not set. Service type: LoadBalancer",
        );
    }
    current("Service is ready")
}

/// `crdConditions`.
fn crd_conditions(obj: &Value) -> Result<KResult, String> {
    for c in object_conditions(obj)? {
        if c.kind == "NamesAccepted" && c.status == "False" {
            return Ok(failed(&c.reason, &c.message));
        }
        if c.kind == "Established" {
            if c.status == "False" && c.reason != "Installing" {
                return Ok(failed(&c.reason, &c.message));
            }
            if c.status == "True" {
                return Ok(current("CRD is established"));
            }
        }
    }
    Ok(in_progress("Installing", "Install in progress"))
}

#[cfg(test)]
mod tests {
    use super::super::tests::reasons;
    use super::super::time::format_rfc3339_utc;
    use super::super::{compute, compute_at};
    use super::*;
    use serde_json::json;

    #[test]
    fn kstatus_deployment_deadline_and_rollout() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"replicas": 3, "progressDeadlineSeconds": 600},
            "status": {"replicas": 3, "conditions": [
                {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "too slow"}]}});
        let res = compute(&obj).unwrap();
        assert_eq!(res.status, KStatus::Failed);
        assert_eq!(res.message, "Progress deadline exceeded");
        assert_eq!(
            reasons(&res),
            vec![(
                "Stalled".into(),
                "True".into(),
                "ProgressDeadlineExceeded".into()
            )]
        );
        assert_eq!(res.conditions[0].message, "too slow");
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 2},
            "status": {"replicas": 3, "updatedReplicas": 2}});
        assert_eq!(compute(&obj).unwrap().message, "Pending termination: 1");
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 2},
            "status": {"replicas": 2, "updatedReplicas": 2, "availableReplicas": 1}});
        assert_eq!(compute(&obj).unwrap().message, "Available: 1/2");
    }

    #[test]
    fn kstatus_statefulset_partition_and_revision() {
        let sts = |extra: Value| {
            let mut o = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
                "spec": {"replicas": 3},
                "status": {"replicas": 3, "readyReplicas": 3, "currentReplicas": 3}});
            merge(&mut o, extra);
            o
        };
        let res = compute(&sts(
            json!({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 1}}},
            "status": {"updatedReplicas": 1}}),
        ))
        .unwrap();
        assert_eq!(res.message, "updated: 1/2");
        assert_eq!(reasons(&res)[0].2, "PartitionRollout");
        let res = compute(&sts(
            json!({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 1}}},
            "status": {"updatedReplicas": 2}}),
        ))
        .unwrap();
        assert_eq!(res.message, "Partition rollout complete. updated: 2");
        let res = compute(&sts(
            json!({"status": {"currentRevision": "a", "updateRevision": "b"}}),
        ))
        .unwrap();
        assert_eq!(reasons(&res)[0].2, "RevisionMismatch");
        let res = compute(&sts(
            json!({"spec": {"updateStrategy": {"type": "OnDelete"}, "replicas": 9}}),
        ))
        .unwrap();
        assert_eq!(
            res.message,
            "StatefulSet is using the ondelete update strategy"
        );
    }

    fn merge(base: &mut Value, extra: Value) {
        match (base, extra) {
            (Value::Object(b), Value::Object(e)) => {
                for (k, v) in e {
                    merge(b.entry(k).or_insert(Value::Null), v);
                }
            }
            (slot, v) => *slot = v,
        }
    }

    #[test]
    fn kstatus_daemonset_requires_generation() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "status": {"observedGeneration": 1}});
        let res = compute(&obj).unwrap();
        assert_eq!(res.message, "DaemonSet metadata.generation not found");
        assert_eq!(reasons(&res)[0].2, "NoGeneration");
        let obj = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"generation": 1},
            "status": {"observedGeneration": 1, "desiredNumberScheduled": 2, "currentNumberScheduled": 2,
                "updatedNumberScheduled": 1}});
        assert_eq!(compute(&obj).unwrap().message, "Updated: 1/2");
    }

    #[test]
    fn kstatus_pod_rules_and_window() {
        let pending = |created: &str| {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"creationTimestamp": created},
                "status": {"phase": "Pending", "conditions": [
                    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}})
        };
        let t0 = 1_714_564_800; // 2024-05-01T12:00:00Z
        let obj = pending("2024-05-01T12:00:00Z");
        assert_eq!(format_rfc3339_utc(t0), "2024-05-01T12:00:00Z");
        assert_eq!(
            compute_at(&obj, t0 + 14).unwrap().status,
            KStatus::InProgress
        );
        // Exactly 15 s later the window start is no longer before the creation time.
        assert_eq!(compute_at(&obj, t0 + 15).unwrap().status, KStatus::Failed);
        assert_eq!(compute(&obj).unwrap().message, "Pod could not be scheduled");
        // Fractions and offsets are understood.
        let obj = pending("2024-05-01T14:00:00.5+02:00");
        assert_eq!(
            compute_at(&obj, t0 + 15).unwrap().status,
            KStatus::InProgress
        );
        // An unparsable time is the zero time: Failed at once.
        let obj = pending("2024-05-01 12:00:00");
        assert_eq!(compute_at(&obj, t0).unwrap().status, KStatus::Failed);
        // Another PodScheduled=False reason is plain Pending.
        let obj = json!({"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Pending"}});
        assert_eq!(
            compute(&obj).unwrap().message,
            "Pod is in the Pending phase"
        );
        let obj = json!({"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Exploded"}});
        assert_eq!(compute(&obj).unwrap_err(), "unknown phase Exploded");
        let obj = json!({"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Running",
            "containerStatuses": ["oops"]}});
        assert_eq!(
            compute(&obj).unwrap_err(),
            "panic: interface conversion: interface {} is string, not map[string]interface {}"
        );
        let obj = json!({"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Running",
            "containerStatuses": [
                {"name": "a", "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
                {"name": "b", "state": {"running": {}}},
                {"name": "c", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        assert_eq!(
            compute(&obj).unwrap().message,
            "Containers in CrashLoop state: a,c"
        );
    }
}
