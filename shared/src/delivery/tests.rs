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
    assert_eq!(cases.len(), 42);
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

/// `n` Stages after base-flux's Stage test/payments, each taking its candidates from the one
/// before (`payments-1` from `payments`, `payments-2` from `payments-1`, ...).
fn chain(n: usize) -> Snapshot {
    let (mut snap, _) = snapshot(&json!({"base": "flux"}));
    let first = snap.stages[0].clone();
    for i in 1..=n {
        let mut s = first.clone();
        s["metadata"]["name"] = json!(format!("payments-{i}"));
        let up = match i {
            1 => "payments".to_string(),
            _ => format!("payments-{}", i - 1),
        };
        s["spec"]["candidates"] = json!({"upstreamStage": {"name": up}});
        snap.stages.push(s);
    }
    snap
}

/// The failure of the candidate rules of `namespace/name`.
fn candidate_failure(world: &World, namespace: &str, name: &str) -> Option<(String, String)> {
    let c = compute(world.stage(namespace, name).unwrap(), world);
    c.failures
        .iter()
        .find(|f| f.field.starts_with("spec.candidates"))
        .map(|f| (f.reason.to_string(), f.message.clone()))
}

/// "A downstream Stage takes only what its upstream lists in status.offered: versions that
/// passed the published gate and were verified there" ("Delivery reference: setup and gates",
/// "Set up a Stage"): an upstream that cannot verify its candidates makes every Stage below it
/// UpstreamUntrusted, and each message names the Stage just above and that Stage's reason,
/// not its explanation, so a message stays one sentence however long the chain.
#[test]
fn an_untrusted_upstream_is_named_with_its_reason_not_its_explanation() {
    let mut snap = chain(200);
    snap.stages[0]["spec"]["candidates"] =
        json!({"ociRepositoryRef": {"name": "payments-unsigned"}});
    let world = World::new(&snap);
    assert_eq!(
        candidate_failure(&world, "test", "payments-1"),
        Some((
            "UpstreamUntrusted".into(),
            "the upstream Stage test/payments cannot verify its own candidates: its Ready reason is CandidateNotFound".into()
        ))
    );
    for i in 2..=200 {
        let (reason, message) =
            candidate_failure(&world, "test", &format!("payments-{i}")).unwrap();
        assert_eq!(reason, "UpstreamUntrusted");
        assert_eq!(
            message,
            format!(
                "the upstream Stage test/payments-{} cannot verify its own candidates: its Ready reason is UpstreamUntrusted",
                i - 1
            )
        );
    }
    // Its Ready message holds the one sentence (and the other Ready failure of the copies,
    // which share the first Stage's apply OCIRepository).
    let c = compute(world.stage("test", "payments-200").unwrap(), &world);
    assert!(c.ready.message.len() < 400, "{}", c.ready.message);
}

/// A chain is followed to its first Stage through 256 upstream references; a Stage further down
/// is untrusted, named where the chain passes the bound, and those below it name the Stage above.
#[test]
fn a_chain_longer_than_the_bound_is_untrusted_below_it() {
    let world_snap = chain(260);
    let world = World::new(&world_snap);
    assert_eq!(candidate_failure(&world, "test", "payments-256"), None);
    assert_eq!(
        candidate_failure(&world, "test", "payments-257"),
        Some((
            "UpstreamUntrusted".into(),
            "the upstream chain from Stage test/payments-257 is longer than 256 Stages: not followed further".into()
        ))
    );
    assert_eq!(
        candidate_failure(&world, "test", "payments-258").map(|f| f.1),
        Some("the upstream Stage test/payments-257 cannot verify its own candidates: its Ready reason is UpstreamUntrusted".into())
    );
    // Another bound (`--max-upstream-depth`): followed through 300, the whole chain is
    // trusted; through 3, the fourth Stage down is where it stops.
    let world = World::new(&world_snap).with_max_upstream_depth(300);
    assert_eq!(candidate_failure(&world, "test", "payments-260"), None);
    let world = World::new(&world_snap).with_max_upstream_depth(3);
    assert_eq!(candidate_failure(&world, "test", "payments-3"), None);
    assert_eq!(
        candidate_failure(&world, "test", "payments-4"),
        Some((
            "UpstreamUntrusted".into(),
            "the upstream chain from Stage test/payments-4 is longer than 3 Stages: not followed further".into()
        ))
    );
}

/// A loop of upstream references is named on each Stage of it, and not followed again; a Stage
/// that takes its candidates from the loop names the Stage of the loop it points at.
#[test]
fn a_loop_is_named_on_each_of_its_stages() {
    let mut snap = chain(4);
    // payments-1 -> payments-3 -> payments-2 -> payments-1; payments-4 -> payments-3.
    snap.stages[1]["spec"]["candidates"] = json!({"upstreamStage": {"name": "payments-3"}});
    let world = World::new(&snap);
    for i in 1..=3 {
        let me = format!("Stage test/payments-{i}");
        assert_eq!(
            candidate_failure(&world, "test", &format!("payments-{i}")),
            Some((
                "UpstreamUntrusted".into(),
                format!(
                    "the upstream chain from {me} leads back to {me}: no version ever enters it"
                )
            ))
        );
    }
    assert_eq!(
        candidate_failure(&world, "test", "payments-4").map(|f| f.1),
        Some("the upstream Stage test/payments-3 cannot verify its own candidates: its Ready reason is UpstreamUntrusted".into())
    );
    // The first Stage, outside the loop, is untouched.
    assert_eq!(candidate_failure(&world, "test", "payments"), None);
}

