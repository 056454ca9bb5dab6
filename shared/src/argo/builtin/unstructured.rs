//! The two checks that read the unstructured object directly, with no typed conversion and for
//! any version: Ingress (gitops-engine `pkg/health/health_ingress.go`) and Argo Workflow
//! (`health_argo.go`). Accessor errors (a field of the wrong type) are ignored there, as the
//! zero value.

use super::{status, Gvk};
use super::{DEGRADED, HEALTHY, PROGRESSING, UNKNOWN};
use crate::argo::HealthStatus;
use serde_json::Value;

/// `unstructured.NestedFieldNoCopy`: None when a step is absent or null, or not an object.
fn nested<'a>(obj: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = obj;
    for k in path {
        cur = cur.as_object()?.get(*k)?;
    }
    Some(cur)
}

/// `unstructured.NestedString` with its error ignored.
fn nested_string<'a>(obj: &'a Value, path: &[&str]) -> &'a str {
    nested(obj, path).and_then(Value::as_str).unwrap_or("")
}

/// `getIngressHealth` (health_ingress.go): Healthy when `status.loadBalancer.ingress` is a
/// non-empty list, Progressing otherwise; never a message.
pub(super) fn ingress(obj: &Value, _gvk: &Gvk) -> Result<HealthStatus, String> {
    let assigned = nested(obj, &["status", "loadBalancer", "ingress"])
        .and_then(Value::as_array)
        .is_some_and(|l| !l.is_empty());
    Ok(status(if assigned { HEALTHY } else { PROGRESSING }, ""))
}

/// `getArgoWorkflowHealth` (health_argo.go): `status.phase` "" / Pending / Running →
/// Progressing, Succeeded → Healthy, Failed / Error → Degraded, else Unknown; message is
/// `status.message`.
pub(super) fn workflow(obj: &Value, _gvk: &Gvk) -> Result<HealthStatus, String> {
    let message = nested_string(obj, &["status", "message"]);
    let code = match nested_string(obj, &["status", "phase"]) {
        "" | "Pending" | "Running" => PROGRESSING,
        "Succeeded" => HEALTHY,
        "Failed" | "Error" => DEGRADED,
        _ => UNKNOWN,
    };
    Ok(status(code, message))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{health, hs};
    use serde_json::{json, Value};

    fn ing(api_version: &str, status: Value) -> Value {
        json!({"apiVersion": api_version, "kind": "Ingress",
            "metadata": {"name": "argocd-server-ingress"},
            "spec": {"rules": [{"host": "example.argoproj.io"}]}, "status": status})
    }

    const NET_V1: &str = "networking.k8s.io/v1";

    // health_test.go TestIngressHealth, ingress.yaml (an ip assigned) → Healthy.
    #[test]
    fn ingress_assigned() {
        let st = json!({"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}});
        assert_eq!(health(ing(NET_V1, st)), hs("Healthy", ""));
    }

    // health_test.go TestIngressHealth, ingress-unassigned.yaml (loadBalancer: {}) → Progressing.
    #[test]
    fn ingress_unassigned() {
        assert_eq!(
            health(ing(NET_V1, json!({"loadBalancer": {}}))),
            hs("Progressing", "")
        );
    }

    // health_test.go TestIngressHealth, ingress-nonemptylist.yaml (ingress: [{}]) → Healthy.
    #[test]
    fn ingress_nonemptylist() {
        let st = json!({"loadBalancer": {"ingress": [{}]}});
        assert_eq!(health(ing(NET_V1, st)), hs("Healthy", ""));
    }

    // health.go: extensions and networking.k8s.io Ingress, any version, no typed conversion;
    // health_ingress.go ignores NestedSlice errors (wrong types read as no ingress).
    #[test]
    fn ingress_any_version_and_bad_types() {
        let lb = json!({"loadBalancer": {"ingress": [{"hostname": "lb"}]}});
        assert_eq!(
            health(ing("extensions/v1beta1", lb.clone())),
            hs("Healthy", "")
        );
        assert_eq!(
            health(ing("networking.k8s.io/v1beta1", lb)),
            hs("Healthy", "")
        );
        assert_eq!(
            health(ing(
                "networking.k8s.io/v1",
                json!({"loadBalancer": {"ingress": "x"}})
            )),
            hs("Progressing", "")
        );
        assert_eq!(
            health(ing("networking.k8s.io/v1", json!("x"))),
            hs("Progressing", "")
        );
        let mut obj = ing("networking.k8s.io/v1", json!({}));
        obj["metadata"]["name"] = json!(5);
        assert_eq!(health(obj), hs("Progressing", ""));
    }

    fn wf(status: Value) -> Value {
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
            "spec": {"entrypoint": "sampleEntryPoint", "extraneousKey": "we are agnostic to extraneous keys"},
            "status": status})
    }

    // health_test.go TestGetArgoWorkflowHealth, first case: Running → Progressing with the
    // message.
    #[test]
    fn workflow_running() {
        let st = json!({"phase": "Running", "message": "This node is running"});
        assert_eq!(health(wf(st)), hs("Progressing", "This node is running"));
    }

    // health_test.go TestGetArgoWorkflowHealth, second case: Succeeded → Healthy with the message.
    #[test]
    fn workflow_succeeded() {
        let st = json!({"phase": "Succeeded", "message": "This node is has succeeded"});
        assert_eq!(health(wf(st)), hs("Healthy", "This node is has succeeded"));
    }

    // health_test.go TestGetArgoWorkflowHealth, third case: no status → Progressing, empty
    // message.
    #[test]
    fn workflow_without_status() {
        let mut obj = wf(json!(null));
        obj.as_object_mut().unwrap().remove("status");
        assert_eq!(health(obj), hs("Progressing", ""));
    }

    // health_argo.go: Pending → Progressing, Failed / Error → Degraded, other → Unknown; a
    // non-string phase reads as "" (NestedString error ignored).
    #[test]
    fn workflow_phases() {
        assert_eq!(
            health(wf(json!({"phase": "Pending"}))),
            hs("Progressing", "")
        );
        assert_eq!(
            health(wf(json!({"phase": "Failed", "message": "m"}))),
            hs("Degraded", "m")
        );
        assert_eq!(health(wf(json!({"phase": "Error"}))), hs("Degraded", ""));
        assert_eq!(
            health(wf(json!({"phase": "Omitted", "message": "m"}))),
            hs("Unknown", "m")
        );
        assert_eq!(
            health(wf(json!({"phase": 3, "message": 4}))),
            hs("Progressing", "")
        );
        let obj = json!({"apiVersion": "argoproj.io/v1", "kind": "Workflow", "status": {"phase": "Succeeded"}});
        assert_eq!(health(obj), hs("Healthy", ""));
    }
}
