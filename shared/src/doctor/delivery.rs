//! Checks of delivery Stages: every failing rule of `Ready` and `Mediated` ([`crate::delivery`],
//! "Delivery reference: setup and gates") as a finding, near misses of the apply-ref label, an
//! apply OCIRepository that does not verify like its candidates ("give it the same spec.verify"),
//! and a Stage CRD whose `status.conditions` one writer owns whole ([`conditions_ownership`]).

use super::near::near_miss;
use super::{Finding, Severity};
use crate::delivery::view::{at, StageView};
use crate::delivery::{compute, World, APPLY_REF_LABEL};
use crate::k8s::listtype::{field_schema, kind_schema, ListType};
use crate::kinds::STAGE;
use serde_json::Value;

/// A finding's id, object, field and reason: what makes findings of several Stages one.
type Shared = (&'static str, String, String, &'static str);

/// How many Stages a finding shared by several names; past it, a count.
pub const STAGES_NAMED: usize = 3;

/// The IDs of delivery findings: S01 Ready, S02 Mediated, S03 a label near miss, S04 verify
/// differences, S06 a Stage with both candidate sources ([`conditions_ownership`] is S05). (The S checks are this tool's own;
/// docs/doctor.md lists them.)
///
/// A failure of one object (an applier, an OCIRepository) that several Stages share is one
/// finding naming the Stages ([`STAGES_NAMED`] of them, then a count), with the first Stage's
/// words: N Stages sharing one applier give N findings, not N².
pub fn checks(world: &World, labelled: &[Value]) -> Vec<Finding> {
    let mut out = Vec::new();
    // Per (id, object, field, reason): the finding's place in `out`, and the Stages it is for.
    let mut shared: std::collections::HashMap<Shared, (usize, Vec<String>)> =
        std::collections::HashMap::new();
    for stage in &world.stages {
        let c = compute(stage, world);
        for f in &c.failures {
            let id = if f.condition == "Ready" { "S01" } else { "S02" };
            let key = (id, f.object.clone(), f.field.clone(), f.reason);
            if let Some((_, stages)) = shared.get_mut(&key) {
                stages.push(stage.this.describe());
                continue;
            }
            shared.insert(key, (out.len(), vec![stage.this.describe()]));
            out.push(Finding {
                id,
                severity: Severity::Error,
                object: f.object.clone(),
                evidence: f.reason.to_string(),
                finding: format!("{}={} {}: {}", f.condition, "False", f.reason, f.message),
                fix: f.fix.clone(),
            });
        }
        if let Some(w) = verify_difference(stage, world) {
            out.push(w);
        }
        if let Some(f) = both_candidate_sources(stage) {
            out.push(f);
        }
    }
    for ((_, object, field, reason), (at, stages)) in shared {
        let named = crate::delivery::mediated::named_capped(
            stages.iter().cloned(),
            stages.len(),
            STAGES_NAMED,
        );
        out[at].evidence = format!("{field} of {object} (for {named}): {reason}");
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

/// S06: the Stage sets both `spec.candidates.upstreamStage` and
/// `spec.candidates.ociRepositoryRef` ("Delivery reference: setup and gates", "Set up a Stage":
/// a Stage takes its candidates from one source): the upstream Stage is read, the OCIRepository
/// is not ([`crate::delivery::view::BOTH_CANDIDATE_SOURCES`]).
fn both_candidate_sources(stage: &StageView) -> Option<Finding> {
    let (Some(up), Some(repo)) = (&stage.upstream_stage, &stage.candidate_repository) else {
        return None;
    };
    Some(Finding {
        id: "S06",
        severity: Severity::Warning,
        object: stage.this.describe(),
        evidence: format!(
            "spec.candidates.upstreamStage (Stage {}/{}) and spec.candidates.ociRepositoryRef (OCIRepository {}/{})",
            up.namespace, up.name, repo.namespace, repo.name
        ),
        finding: "the Stage names two candidate sources: it takes its candidates from the upstream Stage, and the OCIRepository it also names is not read".to_string(),
        fix: "keep one: spec.candidates.ociRepositoryRef for the first Stage of a chain, spec.candidates.upstreamStage for the Stages after it".to_string(),
    })
}

/// S04: the apply OCIRepository's spec.verify differs from the candidate repository's ("Delivery
/// reference: setup and gates", "Set up a Stage": give it the same spec.verify).
fn verify_difference(stage: &StageView, world: &World) -> Option<Finding> {
    let cand = stage.candidate_repository.as_ref()?;
    let candidate = world.repository(cand.namespace, cand.name).ok()??;
    let apply = world
        .repository(stage.this.namespace, stage.apply_ref)
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

/// S05: the Stage schema the cluster serves (its OpenAPI v3 document of
/// `delivery.pacto.trianalab.io/v1alpha1`) does not make `status.conditions` a list-map keyed
/// by `type`. Server-side apply then reads the list as atomic (kube-openapi
/// `pkg/schemaconv/smd.go`: no `x-kubernetes-list-type`, `atomic`, or a field the schema does not
/// describe), and in structured-merge-diff whoever last set an atomic list owns all of it: the
/// reconcile's write (a merge patch of the whole list, an update under the manager
/// `kubectl-pacto`) takes ownership of every condition, so another manager's next apply of its
/// own condition conflicts with `kubectl-pacto` (and, forced, replaces the list). A list-map, or
/// a set, is owned entry by entry: no finding. None too when the document has no Stage schema.
pub fn conditions_ownership(document: &Value) -> Option<Finding> {
    let (group, version, kind) = STAGE.gvk();
    let stage = kind_schema(document, group, version, kind)?;
    let conditions = field_schema(stage, &["status", "conditions"]);
    if !ListType::of(conditions).is_atomic() {
        return None;
    }
    Some(Finding {
        id: "S05",
        severity: Severity::Warning,
        object: format!("CustomResourceDefinition stages.{group}"),
        evidence: format!(
            "status.conditions of {kind} ({group}/{version}) in the served OpenAPI v3 schema: {}",
            ListType::declared(conditions)
        ),
        finding: format!(
            "status.conditions is an atomic list: a reconcile write owns the whole list (field manager {RECONCILE_FIELD_MANAGER}), so another manager's next server-side apply of its own condition conflicts with it"
        ),
        fix: format!(
            "declare status.conditions x-kubernetes-list-type: map with x-kubernetes-list-map-keys: [type] in the CRD stages.{group} (as metav1.Condition lists are: +listType=map, +listMapKey=type)"
        ),
    })
}

/// The field manager of the reconcile's writes (`kubectl pacto reconcile --once`), as its
/// requests send it.
const RECONCILE_FIELD_MANAGER: &str = "kubectl-pacto";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The served document of the Stage group version with `conditions` as the schema of
    /// `status.conditions` (None: `status` describes no such field).
    fn document(conditions: Option<Value>) -> Value {
        let mut status =
            json!({"type": "object", "properties": {"observedGeneration": {"type": "integer"}}});
        if let Some(c) = conditions {
            status["properties"]["conditions"] = c;
        }
        json!({"components": {"schemas": {
            "io.trianalab.pacto.delivery.v1alpha1.Stage": {
                "type": "object",
                "x-kubernetes-group-version-kind": [{"group": "delivery.pacto.trianalab.io", "version": "v1alpha1", "kind": "Stage"}],
                "properties": {"status": status}}}}})
    }

    /// Who owns what after the reconcile writes the list, by structured-merge-diff's reading of
    /// the schema (kube-openapi `VisitArray`; SMD `fieldpath`: an associative list owns
    /// `k:{...}`/`v:...` per entry, an atomic one is a leaf owned whole): a finding exactly when
    /// the list is atomic.
    #[test]
    fn a_finding_when_one_writer_owns_the_whole_conditions_list() {
        let array = |extra: Value| {
            let mut a = json!({"type": "array", "items": {"type": "object", "properties": {"type": {"type": "string"}}}});
            a.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            a
        };
        let table = [
            // +listType=map, +listMapKey=type: each condition owned by its writer.
            (
                Some(array(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]}),
                )),
                None,
            ),
            // Another key set is still a map: entries are owned one by one.
            (
                Some(array(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type", "reason"]}),
                )),
                None,
            ),
            // A set: entries keyed by value, owned one by one.
            (Some(array(json!({"x-kubernetes-list-type": "set"}))), None),
            // No marker: a custom resource's list is atomic.
            (Some(array(json!({}))), Some("no x-kubernetes-list-type")),
            (
                Some(array(json!({"x-kubernetes-list-type": "atomic"}))),
                Some("x-kubernetes-list-type: atomic"),
            ),
            // A map without keys is no map the API server serves: read as atomic.
            (
                Some(array(json!({"x-kubernetes-list-type": "map"}))),
                Some("x-kubernetes-list-type: map"),
            ),
            // Not described (status preserves unknown fields): a deduced list, atomic.
            (None, Some("the schema does not describe the field")),
        ];
        for (conditions, evidence) in table {
            let found = conditions_ownership(&document(conditions.clone()));
            assert_eq!(
                found.as_ref().map(|f| f.evidence.clone()),
                evidence.map(|e| format!(
                    "status.conditions of Stage (delivery.pacto.trianalab.io/v1alpha1) in the served OpenAPI v3 schema: {e}"
                )),
                "{conditions:?}"
            );
            if let Some(f) = found {
                assert_eq!((f.id, f.severity), ("S05", Severity::Warning));
                assert_eq!(
                    f.object,
                    "CustomResourceDefinition stages.delivery.pacto.trianalab.io"
                );
            }
        }
        // A document without the Stage schema says nothing.
        assert_eq!(
            conditions_ownership(&json!({"components": {"schemas": {}}})),
            None
        );
    }

    /// A Stage that names both candidate sources is a finding (S06) naming both; with one it
    /// is none.
    #[test]
    fn two_candidate_sources_are_a_finding() {
        let both = json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
            "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"candidates": {"upstreamStage": {"name": "payments", "namespace": "test"},
                "ociRepositoryRef": {"name": "payments-candidates"}}}});
        let f = both_candidate_sources(&StageView::new(&both)).expect("a finding");
        assert_eq!((f.id, f.severity), ("S06", Severity::Warning));
        assert_eq!(f.object, "Stage prod/payments");
        assert_eq!(
            f.evidence,
            "spec.candidates.upstreamStage (Stage test/payments) and spec.candidates.ociRepositoryRef (OCIRepository prod/payments-candidates)"
        );
        let mut one = both.clone();
        one["spec"]["candidates"]["ociRepositoryRef"] = Value::Null;
        assert_eq!(both_candidate_sources(&StageView::new(&one)), None);
    }

    /// The shipped Stage CRD declares the list-map: no finding on its schema.
    #[test]
    fn the_example_stage_crd_is_owned_entry_by_entry() {
        let crd: Value = serde_saphyr::from_str(include_str!(
            "../../../examples/cluster/stages.delivery.pacto.trianalab.io.yaml"
        ))
        .unwrap();
        let schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
            ["status"]["properties"]["conditions"]
            .clone();
        assert_eq!(conditions_ownership(&document(Some(schema))), None);
    }
}

