//! `get` and `explain`, offline (-f) and against the stateful fake API server of
//! `tests/fake-apiserver`, reached by the built binary through a temporary kubeconfig, so the real
//! kube-rs client path runs. Golden outputs live in `tests/fixtures/pacto/golden/`
//! (`UPDATE_GOLDEN=1` rewrites them); the Argo CD and Flux verdicts inside them are checked
//! against `tests/fixtures/pacto-expected.yaml`, which is transcribed from the Pacto domain
//! reference (section 5), not from the binary.
//!
//! This module holds the shared helpers (the fixed clock, fixtures, goldens, the fake cluster);
//! the tests are grouped by topic: `get`, `explain`, `input` (files and what users and servers
//! send), `faults` (failing and odd API servers) and `kubectl` (kubeconfigs, proxies, plugin
//! discovery).

mod client_flags;
mod contexts;
mod deadlines;
mod explain;
mod faults;
mod get;
mod hostile;
mod input;
mod kubectl;
mod printing;
mod wait;

use crate::common::*;
use fake_apiserver::{FakeApiServer, Resource};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The fixed clock of every fixture.
pub const NOW: &str = "2026-11-29T12:00:00Z";

fn pacto_dir() -> PathBuf {
    fixture("pacto")
}

/// The YAML fixture files of one directory, sorted.
fn fixture_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    v.sort();
    v
}

fn read_yaml(p: &Path) -> Value {
    serde_saphyr::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn is_pacto(v: &Value) -> bool {
    v["kind"] == "Pacto"
}

/// Compares with `golden/<name>` (UPDATE_GOLDEN=1 rewrites one that differs; the test still
/// fails: [`golden_file`]).
fn golden(name: &str, actual: &str) {
    golden_file(&pacto_dir().join("golden").join(name), actual);
}

/// `kubectl-pacto ARGS` with the fixed clock and no kubeconfig of the caller's.
fn cmd(home: &Path, args: &[&str]) -> Command {
    isolated(home, NOW, args)
}

/// A fake cluster: the Pacto, CoderTemplateTest and Kustomization kinds registered, the given
/// objects stored, and a kubeconfig whose context namespace is `namespace`.
struct Cluster {
    server: FakeApiServer,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Cluster {
    fn new(namespace: &str) -> Cluster {
        let server = FakeApiServer::start();
        server.register(Resource::pacto());
        server.register(Resource::new(
            "coder.com/v1alpha1",
            "CoderTemplateTest",
            "codertemplatetests",
            true,
            true,
        ));
        server.register(Resource::new(
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
            "kustomizations",
            true,
            true,
        ));
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path(), Some(namespace));
        Cluster {
            server,
            dir,
            kubeconfig,
        }
    }

    fn without_pacto_crd() -> Cluster {
        let server = FakeApiServer::start();
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path(), Some("shop"));
        Cluster {
            server,
            dir,
            kubeconfig,
        }
    }

    fn insert_files(&self, files: &[PathBuf]) {
        for f in files {
            self.server.insert(read_yaml(f));
        }
    }

    /// The example argocd-cm (argocd/argocd-cm) and a Kustomization whose inventory holds `held`.
    fn with_gates(&self, held: &[(&str, &str)]) {
        self.server
            .insert(read_yaml(&repo().join("examples/argocd-cm.yaml")));
        let mut k = read_yaml(&repo().join("examples/flux/kustomization-gated.yaml"));
        let entries: Vec<Value> = held
            .iter()
            .map(|(ns, name)| serde_json::json!({"id": format!("{ns}_{name}_pacto.trianalab.io_Pacto"), "v": "v1alpha1"}))
            .collect();
        k["status"] = serde_json::json!({"inventory": {"entries": entries}});
        self.server.insert(k);
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", s(&self.kubeconfig)]);
        run_with(&mut cmd(self.dir.path(), &all), None, DEADLINE)
    }

    /// Requests with this method whose path ends with `suffix`.
    fn count(&self, method: &str, suffix: &str) -> usize {
        self.server
            .requests()
            .iter()
            .filter(|r| r.method == method && r.path.ends_with(suffix))
            .count()
    }
}

/// The value of the first report line `Key: value` (indentation ignored).
fn field<'a>(report: &'a str, key: &str) -> Option<&'a str> {
    report.lines().find_map(|l| {
        l.trim_start()
            .strip_prefix(&format!("{key}:"))
            .map(str::trim)
    })
}

/// A cluster holding the `shop` Pacto fixtures and the example gates.
/// The Pactos of `tests/fixtures/pacto/namespaces/` (three namespaces), every one held by the
/// example Kustomization; the context namespace is `default`.
fn three_namespaces() -> Cluster {
    let c = Cluster::new("default");
    let files = fixture_files(&pacto_dir().join("namespaces"));
    c.insert_files(&files);
    let held: Vec<(String, String)> = files
        .iter()
        .map(|f| read_yaml(f))
        .map(|v| {
            (
                v["metadata"]["namespace"].as_str().unwrap().to_string(),
                v["metadata"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    c.with_gates(
        &held
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect::<Vec<_>>(),
    );
    c
}

/// What `kubectl pacto ARGS` prints (stdout, exit 0 asserted) against the fake cluster the
/// Pacto examples of docs/cluster.md come from: `get -A` on the three namespaces, the rest on
/// the shop.
pub(crate) fn readme_example(args: &[&str]) -> String {
    let c = if args == ["get", "-A"] {
        three_namespaces()
    } else {
        shop()
    };
    let r = c.run(args);
    r.assert_code(0);
    r.stdout
}

/// The Pacto `shop/NAME` of [`shop`]'s fixture, as the fake stores it.
fn shop_pacto(c: &Cluster, name: &str) -> Value {
    c.server
        .get("pacto.trianalab.io/v1alpha1", "Pacto", Some("shop"), name)
        .unwrap_or_else(|| panic!("the fixture has no Pacto shop/{name}"))
}

fn shop() -> Cluster {
    let c = Cluster::new("shop");
    let files: Vec<PathBuf> = fixture_files(&pacto_dir())
        .into_iter()
        .filter(|f| is_pacto(&read_yaml(f)))
        .collect();
    c.insert_files(&files);
    c.with_gates(&[("shop", "gift-cards"), ("shop", "fulfillment-worker")]);
    c
}
