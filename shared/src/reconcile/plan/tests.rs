//! The plan against metav1.Condition conventions: idempotence, transition times, others'
//! conditions, and the write each list type needs.

use super::*;
use crate::delivery::view::Snapshot;
use crate::testutil::docs;

const NOW: &str = "2026-11-29T12:00:00Z";

fn world_of(objects: &[Value]) -> World<'static> {
    let of = |k: &str| {
        objects
            .iter()
            .filter(|o| o["kind"] == json!(k))
            .cloned()
            .collect::<Vec<_>>()
    };
    World::new(crate::testutil::kept(Snapshot {
        stages: of("Stage"),
        oci_repositories: Some(Ok(of("OCIRepository"))),
        kustomizations: Some(Ok(of("Kustomization"))),
        applications: Some(Ok(of("Application"))),
    }))
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

/// apimachinery `meta.SetStatusCondition`: `lastTransitionTime` moves only when the status does;
/// a new reason (or message) under the same status keeps it.
#[test]
fn a_new_reason_under_the_same_status_keeps_the_transition_time() {
    let mut objects = base();
    let computed =
        plan_stage(&objects[0], &world_of(&objects), ListType::MapByType, NOW).conditions;
    let earlier = "2026-11-01T00:00:00Z";
    let written: Vec<Value> = computed
        .iter()
        .map(|c| json!({"type": c.type_, "status": c.status, "reason": "Earlier",
                        "message": c.message, "lastTransitionTime": earlier, "observedGeneration": 2}))
        .collect();
    objects[0]["status"] = json!({"observedGeneration": 2, "conditions": written});
    let c = plan_stage(&objects[0], &world_of(&objects), ListType::MapByType, NOW);
    let body = c.write.expect("the reasons change").body().clone();
    for (i, cond) in computed.iter().enumerate() {
        let out = &body["status"]["conditions"][i];
        assert_eq!(out["reason"], json!(cond.reason), "{}", cond.type_);
        assert_eq!(out["lastTransitionTime"], json!(earlier), "{}", cond.type_);
        assert_eq!(
            c.why[i],
            format!(
                "{} {} Earlier becomes {} {}",
                cond.type_, cond.status, cond.status, cond.reason
            )
        );
    }
}

/// A condition is the same only at the Stage's generation: one written at an older generation
/// (its own `observedGeneration`, metav1.Condition's field) is written again, even when the
/// status's `observedGeneration` is current and the words agree.
#[test]
fn a_condition_of_an_older_generation_is_written_again() {
    let objects = base();
    let c = plan_stage(&objects[0], &world_of(&objects), ListType::MapByType, NOW);
    let mut written = objects.clone();
    written[0]["status"] = c.write.unwrap().body()["status"].clone();
    written[0]["status"]["conditions"][0]["observedGeneration"] = json!(1);
    let again = plan_stage(&written[0], &world_of(&written), ListType::MapByType, NOW);
    assert!(again.write.is_some());
    assert_eq!(again.why, vec!["Ready was computed at generation 1"]);
    assert_eq!(
        again.write.unwrap().body()["status"]["conditions"][0]["observedGeneration"],
        json!(2)
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

/// Two entries of our type in an atomic list (a writer that appended): the write holds one per
/// type, in the place of the first; it is written even when the first already says it.
#[test]
fn one_entry_per_type_of_ours() {
    let mut objects = base();
    let world = world_of(&objects);
    let first = plan_stage(&objects[0], &world, ListType::Atomic, NOW);
    let Some(Write::GuardedMerge(body)) = first.write else {
        panic!("a write")
    };
    let mut conditions = body["status"]["conditions"].as_array().unwrap().clone();
    let frozen = json!({"type": "Frozen", "status": "False", "reason": "NotFrozen", "message": "",
        "lastTransitionTime": "2026-11-01T00:00:00Z"});
    let stale = json!({"type": "Ready", "status": "True", "reason": "Promotable", "message": "stale",
        "lastTransitionTime": "2026-11-01T00:00:00Z", "observedGeneration": 1});
    conditions.insert(1, frozen.clone());
    conditions.push(stale);
    objects[0]["status"] = json!({"observedGeneration": 2, "conditions": conditions});
    let c = plan_stage(&objects[0], &world_of(&objects), ListType::Atomic, NOW);
    assert_eq!(c.why, ["Ready is written 2 times"]);
    let Some(Write::GuardedMerge(body)) = &c.write else {
        panic!("a write: {c:?}")
    };
    let list = body["status"]["conditions"].as_array().unwrap();
    let types: Vec<&str> = list.iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["Ready", "Frozen", "Mediated"]);
    assert_eq!(list[1], frozen);
    assert_ne!(list[0]["message"], json!("stale"));
}

/// A merge patch needs the resourceVersion it is guarded by (a non-empty string); without it
/// nothing is written and the change says why. Server-side apply needs none.
#[test]
fn no_guard_no_merge_patch() {
    for rv in [None, Some(json!("")), Some(json!(41)), Some(Value::Null)] {
        let mut objects = base();
        match &rv {
            None => {
                objects[0]["metadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("resourceVersion");
            }
            Some(v) => objects[0]["metadata"]["resourceVersion"] = v.clone(),
        }
        let world = world_of(&objects);
        let c = plan_stage(&objects[0], &world, ListType::Atomic, NOW);
        assert_eq!(c.write, None, "{rv:?}");
        assert_eq!(
            c.refused.as_deref(),
            Some("the Stage carries no metadata.resourceVersion to guard the merge patch of its whole conditions list")
        );
        let applied = plan_stage(&objects[0], &world, ListType::MapByType, NOW);
        assert!(matches!(applied.write, Some(Write::Apply(_))), "{rv:?}");
        assert_eq!(applied.refused, None);
    }
}

/// observedGeneration is copied only from an int64 `metadata.generation` (apimachinery's
/// `ObjectMeta.Generation`): 2^70, a fraction or a string leave it out of the body (and out of
/// the comparison: a later run does not write again for it); 2^63-1 and a whole float are
/// copied.
#[test]
fn observed_generation_only_from_an_int64() {
    let too_big: Value = serde_json::from_str("1180591620717411303424").unwrap();
    for (generation, copied) in [
        (too_big, None),
        (json!("2"), None),
        (json!(2.5), None),
        (json!(9_223_372_036_854_775_807_i64), Some(i64::MAX)),
        (json!(3.0), Some(3)),
    ] {
        for list_type in [ListType::MapByType, ListType::Atomic] {
            let mut objects = base();
            objects[0]["metadata"]["generation"] = generation.clone();
            objects[0]["status"] = json!({"observedGeneration": 1});
            let c = plan_stage(&objects[0], &world_of(&objects), list_type, NOW);
            let body = c.write.expect("conditions to write");
            let status = &body.body()["status"];
            assert_eq!(
                status.get("observedGeneration").map(|g| g.as_i64()),
                copied.map(Some),
                "{generation} {list_type:?}"
            );
            for cond in status["conditions"].as_array().unwrap() {
                assert_eq!(
                    cond.get("observedGeneration").and_then(Value::as_i64),
                    copied,
                    "{generation}"
                );
            }
            if copied.is_none() {
                assert!(
                    !c.why
                        .iter()
                        .any(|w| w.starts_with("status.observedGeneration")),
                    "{:?}",
                    c.why
                );
            }
        }
    }
}
