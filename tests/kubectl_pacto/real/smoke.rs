//! First checks against the real server: `get` lists what `kubectl apply` stored, each test's
//! namespace holds only its own objects, and the server answers a watch from a compacted
//! resourceVersion with `410 Gone`.

use super::*;

#[test]
fn get_lists_the_example_pactos_like_kubectl_get() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("smoke");
    let stored = kube.apply(&ns, &[example_pacto("orders"), example_pacto("payments")]);
    assert_eq!(stored.len(), 2);
    for o in &stored {
        assert_eq!(o["metadata"]["namespace"], ns.as_str(), "{o}");
        // A real server assigns these on create.
        assert!(o["metadata"]["uid"].is_string(), "{o}");
        assert_eq!(o["metadata"]["generation"], 1, "{o}");
    }
    let home = tempfile::tempdir().unwrap();
    let r = pacto_on(kube, home.path(), &["get", "pactos", "-n", &ns]);
    r.assert_code(0).assert_no_panic();
    assert_eq!(column(&r.stdout, "NAME"), ["orders", "payments"], "{}", r.stdout);
    // spec.target.serviceName of each example.
    assert_eq!(column(&r.stdout, "SERVICE"), ["orders", "payments"], "{}", r.stdout);

    let k = kube.kubectl_output(&["get", "pactos", "-n", &ns], None);
    assert_eq!(k.code, Some(0), "{}{}", k.stdout, k.stderr);
    assert_eq!(column(&k.stdout, "NAME"), ["orders", "payments"], "{}", k.stdout);
}

#[test]
fn each_test_namespace_holds_only_its_own_objects() {
    let kube = kube_harness::shared();
    let a = kube.namespace("isolation");
    let b = kube.namespace("isolation");
    assert_ne!(a, b);
    kube.apply(&a, &[example_pacto("orders")]);
    kube.apply(&b, &[example_pacto("payments"), example_pacto("search")]);
    let home = tempfile::tempdir().unwrap();
    let in_a = pacto_on(kube, home.path(), &["get", "pactos", "-n", &a]);
    in_a.assert_code(0);
    assert_eq!(column(&in_a.stdout, "NAME"), ["orders"], "{}", in_a.stdout);
    let in_b = pacto_on(kube, home.path(), &["get", "pactos", "-n", &b]);
    in_b.assert_code(0);
    assert_eq!(column(&in_b.stdout, "NAME"), ["payments", "search"], "{}", in_b.stdout);
    // The other namespace's object is not found by name (kubectl's NotFound, exit 1).
    let missing = pacto_on(kube, home.path(), &["get", "pactos", "orders", "-n", &b]);
    missing.assert_code(1);
    let k = kube.kubectl_output(&["get", "pacto", "orders", "-n", &b], None);
    assert_eq!(k.code, Some(1), "{}{}", k.stdout, k.stderr);
    assert_eq!(
        k.stderr.trim_end(),
        "Error from server (NotFound): pactos.pacto.trianalab.io \"orders\" not found"
    );
}

/// A watch from a resourceVersion older than etcd's compaction, once the API server's watch
/// cache starts anew (as after any restart), ends with an ERROR event carrying a Status of code
/// 410, reason Expired, `too old resource version: RV (CURRENT)`.
#[test]
fn a_watch_from_a_compacted_resource_version_is_410_gone() {
    let mut kube = kube_harness::Kube::start();
    let ns = kube.namespace("gone");
    let created = kube.apply(&ns, &[example_pacto("orders")]);
    let old_rv = created[0]["metadata"]["resourceVersion"]
        .as_str()
        .expect("a resourceVersion")
        .to_string();
    for n in 0..3 {
        kube.kubectl_ok(
            &["label", "pacto", "orders", "-n", &ns, "--overwrite", &format!("step={n}")],
            None,
        );
    }
    let compacted = kube.compact();
    assert!(compacted > old_rv.parse::<u64>().unwrap(), "{compacted} {old_rv}");
    kube.restart_apiserver();
    let path = format!(
        "/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos?watch=1&resourceVersion={old_rv}&timeoutSeconds=10"
    );
    let w = kube.kubectl_output(&["get", "--raw", &path], None);
    let events: Vec<Value> = w
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(events.len(), 1, "{}{}", w.stdout, w.stderr);
    let e = &events[0];
    assert_eq!(e["type"], "ERROR", "{e}");
    assert_eq!(e["object"]["kind"], "Status", "{e}");
    assert_eq!(e["object"]["code"], 410, "{e}");
    assert_eq!(e["object"]["reason"], "Expired", "{e}");
    let message = e["object"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("too old resource version: {old_rv} (")),
        "{message}"
    );
}
