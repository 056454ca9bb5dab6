//! Argo CD's built-in Go health checks: gitops-engine `pkg/health` (vendored in argo-cd master
//! 37ee0097), re-implemented over `serde_json::Value` objects.
//!
//! [`builtin_health`] is `GetHealthCheckFunc(gvk)` (health.go) followed by the check it returns.
//! It does not include what `GetResourceHealth` does around it (the `Pending deletion`
//! short-circuit for objects with a `deletionTimestamp` and no hook finalizer, the Lua override,
//! mapping an error to `Unknown`): the caller does that.
//!
//! Most checks first convert the object into its typed Go struct. That conversion
//! ([`convert`], over the type table in [`schema`]) applies no defaulting: an absent field is the
//! Go zero value (a nil pointer for `spec.replicas`, `0` for counters, `""` for strings), and a
//! field whose JSON type does not fit its Go type, anywhere in the object, makes the check fail
//! with `failed to convert unstructured <Kind> to typed: <converter error>`.
//!
//! One file per check family: [`apps`] (Deployment, StatefulSet, DaemonSet, ReplicaSet),
//! [`core`] (PersistentVolumeClaim, Service), [`pod`], [`batch`] (Job), [`apiservice`],
//! [`hpa`], [`unstructured`] (Ingress, Argo Workflow: read without typed conversion).

mod apiservice;
mod apps;
mod batch;
mod convert;
mod core;
pub(crate) mod golang;
mod hpa;
mod pod;
mod schema;
mod unstructured;

use super::HealthStatus;
use serde_json::Value;
use std::fmt;

const HEALTHY: &str = "Healthy";
const PROGRESSING: &str = "Progressing";
const DEGRADED: &str = "Degraded";
const SUSPENDED: &str = "Suspended";
const UNKNOWN: &str = "Unknown";

/// The built-in Go check gitops-engine's `GetHealthCheckFunc` picks for this object's GVK, run on it.
/// None: no Go check exists for this GVK (the resource has no health).
/// Some(Err(text)): the check returned an error (Argo then shows Unknown with that text), e.g. an
/// unsupported version or a failed typed conversion, worded as gitops-engine words it.
///
/// Follows `GetHealthCheckFunc` in gitops-engine `pkg/health/health.go`: the group and kind pick
/// the check (any version); the check itself then accepts only the versions it has a typed
/// struct for (`unsupported <Kind> GVK: <group>/<version>, Kind=<Kind>` otherwise), except the
/// Ingress and Workflow checks, which read the unstructured object whatever the version.
pub fn builtin_health(obj: &Value) -> Option<Result<HealthStatus, String>> {
    if !obj.is_object() {
        return None;
    }
    let gvk = Gvk::of(obj);
    type Check = fn(&Value, &Gvk) -> Result<HealthStatus, String>;
    let check: Check = match (gvk.group.as_str(), gvk.kind.as_str()) {
        ("apps", "Deployment") => apps::deployment,
        ("apps", "StatefulSet") => apps::statefulset,
        ("apps", "ReplicaSet") => apps::replicaset,
        ("apps", "DaemonSet") => apps::daemonset,
        ("extensions" | "networking.k8s.io", "Ingress") => unstructured::ingress,
        ("argoproj.io", "Workflow") => unstructured::workflow,
        ("apiregistration.k8s.io", "APIService") => apiservice::apiservice,
        ("", "Service") => core::service,
        ("", "PersistentVolumeClaim") => core::pvc,
        ("", "Pod") => pod::pod,
        ("batch", "Job") => batch::job,
        ("autoscaling", "HorizontalPodAutoscaler") => hpa::hpa,
        _ => return None,
    };
    Some(check(obj, &gvk))
}

/// `unstructured.Unstructured.GroupVersionKind()`: `apiVersion` and `kind` read as strings
/// (anything else reads as ""), `apiVersion` split by `schema.ParseGroupVersion`; an
/// `apiVersion` with two or more slashes gives the empty GVK.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Gvk {
    group: String,
    version: String,
    kind: String,
}

impl Gvk {
    fn of(obj: &Value) -> Gvk {
        let text = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("");
        let (api_version, kind) = (text("apiVersion"), text("kind"));
        let (group, version, kind) = if api_version.is_empty() || api_version == "/" {
            ("", "", kind)
        } else {
            match api_version.split_once('/') {
                None => ("", api_version, kind),
                Some((g, v)) if !v.contains('/') => (g, v, kind),
                Some(_) => ("", "", ""),
            }
        };
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    fn is(&self, group: &str, version: &str) -> bool {
        self.group == group && self.version == version
    }
}

/// `schema.GroupVersionKind.String()`: `group/version, Kind=kind` (`/v1, Kind=Pod` for core).
impl fmt::Display for Gvk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}, Kind={}", self.group, self.version, self.kind)
    }
}

/// `fmt.Errorf("unsupported <what> GVK: %s", gvk)`.
fn unsupported(what: &str, gvk: &Gvk) -> String {
    format!("unsupported {what} GVK: {gvk}")
}

/// `runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &typed)` with the error
/// wrapped as `failed to convert unstructured <what> to typed: <err>`.
fn to_typed(obj: &Value, go_type: &'static str, what: &str) -> Result<(), String> {
    convert::from_unstructured(obj, go_type)
        .map_err(|e| format!("failed to convert unstructured {what} to typed: {e}"))
}

