//! First checks against the real server: `get` lists what `kubectl apply` stored (and the audit
//! log records the lists), each test's namespace holds only its own objects, RBAC confines a
//! user to the namespace it is bound in, the served OpenAPI keeps the CRD's `x-kubernetes-*`
//! extensions, and a watch from a compacted resourceVersion ends with `410 Gone`.

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
    assert_eq!(
        column(&r.stdout, "NAME"),
        ["orders", "payments"],
        "{}",
        r.stdout
    );
    // spec.target.serviceName of each example.
    assert_eq!(
        column(&r.stdout, "SERVICE"),
        ["orders", "payments"],
        "{}",
        r.stdout
    );

    let k = kube.kubectl_output(&["get", "pactos", "-n", &ns], None);
    assert_eq!(k.code, Some(0), "{}{}", k.stdout, k.stderr);
    assert_eq!(
        column(&k.stdout, "NAME"),
        ["orders", "payments"],
        "{}",
        k.stdout
    );

    // The audit log holds both lists, as the admin, at level RequestResponse with the response.
    let listed = audit_events(kube, |e| {
        e["verb"] == "list"
            && e["objectRef"]["resource"] == "pactos"
            && e["objectRef"]["namespace"] == ns.as_str()
            && e["stage"] == "ResponseComplete"
    });
    assert_eq!(
        listed.len(),
        2,
        "kubectl-pacto's and kubectl's lists: {listed:?}"
    );
    for e in &listed {
        assert_eq!(e["level"], "RequestResponse", "{e}");
        assert_eq!(e["user"]["username"], "kube-harness-admin", "{e}");
        assert_eq!(e["responseStatus"]["code"], 200, "{e}");
        // kubectl asks for a Table (server-side printing), a client of the API for the list.
        let body = &e["responseObject"];
        let names: Vec<&Value> = match body["kind"].as_str() {
            Some("Table") => rows(&body["rows"], &["object", "metadata", "name"]),
            _ => rows(&body["items"], &["metadata", "name"]),
        };
        assert_eq!(names, ["orders", "payments"], "{e}");
    }
}

/// The field at `path` of each element of the array `v`.
fn rows<'a>(v: &'a Value, path: &[&str]) -> Vec<&'a Value> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|i| path.iter().fold(i, |o, k| &o[*k]))
                .collect()
        })
        .unwrap_or_default()
}

