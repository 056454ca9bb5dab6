//! `get stages|operations` and `explain stage/NAME|operation/NAME`, offline (-f) and against the
//! stateful fake API server of `tests/fake-apiserver`, reached by the built binary through a
//! temporary kubeconfig. The fixtures (`tests/fixtures/delivery/`) are hand-written: `cluster/`
//! holds a Ready and Mediated Flux Stage, the next Stage of the same service in another
//! namespace, a Stage neither Ready nor Mediated, and Operations with an Approval; `bad/` holds
//! malformed input. What the conditions decide is table-tested beside `shared/src/delivery`;
//! these tests hold the command line to the requests it makes, the notes and errors it prints,
//! and the layout of its output (goldens in `tests/fixtures/delivery/golden/`, `UPDATE_GOLDEN=1`
//! rewrites them).
//!
//! The tests are grouped by topic: `get` (tables, names, machine output), `explain` (reports
//! and their data) and `faults` (kinds not installed or forbidden, bad input).

mod explain;
mod faults;
mod get;

use crate::common::*;
use fake_apiserver::{FakeApiServer, Resource};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The fixed clock of every fixture.
const NOW: &str = "2026-11-29T12:00:00Z";

fn dir() -> PathBuf {
    fixture("delivery")
}

/// `tests/fixtures/delivery/<rel>` as a string argument.
fn arg(rel: &str) -> String {
    s(&dir().join(rel)).to_string()
}

/// The objects of every YAML file of `cluster/`, in file order.
fn cluster_objects() -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir().join("cluster"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.split("\n---\n")
                .map(|doc| serde_saphyr::from_str::<Value>(doc).unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What `kubectl pacto ARGS` prints (stdout, exit 0 asserted) against the fake cluster holding
/// every delivery fixture, as the delivery examples of the README and docs/delivery.md show it.
pub(crate) fn readme_example(args: &[&str]) -> String {
    let r = Cluster::new(EVERYTHING).run(args);
    r.assert_code(0);
    r.stdout
}

/// Compares with `golden/<name>` (UPDATE_GOLDEN=1 rewrites one that differs; the test still
/// fails: [`golden_file`]).
fn golden(name: &str, actual: &str) {
    golden_file(&dir().join("golden").join(name), actual);
}

/// `kubectl-pacto ARGS` with the fixed clock and no kubeconfig of the caller's.
fn cmd(home: &Path, args: &[&str]) -> Command {
    isolated(home, NOW, args)
}

/// Runs `kubectl-pacto ARGS` on files (no cluster).
fn offline(args: &[&str]) -> Run {
    let home = tempfile::tempdir().unwrap();
    run(&mut cmd(home.path(), args))
}

/// Which kinds the fake cluster serves besides the delivery ones.
#[derive(Clone, Copy)]
struct Installed {
    flux: bool,
    argo: bool,
}

const EVERYTHING: Installed = Installed {
    flux: true,
    argo: true,
};

/// A fake cluster serving the delivery kinds (and Flux and Argo CD as asked), holding the
/// objects of `cluster/` that it serves, with a kubeconfig whose namespace is `test`.
struct Cluster {
    server: FakeApiServer,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Cluster {
    fn new(installed: Installed) -> Cluster {
        let server = FakeApiServer::start();
        let mut kinds = vec![
            ("delivery.pacto.trianalab.io/v1alpha1", "Stage", "stages"),
            (
                "delivery.pacto.trianalab.io/v1alpha1",
                "Operation",
                "operations",
            ),
            (
                "delivery.pacto.trianalab.io/v1alpha1",
                "Approval",
                "approvals",
            ),
        ];
        if installed.flux {
            kinds.push((
                "source.toolkit.fluxcd.io/v1",
                "OCIRepository",
                "ocirepositories",
            ));
            kinds.push((
                "kustomize.toolkit.fluxcd.io/v1",
                "Kustomization",
                "kustomizations",
            ));
        }
        if installed.argo {
            kinds.push(("argoproj.io/v1alpha1", "Application", "applications"));
        }
        for (api_version, kind, plural) in &kinds {
            server.register(Resource::new(api_version, kind, plural, true, true));
        }
        for o in cluster_objects() {
            if kinds
                .iter()
                .any(|(v, k, _)| o["apiVersion"] == *v && o["kind"] == *k)
            {
                server.insert(o);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path(), Some("test"));
        Cluster {
            server,
            dir,
            kubeconfig,
        }
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", s(&self.kubeconfig)]);
        let r = run_with(
            &mut cmd(self.dir.path(), &all),
            None,
            Duration::from_secs(60),
        );
        r.assert_no_panic();
        r
    }

    /// Every request so far as `METHOD path`, in order.
    fn requests(&self) -> Vec<String> {
        self.server
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect()
    }
}

/// The requests a Stage's conditions cost across every namespace (`-A`): one discovery of each
/// group version, one list of every Stage and one of each kind they depend on.
const STAGE_READS: [&str; 8] = [
    "GET /apis/delivery.pacto.trianalab.io/v1alpha1",
    "GET /apis/delivery.pacto.trianalab.io/v1alpha1/stages",
    "GET /apis/source.toolkit.fluxcd.io/v1",
    "GET /apis/kustomize.toolkit.fluxcd.io/v1",
    "GET /apis/argoproj.io/v1alpha1",
    "GET /apis/source.toolkit.fluxcd.io/v1/ocirepositories",
    "GET /apis/kustomize.toolkit.fluxcd.io/v1/kustomizations",
    "GET /apis/argoproj.io/v1alpha1/applications",
];

/// The discoveries of the kinds a Stage depends on, before their lists.
const APPLIER_DISCOVERY: [&str; 3] = [
    "GET /apis/source.toolkit.fluxcd.io/v1",
    "GET /apis/kustomize.toolkit.fluxcd.io/v1",
    "GET /apis/argoproj.io/v1alpha1",
];

/// The lists of the kinds a Stage depends on when only the namespaces Stages of `ns` need are
/// read (no candidate OCIRepository elsewhere): the OCIRepositories and Kustomizations of
/// `ns`, the Applications of Argo CD's namespace and of `ns`.
fn applier_lists(ns: &str) -> Vec<String> {
    let mut out: Vec<String> = APPLIER_DISCOVERY.iter().map(|r| r.to_string()).collect();
    out.extend([
        format!("GET /apis/source.toolkit.fluxcd.io/v1/namespaces/{ns}/ocirepositories"),
        format!("GET /apis/kustomize.toolkit.fluxcd.io/v1/namespaces/{ns}/kustomizations"),
        "GET /apis/argoproj.io/v1alpha1/namespaces/argocd/applications".to_string(),
        format!("GET /apis/argoproj.io/v1alpha1/namespaces/{ns}/applications"),
    ]);
    out
}

/// The values of the report lines `Key: value` (indentation and alignment ignored).
fn values<'a>(report: &'a str, key: &str) -> Vec<&'a str> {
    report
        .lines()
        .filter_map(|l| {
            l.trim_start()
                .strip_prefix(&format!("{key}:"))
                .map(str::trim)
        })
        .collect()
}

/// The value of the first report line `Key: value`.
fn field<'a>(report: &'a str, key: &str) -> Option<&'a str> {
    values(report, key).first().copied()
}
