//! Expected values: Helm's Secret storage encoding (`pkg/storage/driver/util.go`
//! `encodeRelease`: gzip, then base64; the API server's base64 of Secret data on top), flux2
//! `cmd/flux/tree_kustomization.go` (namespaced objects take the release namespace), helm-controller
//! `internal/action/wait.go` and `api/v2` (`Latest`, `GetTimeout`, `disableWait`, paused
//! Deployments), fluxcd/pkg `ssa/manager_wait.go` (`timeout waiting for: [...]`, `failed early
//! due to stalled resources: [...]`).

use super::storage::{manifest, objects, secret_name, CLUSTER_SCOPED};
use super::*;
use crate::flux::wait_set::Overall;
use base64::Engine as _;
use serde_json::json;
use std::io::Write as _;

const MANIFEST: &str = "---\n# Source: web/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n---\n# Source: web/templates/ns.yaml\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: web-system\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: canary\nspec:\n  paused: true\n---\napiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata:\n  name: orders\n  namespace: contracts\n";

/// The Secret Helm's storage driver writes for `release` (gzip, base64), as the API serves it
/// (base64 of the data).
fn secret_of(release: &Value, gzip: bool) -> Value {
    let json = serde_json::to_vec(release).unwrap();
    let packed = if gzip {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&json).unwrap();
        e.finish().unwrap()
    } else {
        json
    };
    let b64 = base64::engine::general_purpose::STANDARD;
    let helm = b64.encode(packed);
    json!({"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
        "metadata": {"name": "sh.helm.release.v1.web.v3", "namespace": "shop"},
        "data": {"release": b64.encode(helm)}})
}

fn namespaced(group: &str, kind: &str) -> bool {
    !CLUSTER_SCOPED.contains(&(group, kind))
}

#[test]
fn the_storage_secret_unpacks_to_the_manifest() {
    assert_eq!(secret_name("web", 3), "sh.helm.release.v1.web.v3");
    let release = json!({"name": "web", "version": 3, "manifest": MANIFEST});
    for gzip in [true, false] {
        assert_eq!(
            manifest(&secret_of(&release, gzip), 1 << 20).unwrap(),
            MANIFEST
        );
    }
    let objs = objects(MANIFEST, "shop", namespaced).unwrap();
    let at: Vec<(&str, &str)> = objs
        .iter()
        .map(|o| {
            (
                str_at(o, "/metadata/name"),
                str_at(o, "/metadata/namespace"),
            )
        })
        .collect();
    // Namespaced objects without a namespace take the release's; a Namespace stays
    // cluster-scoped; a namespace written in the manifest is kept.
    assert_eq!(
        at,
        [
            ("web", "shop"),
            ("web-system", ""),
            ("canary", "shop"),
            ("orders", "contracts")
        ]
    );
}

