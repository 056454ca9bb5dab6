//! `get -o json|yaml` on the real server, against the real `kubectl` (v1.32) on the same
//! objects: kubectl leaves `metadata.managedFields` out unless `--show-managed-fields`
//! (cli-runtime `JSONYamlPrintFlags`, `OmitManagedFieldsPrinter`), and writes YAML with
//! sigs.k8s.io/yaml; the two outputs must be equal byte for byte. The objects are written as a
//! user writes them (`kubectl apply`, then a server-side apply of the status subresource), so
//! they carry the managedFields the API server records; the fake API server is held to the same
//! records (`metadata.managedFields` after create, client-side apply, server-side apply and a
//! status apply), compared with the real server's.

use super::*;
use fake_apiserver::{FakeApiServer, Resource};

/// The Pacto fixtures applied in each test's namespace (`tests/fixtures/pacto/`): long
/// messages, findings, a list-map of conditions.
const FIXTURES: [&str; 4] = [
    "03-compliant.yaml",
    "09-noncompliant-warning-before-error.yaml",
    "13-invalid-schema-violation.yaml",
    "21-compliant-readiness-below-min-score.yaml",
];

fn fixture_pacto(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture("pacto").join(name)).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// Runs `kubectl ARGS` as the admin of `kube`, `input` on stdin; panics unless it exits 0.
fn kubectl_in(kube: &kube_harness::Kube, args: &[&str], input: Option<&str>) -> String {
    kube.kubectl_ok(args, input)
}

#[test]
fn json_and_yaml_print_what_kubectl_prints() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("printing");
    for name in FIXTURES {
        let mut o = fixture_pacto(name);
        o["metadata"]["namespace"] = Value::from(ns.as_str());
        kubectl_in(kube, &["apply", "-f", "-"], Some(&o.to_string()));
        kubectl_in(
            kube,
            &["apply", "--server-side", "--subresource=status", "-f", "-"],
            Some(&o.to_string()),
        );
    }
    let home = tempfile::tempdir().unwrap();
    let cases: &[&[&str]] = &[
        &["-o", "yaml"],
        &["-o", "yaml", "--show-managed-fields"],
        &["-o", "json"],
        &["-o", "json", "--show-managed-fields"],
        &["orders", "-o", "yaml"],
        &["orders", "-o", "yaml", "--show-managed-fields"],
        &["orders", "-o", "json"],
        &["orders", "-o", "json", "--show-managed-fields"],
        &[
            "-o",
            "jsonpath={.items[*].metadata.managedFields[*].manager}",
        ],
    ];
    for args in cases {
        let mut k = vec!["get", "pactos.pacto.trianalab.io", "-n", &ns];
        k.extend_from_slice(args);
        let want = kube.kubectl_output(&k, None);
        assert_eq!(want.code, Some(0), "{args:?}: {}", want.stderr);
        let mut ours = vec!["get", "pactos", "-n", &ns];
        ours.extend_from_slice(args);
        let got = pacto_on(kube, home.path(), &ours);
        got.assert_code(0).assert_no_panic();
        assert_eq!(got.stdout, want.stdout, "{args:?}");
    }
    // What the comparison is about: the objects carry managedFields, and only the flag shows
    // them.
    let shown = pacto_on(
        kube,
        home.path(),
        &[
            "get",
            "pactos",
            "orders",
            "-n",
            &ns,
            "-o",
            "yaml",
            "--show-managed-fields",
        ],
    );
    assert!(
        shown.stdout.contains("\n  managedFields:\n"),
        "{}",
        shown.stdout
    );
    assert!(
        shown
            .stdout
            .contains("manager: kubectl-client-side-apply\n"),
        "{}",
        shown.stdout
    );
    let hidden = pacto_on(
        kube,
        home.path(),
        &["get", "pactos", "-n", &ns, "-o", "yaml"],
    );
    assert!(
        !hidden.stdout.contains("managedFields"),
        "{}",
        hidden.stdout
    );
}