fn status(code: &str, message: impl Into<String>) -> HealthStatus {
    HealthStatus::new(code, message)
}

// Readers over an object that passed the typed conversion: they return what the Go struct field
// would hold. A JSON null reads like an absent key (nil pointer / zero value).

/// The value at `path`, or None when absent or null (a nil pointer in Go).
fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for k in path {
        cur = cur.get(*k)?;
    }
    (!cur.is_null()).then_some(cur)
}

/// A string field ("" when absent).
fn text<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    get(v, path).and_then(Value::as_str).unwrap_or("")
}

/// A bool field (false when absent).
fn flag(v: &Value, path: &[&str]) -> bool {
    get(v, path).and_then(Value::as_bool).unwrap_or(false)
}

/// An integer field as Go's reflect `Convert` leaves it: int64 as is, a whole float64 truncated.
fn int64(v: &Value, path: &[&str]) -> Option<i64> {
    let n = get(v, path)?;
    n.as_i64().or_else(|| n.as_f64().map(|f| f as i64))
}

/// An `int32` field; a pointer field is None when absent. Wider values wrap as Go's conversion does.
fn int32_opt(v: &Value, path: &[&str]) -> Option<i32> {
    int64(v, path).map(|n| n as i32)
}

/// An `int32` field (0 when absent).
fn int32(v: &Value, path: &[&str]) -> i32 {
    int32_opt(v, path).unwrap_or(0)
}

/// A slice field (empty when absent).
fn items<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    get(v, path)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// `metadata.annotations[key]`: None when the key is absent, "" for a null value (both the typed
/// map and `Unstructured.GetAnnotations` coerce null to "").
fn annotation<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    let v = obj.get("metadata")?.get("annotations")?.get(key)?;
    Some(v.as_str().unwrap_or(""))
}

#[cfg(test)]
mod testutil {
    use super::*;

    /// Runs [`builtin_health`] and expects a status.
    pub(super) fn health(obj: Value) -> HealthStatus {
        match builtin_health(&obj) {
            Some(Ok(h)) => h,
            other => panic!("expected a health status, got {other:?}"),
        }
    }

    /// Runs [`builtin_health`] and expects an error.
    pub(super) fn error(obj: Value) -> String {
        match builtin_health(&obj) {
            Some(Err(e)) => e,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    pub(super) fn hs(code: &str, message: &str) -> HealthStatus {
        HealthStatus::new(code, message)
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use serde_json::json;

    // health_test.go TestCRD: a knative Service (serving.knative.dev) has no built-in check.
    #[test]
    fn crd_has_no_health() {
        let obj = json!({"apiVersion": "serving.knative.dev/v1alpha1", "kind": "Service",
            "metadata": {"name": "helloworld"}, "spec": {}});
        assert_eq!(builtin_health(&obj), None);
    }

    fn application(health: &str) -> Value {
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "status": {"health": {"status": health}}})
    }

    // health_test.go TestApplication, application-healthy.yaml: argoproj.io Application has no
    // built-in check (health.go dispatches only Workflow in argoproj.io) → nil.
    #[test]
    fn application_healthy_has_no_health() {
        assert_eq!(builtin_health(&application("Healthy")), None);
    }

    // health_test.go TestApplication, application-degraded.yaml → nil.
    #[test]
    fn application_degraded_has_no_health() {
        assert_eq!(builtin_health(&application("Degraded")), None);
    }

    // health.go GetHealthCheckFunc: no case for these group/kind pairs.
    #[test]
    fn unlisted_kinds_have_no_health() {
        for (av, k) in [
            ("v1", "ConfigMap"),
            ("v1", "Secret"),
            ("batch/v1", "CronJob"),
            ("apps/v1", "ControllerRevision"),
            ("v1", "service"),
            ("", ""),
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ] {
            assert_eq!(
                builtin_health(&json!({"apiVersion": av, "kind": k})),
                None,
                "{av} {k}"
            );
        }
        assert_eq!(builtin_health(&json!([1])), None);
    }

    // schema.ParseGroupVersion: more than one slash is an error and GroupVersionKind() returns
    // the empty GVK, so nothing is dispatched.
    #[test]
    fn malformed_api_version() {
        assert_eq!(
            builtin_health(&json!({"apiVersion": "a/b/v1", "kind": "Pod"})),
            None
        );
    }

    // health_pod.go getPodHealth: a core Pod whose apiVersion is missing (or not a string)
    // dispatches on group "" and then fails the version switch; GVK.String() is "/, Kind=Pod".
    #[test]
    fn unsupported_version_wording() {
        assert_eq!(
            error(json!({"kind": "Pod"})),
            "unsupported Pod GVK: /, Kind=Pod"
        );
        assert_eq!(
            error(json!({"apiVersion": 1, "kind": "Service"})),
            "unsupported Service GVK: /, Kind=Service"
        );
        assert_eq!(
            error(json!({"apiVersion": "apps/v1beta2", "kind": "Deployment"})),
            "unsupported Deployment GVK: apps/v1beta2, Kind=Deployment"
        );
    }

    #[test]
    fn gvk_display() {
        let g = Gvk::of(&json!({"apiVersion": "apps/v1", "kind": "Deployment"}));
        assert_eq!(g.to_string(), "apps/v1, Kind=Deployment");
        assert!(g.is("apps", "v1"));
        assert_eq!(
            Gvk::of(&json!({"apiVersion": "/", "kind": "X"})).to_string(),
            "/, Kind=X"
        );
    }
}
