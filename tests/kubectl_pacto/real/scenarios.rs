//! The live scenarios on both servers: the same objects put in place by the same `kubectl`
//! commands on a real kube-apiserver and on the fake, then every live command (get with each
//! printer and scope flag, explain, wait with each `--for`, doctor `--cluster`, reconcile and a
//! second run, completion) run against each, and the two outputs and exit codes compared.
//!
//! The expected output is the real server's: where the fake's differs, the fake models
//! Kubernetes wrongly and the test names the command and shows both. What differs by nature
//! is masked first: `uid`, `resourceVersion`, `creationTimestamp` and managedFields `time`
//! (in machine output), and the age of objects, fixed by running the tool at a clock three
//! days after the objects were made (kubectl's `HumanDuration` prints `3d` for both).

use super::*;
use fake_apiserver::{FakeApiServer, Resource};
use std::path::PathBuf;

/// The files put in place, in order (the README's walkthrough objects and the delivery
/// examples with their appliers).
const FILES: &[&str] = &[
    "examples/objects/gates.yaml",
    "examples/argocd-cm.yaml",
    "examples/flux/kustomization-gated.yaml",
    "examples/delivery/argo-orders.yaml",
    "examples/delivery/flux-payments.yaml",
    "examples/delivery/operation-held.yaml",
];

/// The CRD files both servers serve.
const CRD_DIRS: &[&str] = &["examples/cluster", "tests/fixtures/real/crds"];

/// One server with the objects in place, and how to reach it.
struct Side {
    kubeconfig: PathBuf,
    home: tempfile::TempDir,
}

impl Side {
    /// `kubectl ARGS` against this server (kubectl from PATH), at the repository root.
    fn kubectl(&self, args: &[&str], input: Option<&str>) -> Run {
        let k = crate::kubectl_plugin::kubectl();
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", s(&self.kubeconfig)]);
        let mut c = crate::kubectl_plugin::kubectl_cmd(
            &k,
            self.home.path(),
            &[Path::new("/usr/bin"), Path::new("/bin")],
            &all,
        );
        c.current_dir(repo());
        run_with(&mut c, input, Duration::from_secs(120))
    }

    /// `kubectl-pacto ARGS` against this server (`KUBECONFIG` names its kubeconfig, so that a
    /// completion's last word stays last) at the clock `now`.
    fn pacto(&self, now: &str, args: &[&str]) -> Run {
        let mut c = isolated(self.home.path(), now, args);
        c.env("KUBECONFIG", &self.kubeconfig).current_dir(repo());
        run_with(&mut c, None, Duration::from_secs(120))
    }
}

/// The namespaces the files' objects live in.
fn namespaces() -> Vec<String> {
    let mut out: Vec<String> = FILES
        .iter()
        .flat_map(|f| yaml_documents(f))
        .filter_map(|o| o["metadata"]["namespace"].as_str().map(String::from))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Puts the objects in place on `side` as a user would: (with `apply_crds`, on the real server)
/// the Flux and Argo CD CRDs of `tests/fixtures/real/crds` (the real server has those of
/// `examples/cluster/` already; the fake registers both sets, [`fake_server`]), the
/// namespaces, `kubectl apply` of each file, then each object's status through the status
/// subresource (server-side apply, as the README's walkthrough does).
fn populate(side: &Side, apply_crds: bool) {
    if apply_crds {
        side.kubectl(&["apply", "-f", "tests/fixtures/real/crds"], None)
            .assert_code(0);
        side.kubectl(
            &[
                "wait",
                "--for=condition=Established",
                "-f",
                "tests/fixtures/real/crds",
                "--timeout=120s",
            ],
            None,
        )
        .assert_code(0);
    }
    // `kubectl apply` sends JSON (`kubectl create namespace` sends protobuf, which the fake
    // does not read).
    for ns in namespaces() {
        let doc =
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        side.kubectl(&["apply", "-f", "-"], Some(&doc.to_string()))
            .assert_code(0);
    }
    for f in FILES {
        side.kubectl(&["apply", "-f", f], None).assert_code(0);
        // The Stages' status is the reconcile's to write (a scenario below); the examples'
        // Stage status is the reconcile's expected result, not a controller's write.
        for o in yaml_documents(f)
            .into_iter()
            .filter(|o| o["status"].is_object() && o["kind"] != "Stage")
        {
            side.kubectl(
                &[
                    "apply",
                    "--server-side",
                    "--subresource=status",
                    "--field-manager=status-writer",
                    "-f",
                    "-",
                ],
                Some(&o.to_string()),
            )
            .assert_code(0);
        }
    }
}

/// The fake API server with the CRDs of [`CRD_DIRS`] registered, as the real server serves
/// them once applied.
fn fake_server() -> FakeApiServer {
    let server = FakeApiServer::start();
    // Kinds built into the real server that the examples hold (a Deployment) or doctor
    // reads (Pods, for when Argo CD's controller last started).
    server.register(Resource::new(
        "apps/v1",
        "Deployment",
        "deployments",
        true,
        true,
    ));
    server.register(Resource::new("v1", "Pod", "pods", true, true));
    // The namespaces kube-apiserver and its controllers make in every cluster.
    for ns in ["default", "kube-node-lease", "kube-public", "kube-system"] {
        server.insert(
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        );
    }
    for d in CRD_DIRS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join(d))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let crd: Value = serde_saphyr::from_str(&text).unwrap();
            let version = crd["spec"]["versions"]
                .as_array()
                .and_then(|v| v.iter().find(|v| v["storage"] == true))
                .and_then(|v| v["name"].as_str())
                .unwrap_or_else(|| panic!("{}: no storage version", f.display()))
                .to_string();
            server.register(Resource::from_crd(&crd, &version));
        }
    }
    server
}

