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
    for (k, want) in [
        (
            serde_json::json!({"status": {"inventory": "x"}}),
            "status.inventory: expected a mapping, found a string",
        ),
        (
            serde_json::json!({"status": {"inventory": {"entries": [{"id": "a_b__C", "v": [1]}]}}}),
            "status.inventory.entries[0].v: expected a string, found a list",
        ),
    ] {
        assert_eq!(inventory(&k).unwrap_err(), want);
    }
}

/// Entry ids as fluxcd/cli-utils `ParseObjMetadata` reads them: the namespace up to the first
/// `_`, the kind after the last, the group before it, and the name between, where `__` stands
/// for `:` (`ObjMetadata.String` writes a colon so, as RBAC names hold them).
#[test]
fn inventory_ids_are_read_as_cli_utils_reads_them() {
    let k = serde_json::json!({"status": {"inventory": {"entries": [
        {"id": "_system__controller__leader_rbac.authorization.k8s.io_ClusterRole", "v": "v1"},
        {"id": "shop_web_apps_Deployment", "v": "v1"},
        {"id": "_shop__Namespace", "v": "v1"},
        {"id": "a_b_c_d_e", "v": "v1"}]}}});
    let got: Vec<(String, String, String, String)> = inventory(&k)
        .unwrap()
        .unwrap()
        .into_iter()
        .map(|e| (e.namespace, e.name, e.group, e.kind))
        .collect();
    let want = [
        (
            "",
            "system:controller:leader",
            "rbac.authorization.k8s.io",
            "ClusterRole",
        ),
        ("shop", "web", "apps", "Deployment"),
        ("", "shop", "", "Namespace"),
        // No check for extra fields: what is left between them is the name.
        ("a", "b_c", "d", "e"),
    ];
    let want: Vec<(String, String, String, String)> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(got, want);
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
