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

use serde_json::{Map, Value};

use super::{KCondition, KResult, KStatus};

/// `ScheduleWindow` of `core.go`: how long, in seconds, a Pod may stay unscheduled
/// (`PodScheduled=False`, reason `Unschedulable`) before kstatus reports it as Failed.
pub const SCHEDULE_WINDOW_SECONDS: i64 = 15;

const NANOS_PER_SECOND: i128 = 1_000_000_000;

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

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

/// kstatus `GetIntField` (`util.go`): the value at a dotted path (a leading `.` is allowed) if it
/// is an integer (`int64`), otherwise `default` — also for a float, a string, a missing field or a
/// path that runs through a non-mapping.
pub fn get_int_field(obj: &Value, field_path: &str, default: i64) -> i64 {
    match nested_field(obj, &split_field_path(field_path)) {
        Ok(Some(Value::Number(n))) => n.as_i64().unwrap_or(default),
        _ => default,
    }
}

/// kstatus `GetStringField` (`util.go`): the value at a dotted path (a leading `.` is allowed) if
/// it is a string, otherwise `default`.
pub fn get_string_field(obj: &Value, field_path: &str, default: &str) -> String {
    match nested_field(obj, &split_field_path(field_path)) {
        Ok(Some(Value::String(s))) => s.clone(),
        _ => default.to_string(),
    }
}

fn require_mapping(obj: &Value) -> Result<(), String> {
    if obj.is_object() {
        Ok(())
    } else {
        Err(format!(
            "expected a Kubernetes object (a mapping), found {}",
            go_type(obj)
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Results (util.go newInProgressStatus, newFailedStatus)
// ---------------------------------------------------------------------------------------------

fn true_condition(kind: &str, reason: &str, message: &str) -> KCondition {
    KCondition {
        kind: kind.to_string(),
        status: "True".to_string(),
        reason: reason.to_string(),
        message: message.to_string(),
    }
}

fn in_progress(reason: &str, message: &str) -> KResult {
    KResult {
        status: KStatus::InProgress,
        message: message.to_string(),
        conditions: vec![true_condition("Reconciling", reason, message)],
    }
}

fn failed(reason: &str, message: &str) -> KResult {
    KResult {
        status: KStatus::Failed,
        message: message.to_string(),
        conditions: vec![true_condition("Stalled", reason, message)],
    }
}

fn current(message: &str) -> KResult {
    KResult {
        status: KStatus::Current,
        message: message.to_string(),
        conditions: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// generic.go and status.go
// ---------------------------------------------------------------------------------------------

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

fn check_ready_condition(obj: &Value) -> Result<Option<KResult>, String> {
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
// core.go
// ---------------------------------------------------------------------------------------------

type ConditionsFn = fn(&Value, i64) -> Result<KResult, String>;

/// `GetLegacyConditionsFn`: the key is `<group>/<Kind>`, or the bare Kind for the core group, with
/// the group taken from `apiVersion` as `schema.ParseGroupVersion` does (the version is ignored; a
/// value with two or more `/` gives an empty group and kind, so no rule).
fn legacy_conditions_fn(obj: &Value) -> Option<ConditionsFn> {
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

// ---------------------------------------------------------------------------------------------
// util.go GetObjectWithConditions: status.conditions through DefaultUnstructuredConverter
// ---------------------------------------------------------------------------------------------

/// One element of `status.conditions` as kstatus decodes it (`util.go` `BasicCondition`).
#[derive(Debug, Default)]
struct BasicCondition {
    kind: String,
    status: String,
    reason: String,
    message: String,
}

/// `GetObjectWithConditions`: decodes `status.conditions` as apimachinery's
/// `runtime.DefaultUnstructuredConverter.FromUnstructured` does into
/// `{status: {conditions: [{type, status, reason, message}]}}`, with its error texts. A null
/// anywhere gives the zero value; unknown keys are ignored.
fn object_conditions(obj: &Value) -> Result<Vec<BasicCondition>, String> {
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

// ---------------------------------------------------------------------------------------------
// apimachinery unstructured helpers (NestedFieldNoCopy and friends)
// ---------------------------------------------------------------------------------------------

fn split_field_path(path: &str) -> Vec<&str> {
    let mut fields: Vec<&str> = path.split('.').collect();
    if fields.first() == Some(&"") {
        fields.remove(0);
    }
    fields
}

fn json_path(fields: &[&str]) -> String {
    format!(".{}", fields.join("."))
}

/// `NestedFieldNoCopy`: `Ok(None)` when missing (or a null on the way), `Ok(Some(v))` when found
/// (`v` may be null), an accessor error when the path runs through a non-mapping.
fn nested_field<'a>(obj: &'a Value, fields: &[&str]) -> Result<Option<&'a Value>, String> {
    let mut val = obj;
    for (i, field) in fields.iter().enumerate() {
        match val {
            Value::Null => return Ok(None),
            Value::Object(m) => match m.get(*field) {
                Some(v) => val = v,
                None => return Ok(None),
            },
            other => {
                return Err(format!(
                    "{} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                    json_path(&fields[..=i]),
                    go_value(other),
                    go_type(other)
                ))
            }
        }
    }
    Ok(Some(val))
}

fn accessor_error(fields: &[&str], v: &Value, expected: &str) -> String {
    format!(
        "{} accessor error: {} is of the type {}, expected {expected}",
        json_path(fields),
        go_value(v),
        go_type(v)
    )
}

/// `NestedString`.
fn nested_string(obj: &Value, fields: &[&str]) -> Result<Option<String>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(accessor_error(fields, other, "string")),
    }
}

/// `NestedInt64`: only an int64 (a whole number within i64) is accepted.
fn nested_int64(obj: &Value, fields: &[&str]) -> Result<Option<i64>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(v @ Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(Some(i)),
            None => Err(accessor_error(fields, v, "int64")),
        },
        Some(other) => Err(accessor_error(fields, other, "int64")),
    }
}

/// `NestedBool`.
fn nested_bool(obj: &Value, fields: &[&str]) -> Result<Option<bool>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(accessor_error(fields, other, "bool")),
    }
}

/// `NestedSlice` (without the copy).
fn nested_slice<'a>(obj: &'a Value, fields: &[&str]) -> Result<Option<&'a Vec<Value>>, String> {
    match nested_field(obj, fields)? {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(other) => Err(accessor_error(fields, other, "[]interface{}")),
    }
}

