//! apiregistration.k8s.io APIService (v1 and v1beta1): gitops-engine
//! `pkg/health/health_apiservice.go`.

use super::{items, status, text, to_typed, unsupported, Gvk};
use super::{HEALTHY, PROGRESSING};
use crate::argo::HealthStatus;
use serde_json::Value;

/// `getAPIServiceHealth` / `getApiregistrationv1APIServiceHealth` and its v1beta1 twin
/// (health_apiservice.go): the first `Available` condition decides, Healthy when `True`,
/// Progressing otherwise, message `<reason>: <message>`; without one, Progressing
/// `Waiting to be processed`.
pub(super) fn apiservice(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    let go_type = match gvk.version.as_str() {
        "v1" => "arv1.APIService",
        "v1beta1" => "arv1b1.APIService",
        _ => return Err(unsupported("APIService", gvk)),
    };
    to_typed(obj, go_type, "APIService")?;
    for c in items(obj, &["status", "conditions"]) {
        if text(c, &["type"]) == "Available" {
            let message = format!("{}: {}", text(c, &["reason"]), text(c, &["message"]));
            let code = if text(c, &["status"]) == "True" {
                HEALTHY
            } else {
                PROGRESSING
            };
            return Ok(status(code, message));
        }
    }
    Ok(status(PROGRESSING, "Waiting to be processed"))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{error, health, hs};
    use serde_json::{json, Value};

    fn apisvc(version: &str, available: Value) -> Value {
        json!({"apiVersion": format!("apiregistration.k8s.io/{version}"), "kind": "APIService",
            "metadata": {"name": "v1beta1.admission.cert-manager.io"},
            "spec": {"group": "admission.cert-manager.io", "version": "v1beta1",
                "groupPriorityMinimum": 1000, "versionPriority": 15,
                "service": {"name": "cert-manager-webhook", "namespace": "external-dns"}},
            "status": {"conditions": [available]}})
    }

    fn passed() -> Value {
        json!({"type": "Available", "status": "True", "reason": "Passed",
            "message": "all checks passed", "lastTransitionTime": "2019-07-09T14:48:15Z"})
    }

    const MISSING_MSG: &str = "MissingEndpoints: endpoints for service/cert-manager-webhook in \"external-dns\" have no addresses";

    fn missing() -> Value {
        json!({"type": "Available", "status": "False", "reason": "MissingEndpoints",
            "message": "endpoints for service/cert-manager-webhook in \"external-dns\" have no addresses"})
    }

    // health_test.go TestAPIService, apiservice-v1-true.yaml → Healthy; message format "%s: %s"
    // (reason: message) from health_apiservice.go.
    #[test]
    fn v1_true() {
        assert_eq!(
            health(apisvc("v1", passed())),
            hs("Healthy", "Passed: all checks passed")
        );
    }

    // health_test.go TestAPIService, apiservice-v1-false.yaml → Progressing.
    #[test]
    fn v1_false() {
        assert_eq!(
            health(apisvc("v1", missing())),
            hs("Progressing", MISSING_MSG)
        );
    }

    // health_test.go TestAPIService, apiservice-v1beta1-true.yaml → Healthy.
    #[test]
    fn v1beta1_true() {
        assert_eq!(
            health(apisvc("v1beta1", passed())),
            hs("Healthy", "Passed: all checks passed")
        );
    }

    // health_test.go TestAPIService, apiservice-v1beta1-false.yaml → Progressing.
    #[test]
    fn v1beta1_false() {
        assert_eq!(
            health(apisvc("v1beta1", missing())),
            hs("Progressing", MISSING_MSG)
        );
    }

    // health_apiservice.go: no Available condition → "Waiting to be processed".
    #[test]
    fn no_condition() {
        let obj = apisvc("v1", json!({"type": "Other", "status": "True"}));
        assert_eq!(health(obj), hs("Progressing", "Waiting to be processed"));
    }

    // health_apiservice.go: other versions unsupported; conversion errors wrapped.
    #[test]
    fn errors() {
        assert_eq!(
            error(apisvc("v2", passed())),
            "unsupported APIService GVK: apiregistration.k8s.io/v2, Kind=APIService"
        );
        let mut obj = apisvc("v1", passed());
        obj["spec"]["versionPriority"] = json!("15");
        assert_eq!(
            error(obj),
            "failed to convert unstructured APIService to typed: unrecognized type: int32"
        );
    }
}