#[test]
fn bad_storage_is_an_error_that_names_the_field() {
    let b64 = base64::engine::general_purpose::STANDARD;
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"kind": "ConfigMap"}),
            "the Helm storage object is not a Secret",
        ),
        (
            json!({"kind": "Secret", "data": {}}),
            "data.release: absent (not a Helm release Secret)",
        ),
        (
            json!({"kind": "Secret", "data": {"release": 7}}),
            "data.release: expected a string, found a number",
        ),
        (
            json!({"kind": "Secret", "data": {"release": "%%%"}}),
            "data.release: not base64",
        ),
        (
            json!({"kind": "Secret", "data": {"release": b64.encode("%%%")}}),
            "data.release: the release is not base64 text",
        ),
        (
            json!({"kind": "Secret", "data": {"release": b64.encode(b64.encode("[1]x"))}}),
            "data.release: the release is not a JSON object",
        ),
        // Helm's release is an object: a list is not one.
        (
            json!({"kind": "Secret", "data": {"release": b64.encode(b64.encode("[1,2,3]"))}}),
            "data.release: the release is not a JSON object",
        ),
        (
            json!({"kind": "Secret", "data": {"release": b64.encode(b64.encode(r#"{"manifest": 1}"#))}}),
            "data.release: manifest: expected a string, found a number",
        ),
    ];
    for (secret, want) in cases {
        let got = manifest(&secret, 1 << 20).unwrap_err();
        assert!(got.starts_with(want), "{got} / {want}");
    }
    // A gzip bomb: 64 MiB of zeros packs to about 64 KiB; it is refused at the bound, not
    // inflated.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        e.write_all(&zeros).unwrap();
    }
    let packed = e.finish().unwrap();
    let bomb = json!({"kind": "Secret", "data": {"release": b64.encode(b64.encode(packed))}});
    assert_eq!(
        manifest(&bomb, 1 << 20).unwrap_err(),
        "data.release: the release unpacks to more than 1048576 bytes (--max-input-bytes)"
    );
    // What follows the gzip stream is read as Go's reader reads it: another member is part of
    // the release, anything else is refused.
    let gz = |data: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let of = |packed: Vec<u8>| json!({"kind": "Secret", "data": {"release": b64.encode(b64.encode(packed))}});
    let mut two = gz(br#"{"manifest": "a: 1\n"#);
    two.extend(gz(br#""}"#));
    assert_eq!(manifest(&of(two), 1 << 20).unwrap(), "a: 1\n");
    let mut junk = gz(br#"{"manifest": ""}"#);
    junk.extend(b"not gzip");
    assert!(manifest(&of(junk), 1 << 20)
        .unwrap_err()
        .starts_with("data.release: the release's gzip stream is broken"));
    // Only the manifest is built: a release whose other fields hold a million values unpacks
    // within the bound and reads as its manifest.
    let big = format!(
        r#"{{"manifest": "", "config": {{"a": [{}0]}}}}"#,
        "0,".repeat(1_000_000)
    );
    assert_eq!(manifest(&of(gz(big.as_bytes())), 1 << 24).unwrap(), "");
    // At most MAX_RELEASE_OBJECTS objects in one manifest.
    let many = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
        .repeat(super::storage::MAX_RELEASE_OBJECTS + 1);
    assert_eq!(
        objects(&many, "shop", namespaced).unwrap_err(),
        "the release manifest holds more than 100000 objects (a fixed bound)"
    );
    for (text, want) in [
        ("- a\n", "the release manifest, document 1: expected a Kubernetes object (a mapping), found a list"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "the release manifest, document 1: metadata.name: expected a string"),
        ("---\n---\nkind: [\n", "the release manifest"),
    ] {
        let got = objects(text, "shop", namespaced).unwrap_err();
        assert!(got.starts_with(want), "{got} / {want}");
    }
}

fn helm_release(spec: Value, history: Value) -> Value {
    json!({"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
        "metadata": {"name": "web", "namespace": "flux-system"},
        "spec": spec,
        "status": {"storageNamespace": "shop", "history": history}})
}

#[test]
fn the_latest_release_is_the_highest_version() {
    let hr = helm_release(
        json!({}),
        json!([
            {"name": "web", "namespace": "shop", "version": 2, "status": "superseded", "action": "install"},
            {"name": "web", "namespace": "shop", "version": 3, "status": "failed", "action": "upgrade",
             "chartName": "web", "chartVersion": "1.2.0"},
        ]),
    );
    let (r, storage) = latest(&hr).unwrap().unwrap();
    assert_eq!(
        (r.version, r.action.as_str(), storage.as_str()),
        (3, "upgrade", "shop")
    );
    assert_eq!(r.chart_version, "1.2.0");
    let mut none = hr.clone();
    none["status"]["storageNamespace"] = Value::Null;
    assert_eq!(latest(&none).unwrap(), None);
    for (at, value, want) in [
        (
            "/status/history/1/version",
            json!(0),
            "status.history[1].version: expected a positive integer, found a number",
        ),
        (
            "/status/storageNamespace",
            json!(5),
            "status.storageNamespace: expected a string, found a number",
        ),
    ] {
        let mut bad = hr.clone();
        *bad.pointer_mut(at).unwrap() = value;
        assert_eq!(latest(&bad).unwrap_err(), want);
    }
    let mut bad = hr.clone();
    bad["status"]["history"][1]["version"] = json!("3");
    assert_eq!(
        latest(&bad).unwrap_err(),
        "status.history[1].version: expected a positive integer, found a string"
    );
}

/// The live objects: web rolling out (1 of 2 replicas updated), the paused canary not ready at
/// all, the Pacto as `status` says.
fn live(pacto: &str) -> Vec<Value> {
    vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "generation": 1},
            "spec": {"replicas": 2},
            "status": {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 1,
                "readyReplicas": 1, "availableReplicas": 1}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web-system"},
            "status": {"phase": "Active"}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "canary", "namespace": "shop", "generation": 1},
            "spec": {"replicas": 1, "paused": true}, "status": {}}),
        json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "contracts"},
            "status": {"contractStatus": pacto}}),
    ]
}

