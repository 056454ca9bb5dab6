//! Checks of delivery Stages: every failing rule of `Ready` and `Mediated` ([`crate::delivery`],
//! "Delivery reference: setup and gates") as a finding, near misses of the apply-ref label, and an
//! apply OCIRepository that does not verify like its candidates ("give it the same spec.verify").

use super::near::near_miss;
use super::{Finding, Severity};
use crate::delivery::view::{at, StageView};
use crate::delivery::{compute, World, APPLY_REF_LABEL};
use serde_json::Value;

/// The IDs of delivery findings: S01 Ready, S02 Mediated, S03 a label near miss, S04 verify
/// differences. (The S checks are this tool's own; docs/doctor.md lists them.)
pub fn checks(world: &World, labelled: &[Value]) -> Vec<Finding> {
    let mut out = Vec::new();
    for stage in &world.stages {
        let c = compute(stage, world);
        for f in &c.failures {
            out.push(Finding {
                id: if f.condition == "Ready" { "S01" } else { "S02" },
                severity: Severity::Error,
                object: f.object.clone(),
                evidence: format!(
                    "{} of {} (for {}): {}",
                    f.field,
                    f.object,
                    stage.this.describe(),
                    f.reason
                ),
                finding: format!("{}={} {}: {}", f.condition, "False", f.reason, f.message),
                fix: f.fix.clone(),
            });
        }
        if let Some(w) = verify_difference(stage, world) {
            out.push(w);
        }
    }
    for o in labelled {
        let kind = o.get("kind").and_then(Value::as_str).unwrap_or("");
        let ns = o
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("");
        let name = o
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(labels) = at(o, &["metadata", "labels"]).and_then(Value::as_object) else {
            continue;
        };
        for k in labels.keys().filter(|k| near_miss(k, APPLY_REF_LABEL, 4)) {
            out.push(Finding {
                id: "S03",
                severity: Severity::Error,
                object: format!("{kind} {ns}/{name}"),
                evidence: format!("metadata.labels[{k:?}]"),
                finding: format!("the label {k:?} looks like {APPLY_REF_LABEL} but is not it: admission and the promoter ignore it"),
                fix: format!("rename the label to {APPLY_REF_LABEL} (as break-glass)"),
            });
        }
    }
    out
}

/// S04: the apply OCIRepository's spec.verify differs from the candidate repository's ("Delivery
/// reference: setup and gates", "Set up a Stage": give it the same spec.verify).
fn verify_difference(stage: &StageView, world: &World) -> Option<Finding> {
    let cand = stage.candidate_repository.as_ref()?;
    let candidate = world.repository(&cand.namespace, &cand.name).ok()??;
    let apply = world
        .repository(&stage.this.namespace, &stage.apply_ref)
        .ok()??;
    let same = candidate.has_verify == apply.has_verify
        && candidate.verify_secret == apply.verify_secret
        && candidate.oidc_identities == apply.oidc_identities;
    (!same).then(|| Finding {
        id: "S04",
        severity: Severity::Warning,
        object: apply.this.describe(),
        evidence: format!("spec.verify of {} and of {}", apply.this.describe(), candidate.this.describe()),
        finding: "the apply OCIRepository does not verify signatures as the candidate repository does: Flux applies what it pulls without the publisher's check".to_string(),
        fix: format!("give {} the same spec.verify as {}", apply.this.describe(), candidate.this.describe()),
    })
}
