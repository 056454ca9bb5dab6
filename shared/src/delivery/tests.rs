//! The reason table of `testdata/cases.yaml` ("Delivery reference: setup and gates"), each case run
//! through the real computation and the explanation.

use super::explain::{stage_json, stage_rows};
use super::view::{ListedObjects, Snapshot, StageView};
use super::{compute, World};
use serde_json::{json, Value};

use crate::testutil::{docs as yaml_docs, edit};

/// The snapshot of a case: the base's objects, edited.
fn snapshot(case: &Value) -> (Snapshot, (&'static str, &'static str)) {
    let (base, stage) = match case["base"].as_str().unwrap() {
        "flux" => (
            include_str!("testdata/base-flux.yaml"),
            ("test", "payments"),
        ),
        "argo" => (include_str!("testdata/base-argo.yaml"), ("shop", "orders")),
        other => panic!("unknown base {other}"),
    };
    let mut objects = yaml_docs(base);
    let mut unlisted: Vec<String> = Vec::new();
    let mut unreadable: Vec<(String, String)> = Vec::new();
    for e in edit(&mut objects, &case["edits"]) {
        if let Some(k) = e.get("unlisted") {
            unlisted.push(k.as_str().unwrap().to_string());
        } else if let Some(u) = e.get("unreadable") {
            unreadable.push((
                u["kind"].as_str().unwrap().to_string(),
                u["why"].as_str().unwrap().to_string(),
            ));
        } else {
            panic!("unknown edit {e}");
        }
    }
    let of = |kind: &str| -> ListedObjects {
        if unlisted.iter().any(|k| k == kind) {
            return None;
        }
        if let Some((_, why)) = unreadable.iter().find(|(k, _)| k == kind) {
            return Some(Err(why.clone()));
        }
        Some(Ok(objects
            .iter()
            .filter(|o| o["kind"] == json!(kind))
            .cloned()
            .collect()))
    };
    let snap = Snapshot {
        stages: objects
            .iter()
            .filter(|o| o["kind"] == json!("Stage"))
            .cloned()
            .collect(),
        oci_repositories: of("OCIRepository"),
        kustomizations: of("Kustomization"),
        applications: of("Application"),
    };
    (snap, stage)
}