/// An upstream Stage whose own candidate OCIRepository could not be read leaves the Stages
/// below it undecided, each saying why.
#[test]
fn an_undecided_upstream_leaves_the_chain_undecided() {
    let mut snap = chain(3);
    snap.stages[0]["spec"]["candidates"] =
        json!({"ociRepositoryRef": {"name": "payments-candidates", "namespace": "vendor"}});
    let read = |ns: &[&str]| -> std::collections::BTreeMap<String, Option<String>> {
        ns.iter().map(|n| (n.to_string(), None)).collect()
    };
    let mut partial = super::snapshot::Partial {
        oci_repositories: read(&["test"]),
        kustomizations: read(&["test"]),
        applications: read(&["test"]),
        stages: Vec::new(),
    };
    partial
        .oci_repositories
        .insert("vendor".into(), Some("forbidden".into()));
    let world = World::read_in(&snap, &partial);
    let c = compute(world.stage("test", "payments-3").unwrap(), &world);
    // (The copies share the first Stage's apply OCIRepository: ApplierUnlabelled decides
    // Ready; the candidate rule is undecided.)
    assert_eq!(
        (c.rules[0].reason, c.rules[0].verdict),
        ("CandidateUnverified", "unknown")
    );
    assert_eq!(
        c.unreadable,
        ["OCIRepositories (source.toolkit.fluxcd.io) in namespace \"vendor\" could not be read: forbidden"]
    );
}

/// base-flux with `n` more Stages sharing its apply OCIRepository and `n` more Kustomizations
/// applying it ([`crate::testutil::shared_apply_ref`]).
fn shared_apply_ref(n: usize) -> Snapshot {
    Snapshot::from_objects(&crate::testutil::shared_apply_ref(n))
}

/// Stages sharing one apply OCIRepository with many appliers ("Delivery reference: setup and
/// gates": one applier applies the pointer, else SeveralAppliers, which comes before the
/// appliers' own rules): the reason stays SeveralAppliers, its message names three appliers and
/// counts the rest, only the first ten appliers' rules are checked (the verdict of those not
/// checked is unknown, not pass), and the condition's message gives five more failures and a
/// count. So each Stage costs the same whatever the fleet: N Stages and N appliers give N
/// failures of each Stage, not N².
#[test]
fn stages_sharing_one_applier_set_cost_the_same_each() {
    let n = 200;
    let snap = shared_apply_ref(n);
    let world = World::new(&snap);
    // The apply OCIRepository is labelled for test/payments: the copies fail ApplyRefUnguarded
    // first; test/payments itself shows the appliers' rules.
    let copy = compute(world.stage("test", "payments-7").unwrap(), &world);
    assert_eq!(copy.mediated.reason, "ApplyRefUnguarded");
    let c = compute(world.stage("test", "payments").unwrap(), &world);
    assert_eq!(c.mediated.status, "False");
    assert_eq!(c.mediated.reason, "SeveralAppliers");
    let several = c
        .failures
        .iter()
        .find(|f| f.reason == "SeveralAppliers")
        .unwrap();
    assert_eq!(
        several.message,
        format!("{} appliers apply the pointer (Kustomization test/payments, Kustomization test/payments-1, Kustomization test/payments-2 and {} more): each can apply it differently (the rules of the first 10 are checked below)", n + 1, n - 2)
    );
    // Of the first ten appliers, the nine labelled for the copies fail ApplierUnguarded;
    // test/payments's own Kustomization, the first, passes.
    let unguarded: Vec<&str> = c
        .failures
        .iter()
        .filter(|f| f.reason == "ApplierUnguarded")
        .map(|f| f.object.as_str())
        .collect();
    assert_eq!(unguarded.len(), 9, "{unguarded:?}");
    assert!(!unguarded.contains(&"Kustomization test/payments"));
    assert_eq!(unguarded[8], "Kustomization test/payments-9");
    let mediated_failures = c
        .failures
        .iter()
        .filter(|f| f.condition == "Mediated")
        .count();
    assert_eq!(mediated_failures, 10);
    assert!(
        c.mediated
            .message
            .ends_with("; and 4 more failures (explain lists them)"),
        "{}",
        c.mediated.message
    );
    assert_eq!(c.mediated.message.matches("; ").count(), 6);
    let rule = c
        .rules
        .iter()
        .find(|r| r.reason == "ApplierUnguarded")
        .unwrap();
    assert_eq!(rule.verdict, "fail");

    // Every applier well labelled but more than ten: those not checked leave the verdict
    // unknown.
    let mut snap = shared_apply_ref(11);
    let Some(Ok(ks)) = &mut snap.kustomizations else {
        panic!()
    };
    for k in ks.iter_mut() {
        k["metadata"]["labels"]["delivery.pacto.trianalab.io/apply-ref"] = json!("payments");
    }
    let world = World::new(&snap);
    let c = compute(world.stage("test", "payments").unwrap(), &world);
    assert_eq!(c.mediated.reason, "SeveralAppliers");
    let rule = c
        .rules
        .iter()
        .find(|r| r.reason == "ApplierUnguarded")
        .unwrap();
    assert_eq!(rule.verdict, "unknown");

    // The explanation lists ten appliers and counts the rest.
    let snap = shared_apply_ref(n);
    let world = World::new(&snap);
    let stage = world.stage("test", "payments").unwrap();
    let rows = stage_rows(stage, &compute(stage, &world), &world);
    let listed = rows
        .iter()
        .skip_while(|r| r.key != "Appliers")
        .skip(1)
        .take_while(|r| r.indent == 1)
        .map(|r| r.value.as_str())
        .collect::<Vec<_>>();
    assert_eq!(listed.len(), 11, "{listed:?}");
    assert_eq!(
        listed[10],
        format!("and {} more (-o json lists them all)", n + 1 - 10)
    );
}