#[cfg(test)]
mod fleet_tests {
    use super::*;
    use crate::delivery::Snapshot;

    /// A failure of one object that many Stages share is one finding naming three Stages and
    /// counting the rest: N Stages sharing one apply OCIRepository give findings in
    /// proportion to N (each Stage's own, and one per shared object and reason), not N².
    #[test]
    fn a_failure_shared_by_stages_is_one_finding() {
        let findings = |n: usize| {
            let snapshot = Snapshot::from_objects(&crate::testutil::shared_apply_ref(n));
            let world = World::new(&snapshot);
            checks(&world, &[])
        };
        let small = findings(20);
        let large = findings(40);
        // Each Stage adds its own findings (SeveralAppliers, ApplyRefUnguarded, ...); none
        // grows with the fleet.
        let per_stage = (large.len() - small.len()) / 20;
        assert!(per_stage <= 4, "{per_stage} findings per Stage");
        assert_eq!((large.len() - small.len()) % 20, 0);
        // The apply OCIRepository's label names test/payments: one finding for the 40 copies.
        let repo: Vec<&Finding> = large
            .iter()
            .filter(|f| f.object == "OCIRepository test/payments" && f.id == "S02")
            .collect();
        assert_eq!(repo.len(), 1, "{repo:?}");
        assert_eq!(
            repo[0].evidence,
            "metadata.labels[\"delivery.pacto.trianalab.io/apply-ref\"] of OCIRepository test/payments (for Stage test/payments-1, Stage test/payments-2, Stage test/payments-3 and 37 more): ApplyRefUnguarded"
        );
        // Kustomization test/payments-1, labelled for its namesake, is unguarded for the 40
        // other Stages it applies for: one finding.
        let k1: Vec<&Finding> = large
            .iter()
            .filter(|f| f.object == "Kustomization test/payments-1")
            .collect();
        assert_eq!(k1.len(), 1, "{k1:?}");
        assert_eq!(
            k1[0].evidence,
            "metadata.labels[\"delivery.pacto.trianalab.io/apply-ref\"] of Kustomization test/payments-1 (for Stage test/payments, Stage test/payments-2, Stage test/payments-3 and 37 more): ApplierUnguarded"
        );
    }
}
