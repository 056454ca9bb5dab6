//! autoscaling HorizontalPodAutoscaler: gitops-engine `pkg/health/health_hpa.go`. `autoscaling/v1`
//! reads its conditions from the `autoscaling.alpha.kubernetes.io/conditions` annotation (JSON),
//! `autoscaling/v2` from `status.conditions`; the in-tree gitops-engine at argo-cd 37ee0097 has
//! no v2beta1/v2beta2 case, so those versions are unsupported.

use super::golang::json_word;
use super::{annotation, items, status, text, to_typed, unsupported, Gvk};
use super::{DEGRADED, HEALTHY, PROGRESSING};
use crate::argo::HealthStatus;
use serde_json::Value;

const CONDITIONS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/conditions";
/// `progressingStatus` in health_hpa.go.
const WAITING: &str = "Waiting to Autoscale";

/// health_hpa.go `hpaCondition`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Condition {
    kind: String,
    reason: String,
    message: String,
    status: String,
}

/// `getHPAHealth` (health_hpa.go) with `getAutoScalingV1HPAHealth` / `getAutoScalingV2HPAHealth`.
pub(super) fn hpa(obj: &Value, gvk: &Gvk) -> Result<HealthStatus, String> {
    let go_type = match gvk.version.as_str() {
        "v1" => "asv1.HorizontalPodAutoscaler",
        "v2" => "asv2.HorizontalPodAutoscaler",
        _ => return Err(unsupported("HPA", gvk)),
    };
    to_typed(obj, go_type, "HPA")?;
    let conditions = if gvk.version == "v1" {
        let Some(text) = annotation(obj, CONDITIONS_ANNOTATION) else {
            return Ok(status(PROGRESSING, WAITING));
        };
        decode_conditions(text)
            .map_err(|e| format!("failed to convert conditions annotation to typed: {e}"))?
    } else {
        items(obj, &["status", "conditions"])
            .iter()
            .map(|c| Condition {
                kind: text(c, &["type"]).to_string(),
                reason: text(c, &["reason"]).to_string(),
                message: text(c, &["message"]).to_string(),
                status: text(c, &["status"]).to_string(),
            })
            .collect()
    };
    Ok(check_conditions(&conditions))
}

/// `checkConditions`: the first degraded condition, else the first healthy one, else
/// `Waiting to Autoscale`.
fn check_conditions(conditions: &[Condition]) -> HealthStatus {
    if let Some(c) = conditions.iter().find(|c| is_degraded(c)) {
        return status(DEGRADED, c.message.clone());
    }
    if let Some(c) = conditions.iter().find(|c| is_healthy(c)) {
        return status(HEALTHY, c.message.clone());
    }
    status(PROGRESSING, WAITING)
}

/// `isDegraded`: type and reason pairs, whatever the condition status.
fn is_degraded(c: &Condition) -> bool {
    match c.kind.as_str() {
        "AbleToScale" => matches!(c.reason.as_str(), "FailedGetScale" | "FailedUpdateScale"),
        "ScalingActive" => matches!(
            c.reason.as_str(),
            "FailedGetResourceMetric"
                | "FailedGetObjectMetric"
                | "FailedGetPodsMetric"
                | "FailedGetExternalMetric"
                | "FailedComputeMetricsReplicas"
                | "InvalidSelector"
        ),
        _ => false,
    }
}

/// `isHealthy`: AbleToScale or ScalingLimited with status `True`.
fn is_healthy(c: &Condition) -> bool {
    matches!(c.kind.as_str(), "AbleToScale" | "ScalingLimited") && c.status == "True"
}