/// `getNestedString`: the string, or "" when missing, not a string, or unreachable.
fn get_nested_string(obj: &Value, fields: &[&str]) -> String {
    nested_string(obj, fields)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// `Unstructured.GetKind`.
fn object_kind(obj: &Value) -> String {
    get_nested_string(obj, &["kind"])
}

/// `SetNestedField`: creates missing (or null) mappings on the way.
fn set_nested_field(obj: &mut Value, value: Value, fields: &[&str]) -> Result<(), String> {
    let Some((last, path)) = fields.split_last() else {
        return Ok(());
    };
    let mut m = obj
        .as_object_mut()
        .ok_or_else(|| "value cannot be set because the object is not a mapping".to_string())?;
    for (i, field) in path.iter().enumerate() {
        let slot = m
            .entry(field.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if slot.is_null() {
            *slot = Value::Object(Map::new());
        }
        m = slot.as_object_mut().ok_or_else(|| {
            format!(
                "value cannot be set because {} is not a map[string]interface{{}}",
                json_path(&fields[..=i])
            )
        })?;
    }
    m.insert(last.to_string(), value);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Go formatting of values in error messages (%v and %T)
// ---------------------------------------------------------------------------------------------

/// Go's `%T` of a decoded JSON value.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.as_i64().is_some() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `reflect.Kind` name of a decoded JSON value (not called for null).
fn go_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "invalid",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.as_i64().is_some() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

/// Go's `%v` of a decoded JSON value: strings bare, maps as `map[k:v ...]` with sorted keys,
/// lists as `[a b]`, null as `<nil>`, floats as `%g` with the shortest digits.
fn go_value(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => go_float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let items: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", go_value(&m[k])))
                .collect();
            format!("map[{}]", items.join(" "))
        }
    }
}

/// Go's `%v` of a float64: `%g` with the shortest round-trip digits, in exponent form
/// (`1.5e+07`, at least two exponent digits) when the decimal exponent is below -4 or at least 6
/// (strconv fixes the precision at 6 for this choice when formatting the shortest digits).
fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as Go's shortest formatting does.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if digits.bytes().all(|d| d == b'0') {
        out.push('0');
        return out;
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
        return out;
    }
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat(point.unsigned_abs() as usize));
        out.push_str(&digits);
    } else if point as usize >= digits.len() {
        out.push_str(&digits);
        out.push_str(&"0".repeat(point as usize - digits.len()));
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Time: metav1.Time.UnmarshalQueryParameter (time.Parse with RFC3339) and RFC 3339 formatting
// ---------------------------------------------------------------------------------------------

/// `Unstructured.GetCreationTimestamp` as nanoseconds since the Unix epoch: a missing, empty,
/// `null` or unparsable value is Go's zero time (0001-01-01T00:00:00Z).
fn creation_timestamp_nanos(obj: &Value) -> i128 {
    let text = get_nested_string(obj, &["metadata", "creationTimestamp"]);
    let zero = i128::from(days_from_civil(1, 1, 1)) * 86_400 * NANOS_PER_SECOND;
    if text.is_empty() || text == "null" {
        return zero;
    }
    parse_go_rfc3339(&text).unwrap_or(zero)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

use crate::argo::osdate::{civil_from_days, days_from_civil};

/// `time.Now().UTC().Format(time.RFC3339)` for a given Unix time.
fn format_rfc3339_utc(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Go's `time.Parse(time.RFC3339, s)` as an instant in nanoseconds since the Unix epoch, `None`
/// where Go returns an error. Go's general parser is used for the layout
/// `2006-01-02T15:04:05Z07:00`: a 4-digit year, 2-digit month/day/minute/second, a 1- or 2-digit
/// hour, optional fractional seconds after `.` or `,` (digits past the ninth ignored), then `Z` or
/// `±hh:mm` (offset hours up to 24, minutes up to 60), and nothing after.
fn parse_go_rfc3339(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let val = |i: usize| i64::from(b[i] - b'0');
    // getnum: one or two digits; `fixed` requires two.
    let getnum = |i: usize, fixed: bool| -> Option<(i64, usize)> {
        if !digit(i) {
            return None;
        }
        if !digit(i + 1) {
            return if fixed { None } else { Some((val(i), i + 1)) };
        }
        Some((val(i) * 10 + val(i + 1), i + 2))
    };
    let literal = |i: usize, c: u8| -> Option<usize> { (b.get(i) == Some(&c)).then_some(i + 1) };

    if b.len() < 4 || !(0..4).all(digit) {
        return None;
    }
    let year = (0..4).fold(0i64, |acc, i| acc * 10 + val(i));
    let i = literal(4, b'-')?;
    let (month, i) = getnum(i, true)?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let i = literal(i, b'-')?;
    let (day, i) = getnum(i, true)?;
    let i = literal(i, b'T')?;
    let (hour, i) = getnum(i, false)?;
    if hour >= 24 {
        return None;
    }
    let i = literal(i, b':')?;
    let (minute, i) = getnum(i, true)?;
    if minute >= 60 {
        return None;
    }
    let i = literal(i, b':')?;
    let (second, mut i) = getnum(i, true)?;
    if second >= 60 {
        return None;
    }
    let mut nanos: i64 = 0;
    if matches!(b.get(i), Some(b'.') | Some(b',')) && digit(i + 1) {
        let mut n = i + 1;
        while digit(n) {
            n += 1;
        }
        let frac = &b[i + 1..n.min(i + 10)];
        let mut ns = frac
            .iter()
            .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0'));
        for _ in frac.len()..9 {
            ns *= 10;
        }
        nanos = ns;
        i = n;
    }
    let offset_seconds: i64 = if b.get(i) == Some(&b'Z') {
        i += 1;
        0
    } else {
        if b.len() < i + 6 || b[i + 3] != b':' {
            return None;
        }
        let (hh, _) = getnum(i + 1, true).filter(|&(_, end)| end == i + 3)?;
        let (mm, _) = getnum(i + 4, true)?;
        if hh > 24 || mm > 60 {
            return None;
        }
        let magnitude = (hh * 60 + mm) * 60;
        let signed = match b[i] {
            b'+' => magnitude,
            b'-' => -magnitude,
            _ => return None,
        };
        i += 6;
        signed
    };
    if i != b.len() {
        return None;
    }
    if day < 1 || day > days_in_month(month, year) {
        return None;
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_seconds;
    Some(i128::from(seconds) * NANOS_PER_SECOND + i128::from(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reasons(res: &KResult) -> Vec<(String, String, String)> {
        res.conditions
            .iter()
            .map(|c| (c.kind.clone(), c.status.clone(), c.reason.clone()))
            .collect()
    }

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

    #[test]
    fn kstatus_int_fields_ignore_floats() {
        // spec.replicas 2.0 is a float64, so the default 1 applies.
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"replicas": 2.0},
            "status": {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
                "conditions": [{"type": "Available", "status": "True"}]}});
        assert_eq!(
            compute(&obj).unwrap().message,
            "Deployment is available. Replicas: 1"
        );
        let obj = json!({"a": {"b": 7, "c": 7.5, "d": "7"}, "e": [1]});
        assert_eq!(get_int_field(&obj, ".a.b", -1), 7);
        assert_eq!(get_int_field(&obj, "a.b", -1), 7);
        assert_eq!(get_int_field(&obj, ".a.c", -1), -1);
        assert_eq!(get_int_field(&obj, ".a.d", -1), -1);
        assert_eq!(get_int_field(&obj, ".e.x", -1), -1);
        assert_eq!(get_string_field(&obj, ".a.d", "no"), "7");
        assert_eq!(get_string_field(&obj, ".a.b", "no"), "no");
    }

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

    #[test]
    fn kstatus_go_time_parsing() {
        let p = parse_go_rfc3339;
        let base = i128::from(1_714_564_800i64) * NANOS_PER_SECOND;
        assert_eq!(p("2024-05-01T12:00:00Z"), Some(base));
        assert_eq!(p("2024-05-01T9:00:00-03:00"), Some(base));
        assert_eq!(p("2024-05-01T12:00:00,25Z"), Some(base + 250_000_000));
        assert_eq!(
            p("2024-05-01T12:00:00.1234567891Z"),
            Some(base + 123_456_789)
        );
        assert_eq!(p("2024-02-30T12:00:00Z"), None);
        assert_eq!(p("2024-05-01T12:00:00"), None);
        assert_eq!(p("2024-05-01T12:00:00z"), None);
        assert_eq!(p("2024-05-01t12:00:00Z"), None);
        assert_eq!(p("2024-05-01T12:00:60Z"), None);
        assert_eq!(p("2024-5-01T12:00:00Z"), None);
        assert_eq!(p("2024-05-01T12:00:00Z "), None);
        assert_eq!(p("2024-05-01T12:00:00+0100"), None);
    }

    #[test]
    fn kstatus_go_value_formatting() {
        assert_eq!(go_float(1.5), "1.5");
        assert_eq!(go_float(3.0), "3");
        assert_eq!(go_float(123456.0), "123456");
        assert_eq!(go_float(1234567.0), "1.234567e+06");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_float(-2.5e21), "-2.5e+21");
        assert_eq!(go_float(0.0), "0");
        assert_eq!(
            go_value(&json!({"b": [1, "x", null], "a": {"c": true}})),
            "map[a:map[c:true] b:[1 x <nil>]]"
        );
        // An integer beyond int64 is a float64 in Kubernetes typing.
        let big: Value = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(go_type(&big), "float64");
        assert_eq!(go_value(&big), "1.8446744073709552e+19");
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
