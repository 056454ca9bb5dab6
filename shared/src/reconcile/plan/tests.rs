//! The plan against metav1.Condition conventions: idempotence, transition times, others'
//! conditions, and the write each list type needs.

use super::*;
use crate::delivery::view::Snapshot;
use crate::testutil::docs;

const NOW: &str = "2026-11-29T12:00:00Z";

fn world_of(objects: &[Value]) -> World {
    let of = |k: &str| {
        objects
            .iter()
            .filter(|o| o["kind"] == json!(k))
            .cloned()
            .collect::<Vec<_>>()
    };
    World::new(&Snapshot {
        stages: of("Stage"),
        oci_repositories: Some(Ok(of("OCIRepository"))),
        kustomizations: Some(Ok(of("Kustomization"))),
        applications: Some(Ok(of("Application"))),
    })
}

fn base() -> Vec<Value> {
    let mut objects = docs(include_str!("../../delivery/testdata/base-flux.yaml"));
    objects[0]["metadata"]["generation"] = json!(2);
    objects[0]["metadata"]["resourceVersion"] = json!("41");
    objects
}

#[test]
fn a_new_stage_gets_both_conditions_and_a_second_plan_writes_nothing() {
    let objects = base();
    let world = world_of(&objects);
    let c = plan_stage(&objects[0], &world, ListType::MapByType, NOW);
    let Some(Write::Apply(body)) = &c.write else {
        panic!("an apply: {c:?}")
    };
    assert_eq!(body["status"]["observedGeneration"], json!(2));
    let conds = body["status"]["conditions"].as_array().unwrap();
    assert_eq!(conds.len(), 2);
    assert_eq!(conds[0]["type"], json!("Ready"));
    assert_eq!(conds[0]["status"], json!("True"));
    assert_eq!(conds[0]["reason"], json!("Promotable"));
    assert_eq!(conds[0]["lastTransitionTime"], json!(NOW));
    assert_eq!(conds[0]["observedGeneration"], json!(2));
    assert_eq!(conds[1]["type"], json!("Mediated"));
    assert_eq!(
        c.why,
        [
            "Ready is not written",
            "Mediated is not written",
            "status.observedGeneration <none> becomes 2"
        ]
    );
    // Written as planned, the next plan is empty.
    let mut written = objects.clone();
    written[0]["status"] = body["status"].clone();
    let again = plan_stage(
        &written[0],
        &world_of(&written),
        ListType::MapByType,
        "2026-11-29T13:00:00Z",
    );
    assert_eq!(again.write, None, "{:?}", again.why);
}

#[test]
fn the_transition_time_moves_only_with_the_status() {
    let mut objects = base();
    objects[0]["status"] = json!({"observedGeneration": 1, "conditions": [
        {"type": "Ready", "status": "True", "reason": "Promotable", "message": "old words", "lastTransitionTime": "2026-11-01T00:00:00Z", "observedGeneration": 1},
        {"type": "Mediated", "status": "False", "reason": "ApplierUnscoped", "message": "m", "lastTransitionTime": "2026-11-02T00:00:00Z", "observedGeneration": 1}]});
    let c = plan_stage(&objects[0], &world_of(&objects), ListType::MapByType, NOW);
    let body = c.write.unwrap();
    let conds = body.body()["status"]["conditions"]
        .as_array()
        .unwrap()
        .clone();
    // Ready stayed True: its transition time is kept; Mediated went False → True: now.
    assert_eq!(
        conds[0]["lastTransitionTime"],
        json!("2026-11-01T00:00:00Z")
    );
    assert_eq!(conds[1]["lastTransitionTime"], json!(NOW));
    assert_eq!(
        c.why[1],
        "Mediated False ApplierUnscoped becomes True PointerDecides"
    );
}

#[test]
fn an_atomic_list_is_written_whole_with_others_kept_and_guarded() {
    let mut objects = base();
    objects[0]["status"] = json!({"conditions": [
        {"type": "Frozen", "status": "False", "reason": "NotFrozen", "message": "", "lastTransitionTime": "2026-11-01T00:00:00Z"},
        {"type": "Ready", "status": "False", "reason": "NoCandidateSource", "message": "x", "lastTransitionTime": "2026-11-01T00:00:00Z"}]});
    let c = plan_stage(&objects[0], &world_of(&objects), ListType::Atomic, NOW);
    let Some(Write::GuardedMerge(body)) = &c.write else {
        panic!("a guarded merge: {c:?}")
    };
    assert_eq!(body["metadata"]["resourceVersion"], json!("41"));
    let types: Vec<&str> = body["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["Frozen", "Ready", "Mediated"]);
    assert_eq!(
        body["status"]["conditions"][0]["reason"],
        json!("NotFrozen")
    );
    assert_eq!(
        body["status"]["conditions"][1]["reason"],
        json!("Promotable")
    );
}

#[test]
fn a_failing_stage_writes_its_seed_order_reason() {
    let mut objects = base();
    objects.retain(|o| o["kind"] != json!("Kustomization"));
    let c = plan_stage(&objects[0], &world_of(&objects), ListType::MapByType, NOW);
    assert_eq!(c.conditions[1].status, "False");
    assert_eq!(c.conditions[1].reason, "NoApplier");
    let body = c.write.unwrap();
    assert_eq!(
        body.body()["status"]["conditions"][1]["reason"],
        json!("NoApplier")
    );
}