/// The managedFields entries of an object, without their `time` (each must have one, RFC
/// 3339 in seconds as metav1.Time writes it).
fn entries(o: &Value) -> Vec<Value> {
    o["metadata"]["managedFields"]
        .as_array()
        .unwrap_or_else(|| panic!("no managedFields: {o}"))
        .iter()
        .map(|e| {
            let t = e["time"].as_str().unwrap_or_else(|| panic!("no time: {e}"));
            assert!(
                pacto_gates::k8s::time::parse_go_rfc3339(t).is_ok() && t.ends_with('Z'),
                "{t}"
            );
            let mut e = e.clone();
            e.as_object_mut().unwrap().remove("time");
            e
        })
        .collect()
}

/// The same writes, through kubectl, on the real server and on the fake (the Pacto CRD of
/// `examples/cluster/` registered from its file): `kubectl create`, a client-side `kubectl
/// apply` that creates and one that changes a field and a label, a server-side apply, a
/// server-side apply of the status subresource, `kubectl label`. After each, the fake's
/// managedFields are the real server's (but for `time`).
#[test]
fn the_fake_records_managed_fields_as_the_real_server_does() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("managed");
    let fake = FakeApiServer::start();
    let crd =
        std::fs::read_to_string(repo().join("examples/cluster/pactos.pacto.trianalab.io.yaml"))
            .unwrap();
    fake.register(Resource::from_crd_yaml(&crd, "v1alpha1"));
    let dir = tempfile::tempdir().unwrap();
    let fake_config = fake.write_kubeconfig(dir.path(), Some(&ns));
    let on_fake = |args: &[&str], input: Option<&str>| -> String {
        let k = crate::kubectl_plugin::kubectl();
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", s(&fake_config)]);
        let mut c = crate::kubectl_plugin::kubectl_cmd(
            &k,
            dir.path(),
            &[Path::new("/usr/bin"), Path::new("/bin")],
            &all,
        );
        let r = run_with(&mut c, input, Duration::from_secs(60));
        r.assert_code(0);
        r.stdout
    };
    let on_real = |args: &[&str], input: Option<&str>| -> String {
        let mut all = args.to_vec();
        all.extend(["-n", &ns]);
        kubectl_in(kube, &all, input)
    };
    let object = |name: &str| -> Value {
        let mut o = fixture_pacto("03-compliant.yaml");
        o["metadata"]["name"] = Value::from(name);
        o["metadata"]["namespace"] = Value::from(ns.as_str());
        o
    };
    let created = object("created");
    let applied = object("applied");
    let mut changed = applied.clone();
    changed["spec"]["checkIntervalSeconds"] = Value::from(600);
    changed["metadata"]["labels"] = serde_json::json!({"team": "checkout"});
    let server_side = object("server-side");
    let steps: Vec<(&str, Vec<&str>, Value)> = vec![
        ("create", vec!["create", "-f", "-"], created.clone()),
        (
            "apply (creating)",
            vec!["apply", "-f", "-"],
            applied.clone(),
        ),
        (
            "apply (changing)",
            vec!["apply", "-f", "-"],
            changed.clone(),
        ),
        (
            "server-side apply",
            vec!["apply", "--server-side", "-f", "-"],
            server_side.clone(),
        ),
        (
            "server-side apply of status",
            vec!["apply", "--server-side", "--subresource=status", "-f", "-"],
            server_side.clone(),
        ),
        (
            "label",
            vec!["label", "pacto.pacto.trianalab.io", "created", "tier=gold"],
            Value::Null,
        ),
    ];
    for (what, args, body) in steps {
        let input = (!body.is_null()).then(|| body.to_string());
        on_real(&args, input.as_deref());
        on_fake(&args, input.as_deref());
        let name = if body.is_null() {
            "created"
        } else {
            body["metadata"]["name"].as_str().unwrap()
        };
        let get = [
            "get",
            "pacto.pacto.trianalab.io",
            name,
            "-o",
            "json",
            "--show-managed-fields",
        ];
        let real: Value = serde_json::from_str(&on_real(&get, None)).unwrap();
        let fake_obj: Value = serde_json::from_str(&on_fake(&get, None)).unwrap();
        assert_eq!(
            entries(&fake_obj),
            entries(&real),
            "after {what}: the fake's managedFields differ from the real server's"
        );
    }
}
