//! Core (`v1`) PersistentVolumeClaim and Service: gitops-engine `pkg/health/health_pvc.go` and
//! `health_service.go`. Both carry no message.

use super::{items, status, text, to_typed, unsupported, Gvk};
use super::{DEGRADED, HEALTHY, PROGRESSING, UNKNOWN};
use crate::argo::HealthStatus;
use serde_json::Value;

/// `getPVCHealth` / `getCorev1PVCHealth` (health_pvc.go): phase Lost → Degraded, Pending →
/// Progressing, Bound → Healthy, anything else (including no phase) → Unknown.
pub(super) fn pvc(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("", "v1") {
        return Err(unsupported("PersistentVolumeClaim", gvk));
    }
    to_typed(obj, "core.PersistentVolumeClaim", "PersistentVolumeClaim")?;
    let code = match text(obj, &["status", "phase"]) {
        "Lost" => DEGRADED,
        "Pending" => PROGRESSING,
        "Bound" => HEALTHY,
        _ => UNKNOWN,
    };
    Ok(status(code, ""))
}

/// `getServiceHealth` / `getCorev1ServiceHealth` (health_service.go): Healthy, except a
/// `LoadBalancer` whose `status.loadBalancer.ingress` is empty → Progressing.
pub(super) fn service(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    if !gvk.is("", "v1") {
        return Err(unsupported("Service", gvk));
    }
    to_typed(obj, "core.Service", "Service")?;
    if text(obj, &["spec", "type"]) == "LoadBalancer"
        && items(obj, &["status", "loadBalancer", "ingress"]).is_empty()
    {
        return Ok(status(PROGRESSING, ""));
    }
    Ok(status(HEALTHY, ""))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{error, health, hs};
    use serde_json::{json, Value};

    fn pvc(phase: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "testpvc"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}},
            "status": {"phase": phase}})
    }

    // health_test.go TestPVCHealth, pvc-bound.yaml → Healthy.
    #[test]
    fn pvc_bound() {
        assert_eq!(health(pvc(json!("Bound"))), hs("Healthy", ""));
    }

    // health_test.go TestPVCHealth, pvc-pending.yaml → Progressing.
    #[test]
    fn pvc_pending() {
        assert_eq!(health(pvc(json!("Pending"))), hs("Progressing", ""));
    }

    // health_pvc.go: Lost → Degraded; any other phase (or none) → Unknown.
    #[test]
    fn pvc_lost_and_unknown() {
        assert_eq!(health(pvc(json!("Lost"))), hs("Degraded", ""));
        assert_eq!(health(pvc(json!(null))), hs("Unknown", ""));
        assert_eq!(health(pvc(json!("Resizing"))), hs("Unknown", ""));
    }

    // health_pvc.go: typed conversion; spec.resources.requests are resource.Quantity values.
    #[test]
    fn pvc_bad_quantity() {
        let mut obj = pvc(json!("Bound"));
        obj["spec"]["resources"]["requests"]["storage"] = json!("2 GiB");
        assert_eq!(
            error(obj),
            "failed to convert unstructured PersistentVolumeClaim to typed: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
    }

    fn svc(kind: &str, lb: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "argocd-server"},
            "spec": {"type": kind, "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}]},
            "status": {"loadBalancer": lb}})
    }

    // health_test.go TestServiceHealth, svc-clusterip.yaml → Healthy.
    #[test]
    fn service_clusterip() {
        assert_eq!(health(svc("ClusterIP", json!({}))), hs("Healthy", ""));
    }

    // health_test.go TestServiceHealth, svc-loadbalancer.yaml (a hostname assigned) → Healthy.
    #[test]
    fn service_loadbalancer() {
        let lb = json!({"ingress": [{"hostname": "abc123.us-west-2.elb.amazonaws.com"}]});
        assert_eq!(health(svc("LoadBalancer", lb)), hs("Healthy", ""));
    }

    // health_test.go TestServiceHealth, svc-loadbalancer-unassigned.yaml → Progressing.
    #[test]
    fn service_loadbalancer_unassigned() {
        assert_eq!(
            health(svc("LoadBalancer", json!({}))),
            hs("Progressing", "")
        );
    }

    // health_test.go TestServiceHealth, svc-loadbalancer-nonemptylist.yaml (ingress: [{}]) →
    // Healthy: only the list length counts.
    #[test]
    fn service_loadbalancer_nonemptylist() {
        assert_eq!(
            health(svc("LoadBalancer", json!({"ingress": [{}]}))),
            hs("Healthy", "")
        );
    }

    // health_service.go: typed conversion (targetPort is an IntOrString); unsupported version.
    #[test]
    fn service_errors() {
        let mut obj = svc("ClusterIP", json!({}));
        obj["spec"]["ports"][0]["targetPort"] = json!(80.5);
        assert_eq!(
            error(obj),
            "failed to convert unstructured Service to typed: json: cannot unmarshal number 80.5 into Go value of type int32"
        );
        let mut obj = svc("ClusterIP", json!({}));
        obj["apiVersion"] = json!("v2");
        assert_eq!(error(obj), "unsupported Service GVK: /v2, Kind=Service");
    }
}