#[test]
fn every_reason_of_seed_001() {
    let table: Value =
        serde_saphyr::from_str(include_str!("testdata/cases.yaml")).expect("cases.yaml");
    let cases = table["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 40);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let (snap, (ns, stage_name)) = snapshot(case);
        let world = World::new(&snap);
        let stage = world
            .stage(ns, stage_name)
            .unwrap_or_else(|| panic!("{name}: no Stage {ns}/{stage_name}"))
            .clone();
        let c = compute(&stage, &world);
        let want = |k: &str| {
            (
                case[k][0].as_str().unwrap().to_string(),
                case[k][1].as_str().unwrap().to_string(),
            )
        };
        assert_eq!(
            (c.ready.status.to_string(), c.ready.reason.clone()),
            want("ready"),
            "{name}: Ready ({})",
            c.ready.message
        );
        assert_eq!(
            (c.mediated.status.to_string(), c.mediated.reason.clone()),
            want("mediated"),
            "{name}: Mediated ({})",
            c.mediated.message
        );
        let got: Vec<String> = c
            .failures
            .iter()
            .map(|f| format!("{} {} {}", f.condition, f.reason, f.field))
            .collect();
        let expected: Vec<String> = case["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, expected, "{name}: failures");
        if let Some(notes) = case.get("notes") {
            let notes: Vec<&str> = notes
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            assert_eq!(world.notes, notes, "{name}: notes");
        }
        // A False condition names every other failure of its kind in its message.
        for cond in [&c.ready, &c.mediated] {
            for f in c.failures.iter().filter(|f| f.condition == cond.type_) {
                if f.reason != cond.reason {
                    assert!(
                        cond.message.contains(&format!("{}: ", f.reason)),
                        "{name}: {} message lacks {}: {}",
                        cond.type_,
                        f.reason,
                        cond.message
                    );
                }
            }
        }
        // The explanation: both conditions, and for each failure its field and fix.
        let rows = stage_rows(&stage, &c, &world);
        for cond in c.conditions() {
            let row = rows
                .iter()
                .find(|r| r.indent == 0 && r.key == cond.type_)
                .unwrap_or_else(|| panic!("{name}: no {} row", cond.type_));
            assert!(
                row.value
                    .starts_with(&format!("{} {}: ", cond.status, cond.reason)),
                "{name}: {}",
                row.value
            );
        }
        for f in &c.failures {
            let at = rows
                .iter()
                .position(|r| r.indent == 0 && r.key == f.reason && r.value == f.message)
                .unwrap_or_else(|| panic!("{name}: no row for {}", f.reason));
            assert_eq!(rows[at + 1].key, "Object", "{name}");
            assert_eq!(
                (rows[at + 2].key.as_str(), rows[at + 2].value.as_str()),
                ("Field", f.field.as_str()),
                "{name}"
            );
            assert_eq!(rows[at + 3].key, "Fix", "{name}");
            assert!(!rows[at + 3].value.is_empty(), "{name}: empty fix");
        }
        // As data: the conditions a reconcile would write, Ready then Mediated.
        let data = stage_json(&stage, &c, &world);
        let conditions = data["conditions"].as_array().unwrap();
        assert_eq!(conditions.len(), 2);
        assert_eq!(conditions[0]["type"], json!("Ready"));
        assert_eq!(conditions[0]["status"], json!(c.ready.status));
        assert_eq!(conditions[0]["reason"], json!(c.ready.reason));
        assert_eq!(conditions[1]["type"], json!("Mediated"));
        assert_eq!(conditions[1]["reason"], json!(c.mediated.reason));
    }
}

/// What is written and what is computed are told apart in the explanation.
#[test]
fn a_written_condition_that_differs_is_shown() {
    let (snap, _) = snapshot(&json!({"base": "flux"}));
    let mut snap = snap;
    snap.stages[0]["status"] = json!({"conditions": [
        {"type": "Ready", "status": "True", "reason": "Promotable"},
        {"type": "Mediated", "status": "False", "reason": "ApplierUnscoped", "message": "old"}]});
    let world = World::new(&snap);
    let stage = StageView::new(&snap.stages[0]);
    let c = compute(&stage, &world);
    let rows = stage_rows(&stage, &c, &world);
    let written: Vec<&str> = rows
        .iter()
        .filter(|r| r.key == "Written")
        .map(|r| r.value.as_str())
        .collect();
    assert_eq!(
        written,
        [
            "True Promotable (the same)",
            "False ApplierUnscoped: old (differs from what is computed here)"
        ]
    );
}

/// The shipped examples (examples/delivery) and the broken Stages beside the tests
/// (tests/fixtures/mistakes/delivery), read as one set, give the conditions their READMEs promise.
#[test]
fn the_examples_are_what_their_readme_says() {
    let files = [
        include_str!("../../../examples/delivery/flux-payments.yaml"),
        include_str!("../../../examples/delivery/argo-orders.yaml"),
        include_str!("../../../tests/fixtures/mistakes/delivery/broken-unlabelled.yaml"),
        include_str!("../../../tests/fixtures/mistakes/delivery/broken-open-identity.yaml"),
        include_str!("../../../tests/fixtures/mistakes/delivery/broken-unscoped.yaml"),
        include_str!("../../../tests/fixtures/mistakes/delivery/broken-two-sources.yaml"),
        include_str!("../../../examples/delivery/operation-held.yaml"),
    ];
    let objects: Vec<Value> = files.iter().flat_map(|f| yaml_docs(f)).collect();
    let of = |kind: &str| -> Vec<Value> {
        objects
            .iter()
            .filter(|o| o["kind"] == json!(kind))
            .cloned()
            .collect()
    };
    let snap = Snapshot {
        stages: of("Stage"),
        oci_repositories: Some(Ok(of("OCIRepository"))),
        kustomizations: Some(Ok(of("Kustomization"))),
        applications: Some(Ok(of("Application"))),
    };
    let world = World::new(&snap);
    let expected = [
        (
            "payments-test",
            "payments",
            ("True", "Promotable"),
            ("True", "PointerDecides"),
        ),
        (
            "orders-prod",
            "orders",
            ("True", "Promotable"),
            ("True", "PointerDecides"),
        ),
        (
            "billing-test",
            "billing",
            ("False", "ApplierUnlabelled"),
            ("False", "ApplyRefUnguarded"),
        ),
        (
            "search-test",
            "search",
            ("False", "CandidateUnverified"),
            ("True", "PointerDecides"),
        ),
        (
            "ledger-test",
            "ledger",
            ("True", "Promotable"),
            ("False", "ApplierUnscoped"),
        ),
        (
            "cart-prod",
            "cart",
            ("True", "Promotable"),
            ("False", "SeveralSources"),
        ),
    ];
    assert_eq!(world.stages.len(), expected.len());
    for (ns, name, ready, mediated) in expected {
        let c = compute(world.stage(ns, name).unwrap(), &world);
        assert_eq!(
            (c.ready.status, c.ready.reason.as_str()),
            ready,
            "{ns}/{name}"
        );
        assert_eq!(
            (c.mediated.status, c.mediated.reason.as_str()),
            mediated,
            "{ns}/{name}"
        );
    }
}

/// A long upstream chain is followed to its first Stage (only a loop, or more than 256 Stages,
/// is untrusted); an object given twice is read as the last one, as `kubectl apply` leaves it.
#[test]
fn long_chains_and_duplicates() {
    let (mut snap, _) = snapshot(&json!({"base": "flux"}));
    let first = snap.stages[0].clone();
    for i in 1..40 {
        let mut s = first.clone();
        s["metadata"]["name"] = json!(format!("payments-{i}"));
        let up = if i == 1 {
            "payments".to_string()
        } else {
            format!("payments-{}", i - 1)
        };
        s["spec"]["candidates"] = json!({"upstreamStage": {"name": up}});
        snap.stages.push(s);
    }
    let world = World::new(&snap);
    let last = world.stage("test", "payments-39").unwrap();
    let c = compute(last, &world);
    // (The copies share the first Stage's apply repository, so ApplierUnlabelled is expected;
    // the chain itself is trusted.)
    let candidate_reasons: Vec<&str> = c
        .failures
        .iter()
        .filter(|f| f.field.starts_with("spec.candidates"))
        .map(|f| f.reason)
        .collect();
    assert!(candidate_reasons.is_empty(), "{candidate_reasons:?}");
    // The candidate repository given twice, the last copy unverified: the last one is read.
    let (mut snap, _) = snapshot(&json!({"base": "flux"}));
    let Some(Ok(repos)) = &mut snap.oci_repositories else {
        panic!()
    };
    let mut unverified = repos
        .iter()
        .find(|r| r["metadata"]["name"] == json!("payments-candidates"))
        .unwrap()
        .clone();
    unverified["spec"]["verify"] = Value::Null;
    repos.push(unverified);
    let world = World::new(&snap);
    let c = compute(world.stage("test", "payments").unwrap(), &world);
    assert_eq!(c.ready.reason, "CandidateUnverified");
    assert_eq!(
        world.notes,
        ["OCIRepositories (source.toolkit.fluxcd.io) test/payments-candidates is given twice: the last one is read"]
    );
}
