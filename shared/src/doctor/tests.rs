//! The check table of `testdata/cases.yaml`: the base (the recommended gates of examples/ and
//! well-configured objects) passes every check, and each case breaks one.

use super::{run, ClusterFacts, Input};
use crate::testutil::{docs, edit};
use serde_json::{json, Value};

const NOW: &str = "2026-11-29T12:00:00Z";

fn base() -> Vec<Value> {
    let mut objects = docs(include_str!("../../../examples/argocd-cm.yaml"));
    let mut k = docs(include_str!(
        "../../../examples/flux/kustomization-gated.yaml"
    ));
    k[0]["status"] = json!({"inventory": {"entries": [
        {"id": "shop_orders_pacto.trianalab.io_Pacto", "v": "v1alpha1"},
        {"id": "coder_docker-v2_coder.com_CoderTemplateTest", "v": "v1alpha1"}]}});
    objects.extend(k);
    objects.extend(docs(include_str!("testdata/objects.yaml")));
    objects
}

fn unix(t: &str) -> i64 {
    t.parse::<jiff::Timestamp>().unwrap().as_second()
}

fn ids_of(input: &Input) -> (Vec<String>, super::Report) {
    let report = run(input);
    let mut ids: Vec<String> = report.findings.iter().map(|f| f.id.to_string()).collect();
    ids.sort();
    ids.dedup();
    (ids, report)
}

fn input(objects: Vec<Value>, cluster: ClusterFacts) -> Input {
    Input {
        objects,
        cluster,
        unreadable: Vec::new(),
        stabilization_window: 120,
        now_unix: unix(NOW),
        live: true,
        max_upstream_depth: None,
    }
}

#[test]
fn the_base_passes_every_check_and_each_case_breaks_one() {
    let table: Value = serde_saphyr::from_str(include_str!("testdata/cases.yaml")).unwrap();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let (ids, report) = ids_of(&input(base(), ClusterFacts::default()));
    assert_eq!(ids, strings(&table["base"]), "base: {:#?}", report.findings);
    assert_eq!(report.exit_code(), 0);
    let cases = table["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 46);
    let mut covered = std::collections::BTreeSet::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut objects = base();
        for e in edit(&mut objects, &case["edits"]) {
            let r = &e["rename"];
            let cm = objects
                .iter_mut()
                .find(|o| o["metadata"]["name"] == json!("argocd-cm"))
                .unwrap();
            let data = cm["data"].as_object_mut().unwrap();
            let v = data
                .remove(r["from"].as_str().unwrap())
                .expect("a key to rename");
            data.insert(r["to"].as_str().unwrap().to_string(), v);
        }
        let mut cluster = ClusterFacts::default();
        if let Some(c) = case.get("cluster") {
            cluster.controller_started = Some((
                unix(c["controller_started"].as_str().unwrap()),
                "argocd-application-controller-0".into(),
            ));
            cluster.pacto_key_written = Some(unix(c["pacto_key_written"].as_str().unwrap()));
        }
        let (ids, report) = ids_of(&input(objects, cluster));
        let want = strings(&case["ids"]);
        assert_eq!(ids, want, "{name}: {:#?}", report.findings);
        let id = &name[..3];
        // A case marked `passes` pins the edge of its check from the passing side: its own ID
        // must not fire.
        let passes = case.get("passes") == Some(&json!(true));
        assert_eq!(ids.iter().any(|i| i == id), !passes, "{name}");
        if !passes {
            covered.insert(id.to_string());
        }
        // Every finding says what decided it and, unless it is info, how to fix it.
        for f in &report.findings {
            assert!(
                !f.evidence.is_empty() && !f.finding.is_empty(),
                "{name}: {f:?}"
            );
            if f.severity != super::Severity::Info {
                assert!(!f.fix.is_empty(), "{name}: no fix: {f:?}");
            }
        }
        let expected_exit = u8::from(
            report
                .findings
                .iter()
                .any(|f| f.severity != super::Severity::Info),
        );
        assert_eq!(report.exit_code(), expected_exit);
    }
    // 32 checks broken one by one; the two info checks (A10, F08: where the Warning knob sits)
    // speak on the base itself.
    assert_eq!(covered.len(), 32, "{covered:?}");
}

/// tests/fixtures/broken: each break reported once, naming its object (its README's table).
#[test]
fn each_break_of_the_broken_set_is_reported_once() {
    let mut objects = Vec::new();
    for text in [
        include_str!("../../../tests/fixtures/broken/argocd-cm.yaml"),
        include_str!("../../../tests/fixtures/broken/kustomization.yaml"),
        include_str!("../../../tests/fixtures/broken/pacto.yaml"),
        include_str!("../../../tests/fixtures/broken/codertemplatetest.yaml"),
        include_str!("../../../tests/fixtures/broken/stage.yaml"),
    ] {
        objects.extend(docs(text));
    }
    let report = run(&Input {
        live: false,
        ..input(objects, ClusterFacts::default())
    });
    let got: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity != super::Severity::Info)
        .map(|f| format!("{} {}", f.id, f.object))
        .collect();
    assert_eq!(
        got,
        [
            "A01 ConfigMap argocd/argocd-cm",
            "A03 ConfigMap argocd/argocd-cm",
            "F06 Kustomization flux-system/shop-prod",
            "F07 Kustomization flux-system/shop-prod",
            "F10 Kustomization flux-system/shop-prod",
            "S02 Kustomization ledger-test/ledger",
            "O01 Pacto shop/orders",
            "C03 CoderTemplateTest coder/docker-v3",
            "S01 OCIRepository ledger-test/ledger-candidates",
        ],
        "{:#?}",
        report.findings
    );
    assert_eq!(report.exit_code(), 1);
}

/// One typo, one finding: a Pacto key Argo CD refuses (its group kind malformed) is reported
/// once, as the refusal, with the rename as its fix, not again as a near miss of the key.
#[test]
fn a_refused_near_miss_of_the_pacto_key_is_one_finding() {
    let mut objects = base();
    let cm = &mut objects[0];
    let data = cm["data"].as_object_mut().unwrap();
    let script = data
        .shift_remove("resource.customizations.health.pacto.trianalab.io_Pacto")
        .unwrap();
    data.insert(
        "resource.customizations.health.pacto_trianalab.io_Pacto".into(),
        script,
    );
    let report = run(&input(objects, ClusterFacts::default()));
    let a01: Vec<_> = report.findings.iter().filter(|f| f.id == "A01").collect();
    assert_eq!(a01.len(), 1, "{a01:#?}");
    assert!(
        a01[0]
            .finding
            .starts_with("Argo CD refuses this configuration"),
        "{a01:#?}"
    );
    assert_eq!(
        a01[0].fix,
        "rename the data key \"resource.customizations.health.pacto_trianalab.io_Pacto\" to resource.customizations.health.pacto.trianalab.io_Pacto"
    );
}