/// Masks what differs between two servers by nature in machine output (JSON or YAML, one
/// object or a list): `uid`, `resourceVersion`, `creationTimestamp`, managedFields' `time`.
fn masked(text: &str) -> String {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["uid", "resourceVersion", "creationTimestamp", "time"] {
                    if let Some(x) = m.get_mut(k) {
                        if x.is_string() {
                            *x = Value::from("MASKED");
                        }
                    }
                }
                m.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let parsed: Result<Vec<Value>, _> = serde_saphyr::from_multiple::<Value>(text);
    match parsed {
        Ok(mut docs) if docs.iter().any(Value::is_object) => {
            docs.iter_mut().for_each(walk);
            serde_json::to_string_pretty(&docs).unwrap()
        }
        _ => text.to_string(),
    }
}

/// The scenario commands (each also run with the same arguments on the other server).
fn commands() -> Vec<Vec<&'static str>> {
    let split = |s: &'static str| s.split(' ').collect::<Vec<_>>();
    [
        "get -n shop",
        "get pactos -n shop -o wide",
        "get pactos -n shop -o json",
        "get pactos -n shop -o yaml",
        "get pactos -n shop -o name",
        "get pacto orders -n shop -o yaml",
        "get pacto orders -n shop -o json --show-managed-fields",
        "get pactos -n shop -o yaml --show-managed-fields",
        "get pactos -n shop -o jsonpath={.items[*].metadata.name}",
        "get pactos -n shop -o custom-columns=NAME:.metadata.name,VERDICT:.status.contractStatus",
        "get pactos -n shop --show-labels --sort-by=.metadata.name",
        "get pactos -A",
        "get pactos -A --chunk-size 1",
        "get pactos -A -l pacto.trianalab.io/example=no-status",
        "get pacto missing -n shop",
        "get stages -A",
        "reconcile --once --all-namespaces",
        "get stages -A",
        "get stages -A -o wide",
        "get stages -A -o yaml",
        "reconcile --once --all-namespaces",
        "get operations -A",
        "explain pacto/payments -n shop",
        "explain pacto/orders -n shop",
        "explain stage/payments -n payments-test",
        "explain operation/payments-1-4-0 -n payments-test",
        "wait pacto/orders -n shop --for verdict=Compliant --timeout 30s",
        "wait pacto/orders -n shop --for gate=pass --timeout 30s",
        "wait pacto/orders -n shop --for verdict=NonCompliant --timeout 2s",
        "doctor --cluster",
    ]
    .into_iter()
    .map(split)
    .chain([
        // Completion of names from the cluster (the hidden subcommand kubectl's
        // `kubectl_complete-pacto` shim calls).
        vec!["__complete", "get", "pacto", "-n", "shop", ""],
        vec!["__complete", "explain", "stage/", "-n", "payments-test"],
        vec!["__complete", "get", "pactos", "-n", ""],
    ])
    .collect()
}

/// Runs every scenario on the real server and on the fake, each set up by the same kubectl
/// commands, and compares exit code, stdout and stderr (machine output masked).
#[test]
fn every_live_scenario_answers_alike_on_the_real_and_the_fake_server() {
    // The examples' namespaces are fixed: a cluster of this test's own.
    let kube = kube_harness::Kube::start();
    let real = Side {
        kubeconfig: kube.kubeconfig().to_path_buf(),
        home: tempfile::tempdir().unwrap(),
    };
    let fake = fake_server();
    let fake_home = tempfile::tempdir().unwrap();
    let fake_side = Side {
        kubeconfig: fake.write_kubeconfig(fake_home.path(), None),
        home: fake_home,
    };
    populate(&real, true);
    populate(&fake_side, false);
    let now = jiff::Timestamp::now()
        .checked_add(jiff::SignedDuration::from_hours(72))
        .unwrap()
        .to_string();
    let mut diffs = Vec::new();
    for args in commands() {
        let r = real.pacto(&now, &args);
        let f = fake_side.pacto(&now, &args);
        r.assert_no_panic();
        f.assert_no_panic();
        let show = |run: &Run| {
            format!(
                "exit {:?}\n{}\n--- stderr\n{}",
                run.code,
                masked(&run.stdout),
                run.stderr
            )
        };
        let (rs, fs) = (show(&r), show(&f));
        if rs != fs {
            diffs.push(format!(
                "kubectl pacto {}:\n--- kube-apiserver\n{rs}\n--- fake-apiserver\n{fs}",
                args.join(" ")
            ));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {} scenarios answer otherwise on the fake:\n{}",
        diffs.len(),
        commands().len(),
        diffs.join("\n\n")
    );
}