/// `json.Unmarshal([]byte(annotation), &[]hpaCondition)`: keys match the untagged Go field
/// names case-insensitively, unknown keys are ignored, null leaves a field as it is, and the
/// first type mismatch is reported (decoding goes on, so only the first error shows). Syntax
/// errors are reported with serde_json's wording, except end of input, worded as Go does.
fn decode_conditions(text: &str) -> Result<Vec<Condition>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            "unexpected end of JSON input".to_string()
        } else {
            e.to_string()
        }
    })?;
    let mut first_err: Option<String> = None;
    let mut fail = |e: String| {
        first_err.get_or_insert(e);
    };
    let list = match &value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type []health.hpaCondition",
                json_word(other)
            ))
        }
    };
    let mut out = Vec::with_capacity(list.len());
    for item in list {
        let mut c = Condition::default();
        match item {
            Value::Null => {}
            Value::Object(m) => {
                for (k, v) in m {
                    let (field, slot) = match k.to_ascii_lowercase().as_str() {
                        "type" => ("Type", &mut c.kind),
                        "reason" => ("Reason", &mut c.reason),
                        "message" => ("Message", &mut c.message),
                        "status" => ("Status", &mut c.status),
                        _ => continue,
                    };
                    match v {
                        Value::String(s) => *slot = s.clone(),
                        Value::Null => {}
                        other => fail(format!(
                            "json: cannot unmarshal {} into Go struct field hpaCondition.{field} of type string",
                            json_word(other)
                        )),
                    }
                }
            }
            other => fail(format!(
                "json: cannot unmarshal {} into Go value of type health.hpaCondition",
                json_word(other)
            )),
        }
        out.push(c);
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{error, health, hs};
    use serde_json::{json, Value};

    fn v2(conditions: Value) -> Value {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "sample"},
            "spec": {"minReplicas": 1, "maxReplicas": 2,
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "argocd-server"}},
            "status": {"currentReplicas": 1, "desiredReplicas": 1, "conditions": conditions,
                "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "current": {"averageUtilization": 6, "averageValue": "12m"}}}]}})
    }

    fn v1(conditions: Option<Value>) -> Value {
        let mut obj = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "sample"},
            "spec": {"minReplicas": 1, "maxReplicas": 1, "targetCPUUtilizationPercentage": 2,
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "sample"}},
            "status": {"currentReplicas": 1, "desiredReplicas": 0}});
        if let Some(c) = conditions {
            obj["metadata"]["annotations"] =
                json!({"autoscaling.alpha.kubernetes.io/conditions": c.to_string()});
        }
        obj
    }

    fn cond(kind: &str, status: &str, reason: &str, message: &str) -> Value {
        json!({"type": kind, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": "2022-05-13T12:40:34Z"})
    }

    // health_test.go TestHPA, hpa-v2-healthy.yaml: AbleToScale True → Healthy with its message.
    #[test]
    fn v2_healthy() {
        let obj = v2(json!([
            cond(
                "AbleToScale",
                "True",
                "ReadyForNewScale",
                "recommended size matches current size"
            ),
            cond(
                "ScalingActive",
                "True",
                "ValidMetricFound",
                "the HPA was able to successfully calculate a replica count"
            ),
            cond(
                "ScalingLimited",
                "False",
                "DesiredWithinRange",
                "the desired count is within the acceptable range"
            )
        ]));
        assert_eq!(
            health(obj),
            hs("Healthy", "recommended size matches current size")
        );
    }

    // health_test.go TestHPA, hpa-v2-degraded.yaml: AbleToScale/FailedGetScale → Degraded.
    #[test]
    fn v2_degraded() {
        let msg = "the HPA controller was unable to get the target's current scale: deployments/scale.apps \"sandbox-test-app-8\" not found";
        let obj = v2(json!([
            cond("AbleToScale", "False", "FailedGetScale", msg),
            cond("ScalingActive", "True", "ValidMetricFound", "ok"),
            cond("ScalingLimited", "False", "DesiredWithinRange", "in range")
        ]));
        assert_eq!(health(obj), hs("Degraded", msg));
    }

    // health_test.go TestHPA, hpa-v2-progressing.yaml: no AbleToScale, ScalingLimited False →
    // progressingStatus.
    #[test]
    fn v2_progressing() {
        let obj = v2(json!([
            cond("ScalingActive", "True", "ValidMetricFound", "ok"),
            cond("ScalingLimited", "False", "DesiredWithinRange", "in range")
        ]));
        assert_eq!(health(obj), hs("Progressing", "Waiting to Autoscale"));
    }

    // health_test.go TestHPA, hpa-v1-degraded.yaml: the first degraded condition wins (here
    // AbleToScale/FailedGetScale even though its status is True).
    #[test]
    fn v1_degraded() {
        let obj = v1(Some(json!([
            cond(
                "AbleToScale",
                "True",
                "FailedGetScale",
                "the HPA controller was unable to get the target's current scale"
            ),
            cond(
                "ScalingActive",
                "False",
                "FailedGetResourceMetric",
                "unable to get metrics for resource cpu"
            )
        ])));
        assert_eq!(
            health(obj),
            hs(
                "Degraded",
                "the HPA controller was unable to get the target's current scale"
            )
        );
    }

    // health_test.go TestHPA, hpa-v1-degraded-failedgetobjectmetric.yaml.
    #[test]
    fn v1_degraded_failed_get_object_metric() {
        let msg = "the HPA was unable to compute the replica count: unable to get metric tomcat_sessions_active_current_sessions";
        let obj = v1(Some(json!([
            cond(
                "AbleToScale",
                "True",
                "SucceededGetScale",
                "the HPA controller was able to get the target's current scale"
            ),
            cond("ScalingActive", "False", "FailedGetObjectMetric", msg)
        ])));
        assert_eq!(health(obj), hs("Degraded", msg));
    }

    // health_test.go TestHPA, hpa-v1-healthy.yaml: AbleToScale True (ScaleDownStabilized).
    #[test]
    fn v1_healthy() {
        let msg = "recent recommendations were higher than current one, applying the highest recent recommendation";
        let obj = v1(Some(json!([
            cond("AbleToScale", "True", "ScaleDownStabilized", msg),
            cond("ScalingActive", "True", "ValidMetricFound", "ok"),
            cond("ScalingLimited", "False", "DesiredWithinRange", "in range")
        ])));
        assert_eq!(health(obj), hs("Healthy", msg));
    }

    // health_test.go TestHPA, hpa-v1-healthy-toofew.yaml: AbleToScale True comes first among
    // the healthy conditions (ScalingLimited True is also healthy).
    #[test]
    fn v1_healthy_toofew() {
        let obj = v1(Some(json!([
            cond(
                "AbleToScale",
                "True",
                "ReadyForNewScale",
                "recommended size matches current size"
            ),
            cond("ScalingActive", "True", "ValidMetricFound", "ok"),
            cond(
                "ScalingLimited",
                "True",
                "TooFewReplicas",
                "the desired replica count is less than the minimum replica count"
            )
        ])));
        assert_eq!(
            health(obj),
            hs("Healthy", "recommended size matches current size")
        );
    }

    // health_test.go TestHPA, hpa-v1-progressing.yaml: AbleToScale False with a non-degraded
    // reason → progressingStatus.
    #[test]
    fn v1_progressing() {
        let obj = v1(Some(json!([cond(
            "AbleToScale",
            "False",
            "SucceededGetScale",
            "the HPA controller was not able to get the target's current scale"
        )])));
        assert_eq!(health(obj), hs("Progressing", "Waiting to Autoscale"));
    }

    // health_test.go TestHPA, hpa-v1-progressing-with-no-annotations.yaml.
    #[test]
    fn v1_without_annotation() {
        assert_eq!(health(v1(None)), hs("Progressing", "Waiting to Autoscale"));
    }

    // health_hpa.go isDegraded: every (type, reason) pair; isHealthy: ScalingLimited True.
    #[test]
    fn degraded_table_and_scaling_limited() {
        for (kind, reason) in [
            ("AbleToScale", "FailedGetScale"),
            ("AbleToScale", "FailedUpdateScale"),
            ("ScalingActive", "FailedGetResourceMetric"),
            ("ScalingActive", "FailedGetObjectMetric"),
            ("ScalingActive", "FailedGetPodsMetric"),
            ("ScalingActive", "FailedGetExternalMetric"),
            ("ScalingActive", "FailedComputeMetricsReplicas"),
            ("ScalingActive", "InvalidSelector"),
        ] {
            let obj = v2(json!([
                cond("ScalingLimited", "True", "TooManyReplicas", "limited"),
                cond(kind, "False", reason, "bad")
            ]));
            assert_eq!(health(obj), hs("Degraded", "bad"), "{kind} {reason}");
        }
        // A degraded reason under the other type does not count.
        let obj = v2(json!([cond(
            "ScalingActive",
            "False",
            "FailedGetScale",
            "x"
        )]));
        assert_eq!(health(obj), hs("Progressing", "Waiting to Autoscale"));
        let obj = v2(json!([cond(
            "ScalingLimited",
            "True",
            "TooManyReplicas",
            "limited"
        )]));
        assert_eq!(health(obj), hs("Healthy", "limited"));
    }

    // health_hpa.go getAutoScalingV1HPAHealth: an empty list (or JSON null) → progressingStatus;
    // keys are matched as encoding/json matches untagged fields (case-insensitively).
    #[test]
    fn v1_annotation_decoding() {
        assert_eq!(
            health(v1(Some(json!([])))),
            hs("Progressing", "Waiting to Autoscale")
        );
        assert_eq!(
            health(v1(Some(json!(null)))),
            hs("Progressing", "Waiting to Autoscale")
        );
        let obj = v1(Some(
            json!([{"TYPE": "AbleToScale", "Status": "True", "message": "ok"}]),
        ));
        assert_eq!(health(obj), hs("Healthy", "ok"));
    }

    // health_hpa.go: json.Unmarshal errors are wrapped in "failed to convert conditions
    // annotation to typed: %v"; texts are encoding/json's UnmarshalTypeError and syntax errors.
    #[test]
    fn v1_annotation_errors() {
        let pre = "failed to convert conditions annotation to typed: ";
        let mut obj = v1(None);
        obj["metadata"]["annotations"] = json!({"autoscaling.alpha.kubernetes.io/conditions": ""});
        assert_eq!(error(obj), format!("{pre}unexpected end of JSON input"));
        assert_eq!(
            error(v1(Some(json!({"type": "AbleToScale"})))),
            format!(
                "{pre}json: cannot unmarshal object into Go value of type []health.hpaCondition"
            )
        );
        assert_eq!(
            error(v1(Some(json!(["AbleToScale"])))),
            format!("{pre}json: cannot unmarshal string into Go value of type health.hpaCondition")
        );
        assert_eq!(
            error(v1(Some(json!([{"type": "AbleToScale", "status": true}])))),
            format!("{pre}json: cannot unmarshal bool into Go struct field hpaCondition.Status of type string")
        );
    }

    // health_hpa.go getHPAHealth: v2beta2 has no case in this gitops-engine; typed conversion
    // errors use the "HPA" wording.
    #[test]
    fn errors() {
        let mut obj = v2(json!([]));
        obj["apiVersion"] = json!("autoscaling/v2beta2");
        assert_eq!(
            error(obj),
            "unsupported HPA GVK: autoscaling/v2beta2, Kind=HorizontalPodAutoscaler"
        );
        let mut obj = v2(json!([]));
        obj["spec"]["maxReplicas"] = json!("2");
        assert_eq!(
            error(obj),
            "failed to convert unstructured HPA to typed: unrecognized type: int32"
        );
    }
}
