//! The table of `testdata/cases.yaml` (kustomize-controller `checkHealth`, fluxcd/pkg
//! `ssa/manager_wait.go`).

use super::*;
use crate::testutil::merge;

fn row(w: &Waited) -> String {
    format!(
        "{}/{}/{} {} {} {}",
        w.kind,
        w.namespace,
        w.name,
        w.status.as_str(),
        w.reader,
        if w.deciding { "deciding" } else { "-" }
    )
}

#[test]
fn the_cases_of_the_controller() {
    let doc: Value =
        serde_saphyr::from_str(include_str!("testdata/cases.yaml")).expect("cases.yaml");
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 7);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut k = doc["base"].clone();
        merge(&mut k, &case["kustomization"]);
        let live: Vec<Value> = case["live"].as_array().cloned().unwrap_or_default();
        let got = explain_wait(&k, &live, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = &case["want"];
        assert_eq!(
            got.overall.as_str(),
            want["overall"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            serde_json::to_value(got.covered).unwrap(),
            want["covered"],
            "{name}"
        );
        assert_eq!(
            got.timeout_seconds,
            want["timeout_seconds"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(got.message, want["message"].as_str().unwrap(), "{name}");
        let rows: Vec<String> = got.objects.iter().map(row).collect();
        let want_rows: Vec<String> = want["objects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(rows, want_rows, "{name}");
    }
}

#[test]
fn a_malformed_inventory_is_an_error() {
    let k = serde_json::json!({"status": {"inventory": {"entries": [{"id": "a_b_c"}]}}});
    assert_eq!(
        inventory(&k).unwrap_err(),
        "status.inventory.entries[0].id: \"a_b_c\" is not <namespace>_<name>_<group>_<kind>"
    );
    let k = serde_json::json!({"status": {"inventory": {"entries": [{"v": "v1"}]}}});
    assert_eq!(
        inventory(&k).unwrap_err(),
        "status.inventory.entries[0].id: expected a string"
    );
    assert_eq!(inventory(&serde_json::json!({})).unwrap(), None);
}

/// The live objects to read: the inventory with `spec.wait`, else `spec.healthChecks`.
#[test]
fn the_references_to_read() {
    let k = serde_json::json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "k", "namespace": "f"},
        "spec": {"wait": false, "healthChecks": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "shop"}]},
        "status": {"inventory": {"entries": [{"id": "shop_cm__ConfigMap", "v": "v1"}]}}});
    let r = references(&k).unwrap();
    assert_eq!(
        (
            r[0].group.as_str(),
            r[0].version.as_str(),
            r[0].kind.as_str(),
            r[0].name.as_str()
        ),
        ("apps", "v1", "Deployment", "web")
    );
    let mut k = k;
    k["spec"]["wait"] = serde_json::json!(true);
    let r = references(&k).unwrap();
    assert_eq!(
        (
            r[0].group.as_str(),
            r[0].version.as_str(),
            r[0].kind.as_str(),
            r[0].name.as_str()
        ),
        ("", "v1", "ConfigMap", "cm")
    );
}