/// The audit events matching `want`, waiting up to 30 s for at least two (an event is written
/// after its response is sent).
fn audit_events(kube: &kube_harness::Kube, want: impl Fn(&Value) -> bool) -> Vec<Value> {
    let start = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(kube.audit_log()).unwrap_or_default();
        let found: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| want(e))
            .collect();
        if found.len() >= 2 || start.elapsed() > Duration::from_secs(30) {
            return found;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
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
    assert_eq!(
        column(&in_b.stdout, "NAME"),
        ["payments", "search"],
        "{}",
        in_b.stdout
    );
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

/// RBAC on the real server: the harness' second user can read nothing until a Role in one
/// namespace is bound to it, and then reads that namespace only. The API server's words are
/// the RBAC authorizer's (`User "U" cannot list resource "R" in API group "G" in the namespace
/// "NS"`).
#[test]
fn a_user_bound_in_one_namespace_reads_only_that_one() {
    let kube = kube_harness::shared();
    let a = kube.namespace("rbac");
    let b = kube.namespace("rbac");
    kube.apply(&a, &[example_pacto("orders")]);
    kube.apply(&b, &[example_pacto("payments")]);
    let user = format!("--user={}", kube_harness::USER_NAME);
    for args in [
        "create role pacto-reader --verb=get,list,watch --resource=pactos.pacto.trianalab.io",
        "create rolebinding pacto-reader --role=pacto-reader",
    ] {
        let mut all: Vec<&str> = args.split(' ').collect();
        all.extend(["-n", &a]);
        if args.contains("rolebinding") {
            all.push(&user);
        }
        kube.kubectl_ok(&all, None);
    }
    let home = tempfile::tempdir().unwrap();
    let user_config = home.path().join("user-kubeconfig");
    kube.write_kubeconfig(&user_config, kube_harness::USER_TOKEN, None);
    let as_user = |ns: &str| {
        let mut c = pacto(&["get", "pactos", "-n", ns, "--kubeconfig", s(&user_config)]);
        c.env("HOME", home.path()).env_remove("KUBECONFIG");
        run_with(&mut c, None, Duration::from_secs(60))
    };
    let allowed = as_user(&a);
    allowed.assert_code(0);
    assert_eq!(
        column(&allowed.stdout, "NAME"),
        ["orders"],
        "{}",
        allowed.stdout
    );
    let denied = as_user(&b);
    denied.assert_code(1).assert_no_panic();
    let words = format!(
        "User \"{}\" cannot list resource \"pactos\" in API group \"pacto.trianalab.io\" in the namespace \"{b}\"",
        kube_harness::USER_NAME
    );
    assert!(denied.stderr.contains(&words), "{}", denied.stderr);
}

/// The events of a watch of the Pactos of `ns` from `rv`, ended by the server after `timeout`
/// seconds (`kubectl get --raw`: one JSON watch event per line).
fn watch_events(kube: &kube_harness::Kube, ns: &str, rv: &str, timeout: u32) -> Vec<Value> {
    let path = format!(
        "/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos?watch=1&resourceVersion={rv}&timeoutSeconds={timeout}"
    );
    let w = kube.kubectl_output(&["get", "--raw", &path], None);
    assert_eq!(w.code, Some(0), "{}{}", w.stdout, w.stderr);
    w.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// After etcd compacts past a resourceVersion, the API server's watch cache still replays the
/// events after it from memory; once the cache starts anew (as after any restart of the server)
/// a watch from it ends with a single ERROR event whose Status has code 410, reason Expired and
/// the message `too old resource version: RV (OLDEST)`.
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
        let label = format!("step={n}");
        kube.kubectl_ok(
            &["label", "pacto", "orders", "-n", &ns, "--overwrite", &label],
            None,
        );
    }
    let compacted = kube.compact();
    assert!(
        compacted > old_rv.parse::<u64>().unwrap(),
        "{compacted} {old_rv}"
    );

    let cached = watch_events(&kube, &ns, &old_rv, 5);
    let steps: Vec<String> = cached
        .iter()
        .map(|e| {
            let step = &e["object"]["metadata"]["labels"]["step"];
            format!("{} step={}", e["type"], step)
        })
        .collect();
    assert_eq!(
        steps,
        [
            "\"MODIFIED\" step=\"0\"",
            "\"MODIFIED\" step=\"1\"",
            "\"MODIFIED\" step=\"2\""
        ],
        "{cached:?}"
    );

    kube.restart_apiserver();
    let events = watch_events(&kube, &ns, &old_rv, 10);
    assert_eq!(events.len(), 1, "{events:?}");
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

/// The served OpenAPI v3 document of the Pacto group keeps the CRD's `x-kubernetes-*`
/// extensions (what the reconcile reads to decide how to write; a kube-apiserver built with a
/// newer Go than its release names drops them).
#[test]
fn the_served_openapi_keeps_the_crd_extensions() {
    let kube = kube_harness::shared();
    let text = kube.kubectl_ok(
        &[
            "get",
            "--raw",
            "/openapi/v3/apis/pacto.trianalab.io/v1alpha1",
        ],
        None,
    );
    let doc: Value = serde_json::from_str(&text).unwrap();
    let pacto = &doc["components"]["schemas"]["io.trianalab.pacto.v1alpha1.Pacto"];
    assert_eq!(
        pacto["x-kubernetes-group-version-kind"],
        serde_json::json!([{"group": "pacto.trianalab.io", "kind": "Pacto", "version": "v1alpha1"}]),
        "{pacto}"
    );
    // examples/cluster/pactos.pacto.trianalab.io.yaml: spec keeps unknown fields.
    assert_eq!(
        pacto["properties"]["spec"]["x-kubernetes-preserve-unknown-fields"], true,
        "{pacto}"
    );
}

/// `get --all-contexts` on a kubeconfig whose two contexts reach this one server in two
/// namespaces: one table, each row under the context it was read through.
#[test]
fn all_contexts_reads_each_context_of_the_kubeconfig() {
    let kube = kube_harness::shared();
    let (a, b) = (kube.namespace("ctx"), kube.namespace("ctx"));
    kube.apply(&a, &[example_pacto("orders")]);
    kube.apply(&b, &[example_pacto("payments"), example_pacto("catalog")]);
    let home = tempfile::tempdir().unwrap();
    let kc = home.path().join("two-contexts");
    let mut text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: real\n  cluster: {{server: {:?}, certificate-authority: {:?}}}\n\
         users:\n- name: admin\n  user: {{token: {:?}}}\ncontexts:\n",
        kube.server(),
        s(kube.ca_file()),
        kube.token()
    );
    for (name, ns) in [("second", &b), ("first", &a)] {
        text += &format!(
            "- name: {name}\n  context: {{cluster: real, user: admin, namespace: {ns}}}\n"
        );
    }
    text += "current-context: first\n";
    std::fs::write(&kc, text).unwrap();
    let mut c = pacto(&["get", "pactos", "--all-contexts", "--kubeconfig", s(&kc)]);
    c.env("HOME", home.path()).env_remove("KUBECONFIG");
    let r = run_with(&mut c, None, Duration::from_secs(60));
    r.assert_no_panic().assert_code(0);
    assert_eq!(
        column(&r.stdout, "CONTEXT"),
        ["first", "second", "second"],
        "{}",
        r.stdout
    );
    assert_eq!(
        column(&r.stdout, "NAME"),
        ["orders", "catalog", "payments"],
        "{}",
        r.stdout
    );
}