const EXPRS: &str = r#"[{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
    "current": "status.contractStatus == 'Compliant'", "failed": "status.contractStatus == 'NonCompliant'"}]"#;

#[test]
fn the_wait_of_the_latest_release() {
    let history = json!([{"name": "web", "namespace": "shop", "version": 3, "action": "upgrade"}]);
    let exprs: Value = serde_json::from_str(EXPRS).unwrap();
    let objs = objects(MANIFEST, "shop", namespaced).unwrap();
    let (r, _) = latest(&helm_release(json!({}), history.clone()))
        .unwrap()
        .unwrap();
    // (spec, Pacto's contractStatus) -> (overall, timeout in seconds, the wait's error).
    let cases: Vec<(Value, &str, Overall, u64, &str)> = vec![
        // The upgrade's own timeout; web is InProgress; the paused canary is not waited for.
        (
            json!({"timeout": "3m", "upgrade": {"timeout": "10m"}, "healthCheckExprs": exprs}),
            "Compliant",
            Overall::WouldTimeOut,
            600,
            "timeout waiting for: [Deployment/shop/web status: 'InProgress']",
        ),
        // A Failed object ends the wait at once (fail-fast).
        (
            json!({"healthCheckExprs": exprs}),
            "NonCompliant",
            Overall::WouldFail,
            300,
            "failed early due to stalled resources: [Pacto/contracts/orders status: 'Failed']",
        ),
        // spec.timeout, with no floor (kustomize-controller's 30 s floor is not helm-controller's).
        (
            json!({"timeout": "10s", "install": {"timeout": "1h"}}),
            "Compliant",
            Overall::WouldTimeOut,
            10,
            "timeout waiting for: [Deployment/shop/web status: 'InProgress']",
        ),
        // The upgrade does not wait: nothing is checked.
        (
            json!({"upgrade": {"disableWait": true}, "install": {"disableWait": false}}),
            "NonCompliant",
            Overall::NotChecked,
            300,
            "",
        ),
    ];
    for (spec, pacto, overall, timeout, message) in cases {
        let hr = helm_release(spec.clone(), history.clone());
        let w = explain_release(&hr, &r, &objs, &live(pacto), 0).unwrap();
        assert_eq!(
            (w.overall, w.timeout_seconds, w.message.as_str()),
            (overall, timeout, message),
            "{spec}"
        );
        if overall != Overall::NotChecked {
            assert_eq!(w.objects.len(), 3, "the paused canary is left out: {spec}");
            assert!(w.objects.iter().all(|o| o.name != "canary"));
        }
    }
    // Fields the API server would refuse are errors naming them (the CRD's duration pattern,
    // its types), never a default in their place.
    for (spec, want) in [
        (json!({"upgrade": {"timeout": "abc"}}), "spec.upgrade.timeout: \"abc\" is not a duration of ms, s, m and h (the API server refuses it)"),
        (json!({"upgrade": {"timeout": "1d"}}), "spec.upgrade.timeout: \"1d\" is not a duration of ms, s, m and h (the API server refuses it)"),
        (json!({"timeout": 5}), "spec.timeout: expected a string, found a number"),
        (json!({"waitStrategy": "legacy"}), "spec.waitStrategy: expected a mapping, found a string"),
        (json!({"upgrade": "x"}), "spec.upgrade: expected a mapping, found a string"),
        (json!([1]), "spec: expected a mapping, found a list"),
    ] {
        let hr = helm_release(spec.clone(), history.clone());
        assert_eq!(explain_release(&hr, &r, &objs, &live("Compliant"), 0).unwrap_err(), want, "{spec}");
    }
    let ok = helm_release(
        json!({"upgrade": {"timeout": "1h30m0.5s"}}),
        history.clone(),
    );
    assert_eq!(
        explain_release(&ok, &r, &objs, &live("Compliant"), 0)
            .unwrap()
            .timeout_seconds,
        5400
    );
    let legacy = helm_release(json!({"waitStrategy": {"name": "legacy"}}), history);
    assert!(explain_release(&legacy, &r, &objs, &live("Compliant"), 0)
        .unwrap_err()
        .starts_with("spec.waitStrategy.name: legacy"));
}
