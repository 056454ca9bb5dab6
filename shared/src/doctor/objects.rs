//! Checks of the gated objects themselves: Pactos (O01–O07 of docs/doctor.md, read with
//! [`crate::pacto::view`]) and CoderTemplateTests (C03).

use super::{Finding, Severity};
use crate::pacto::verdict::{self, Freshness, KNOWN_VERDICTS};
use crate::pacto::view::{PactoView, Schema};
use jiff::Timestamp;
use serde_json::Value;

/// The checks of one Pacto at `now`. `live` says the object was read from a cluster: a stale
/// verdict there is a warning; in a file it is a saved state, worth knowing (info).
pub fn pacto(obj: &Value, now: Timestamp, live: bool) -> Vec<Finding> {
    let stale = if live {
        Severity::Warning
    } else {
        Severity::Info
    };
    let p = PactoView::new(obj);
    let o = format!("Pacto {}/{}", p.namespace, p.name);
    let mut out = Vec::new();
    if let Some((name, None)) = &p.workload_ref {
        out.push(Finding::new("O01", Severity::Warning, &o, format!("spec.target.workloadRef: {{name: {name:?}}} without kind"),
            "the workloadRef has no kind: WORKLOAD_MISMATCH can never fire, the evidence stays insufficient (Unknown), Flux times out and Argo CD shows Progressing for ever".to_string(),
            "set spec.target.workloadRef.kind (Deployment, StatefulSet, ...)".to_string()));
    }
    match verdict::freshness(&p, now) {
        Freshness::GenerationNotObserved { observed, generation } => out.push(Finding::new("O02", stale, &o,
            format!("status.observedGeneration {} , metadata.generation {}", observed.map(|g| g.to_string()).unwrap_or_else(|| "absent".into()), generation.map(|g| g.to_string()).unwrap_or_else(|| "absent".into())),
            "the verdict is about an older spec: the operator has not evaluated the current one".to_string(),
            "wait for the next reconcile; if it does not come, check the operator".to_string())),
        Freshness::Late { age, interval_seconds } => out.push(Finding::new("O02", stale, &o,
            format!("status.lastReconciledAt {} ago, checkIntervalSeconds {interval_seconds}", verdict::human_duration(age)),
            "no reconcile for more than two check intervals: the operator looks stopped and the verdict may be stale".to_string(),
            "check the Pacto operator's pods and logs".to_string())),
        _ => {}
    }
    if p.schema == Schema::Legacy {
        out.push(Finding::new("O06", Severity::Info, &o, "status.summary.total / per-check conditions".to_string(),
            "written by the legacy operator: an invalid contract shows as NonCompliant and the status has no findings for an Argo CD message".to_string(),
            String::new()));
    }
    if let Some(s) = p.contract_status.as_deref() {
        if !KNOWN_VERDICTS.contains(&s) {
            out.push(Finding::new("O07", Severity::Info, &o, format!("status.contractStatus {s:?}"),
                format!("contractStatus {s:?} is not a value this tool knows ({}): the recommended gates treat it as pending (fail closed)", KNOWN_VERDICTS.join(", ")),
                String::new()));
        }
        if s == "Compliant" {
            if let Some(c) = p
                .condition("ReadinessSatisfied")
                .filter(|c| c.status == "False")
            {
                out.push(Finding::new("O05", Severity::Info, &o, format!("ReadinessSatisfied=False ({})", c.reason),
                    "the contract is Compliant while ReadinessSatisfied is False: readiness never affects the verdict, so the gates pass".to_string(),
                    String::new()));
            }
        }
    }
    for f in p
        .findings
        .iter()
        .filter(|f| f.code == "OBSERVATION_UNSUPPORTED")
    {
        out.push(Finding::new("O04", Severity::Info, &o, format!("finding OBSERVATION_UNSUPPORTED {}", f.subject),
            "an assertion cannot be observed (metrics or probing is off in the operator): it stays Unknown".to_string(),
            String::new()));
    }
    out
}

/// C03: a CoderTemplateTest with `spec.ttlSecondsAfterFinished` under GitOps is deleted after it
/// finishes and recreated by the GitOps tool: a new workspace for ever ("Gate template promotion
/// with GitOps", "One test per version").
pub fn coder_template_test(obj: &Value) -> Vec<Finding> {
    let ns = obj
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    match obj.pointer("/spec/ttlSecondsAfterFinished") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => vec![Finding::new("C03", Severity::Error, &format!("CoderTemplateTest {ns}/{name}"),
            format!("spec.ttlSecondsAfterFinished: {v}"),
            "a finished test is deleted after its TTL and the GitOps tool creates it again: a new workspace and a new run, for ever".to_string(),
            "remove spec.ttlSecondsAfterFinished from tests that GitOps applies".to_string())],
    }
}
