//! The live commands against a real kube-apiserver on etcd (built from Go modules by
//! `tests/kube/build.sh`, started by the `kube-harness` crate with the CRDs of
//! `examples/cluster/`). Each test works in a namespace of its own on the test binary's shared
//! cluster; a test that restarts the server or compacts etcd starts a cluster of its own.
//! Expected values come from the applied example objects and from Kubernetes' documented API
//! behaviour (a watch from a compacted resourceVersion ends with a `410 Gone`
//! `too old resource version` Status, reason `Expired`: apimachinery's
//! `pkg/api/errors.NewResourceExpired` as the storage layer returns it).

mod bench;
mod conformance;
mod delivery;
mod gate;
mod printing;
mod rbac;
mod reconcile;
mod scenarios;
mod smoke;
mod walkthrough;
mod watch;

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The documents of a YAML file of the repository.
fn yaml_documents(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(Value::is_object)
        .collect()
}

/// Applies the Flux and Argo CD CRDs of `tests/fixtures/real/crds` and waits until they are
/// established (the server has those of `examples/cluster/` already).
fn apply_flux_and_argo_crds(kube: &kube_harness::Kube) {
    let crds = repo().join("tests/fixtures/real/crds");
    kube.kubectl_ok(&["apply", "-f", s(&crds)], None);
    kube.kubectl_ok(
        &[
            "wait",
            "--for=condition=Established",
            "-f",
            s(&crds),
            "--timeout=120s",
        ],
        None,
    );
}

/// The Pacto named `name` of `examples/objects/gates.yaml`.
fn example_pacto(name: &str) -> Value {
    yaml_documents("examples/objects/gates.yaml")
        .into_iter()
        .find(|v| v["kind"] == "Pacto" && v["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("examples/objects/gates.yaml has no Pacto {name}"))
}

/// `kubectl-pacto ARGS --kubeconfig KUBECONFIG` with `home` as HOME and no kubeconfig or
/// in-cluster configuration of the caller's.
fn pacto_on(kube: &kube_harness::Kube, home: &Path, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend(["--kubeconfig", s(kube.kubeconfig())]);
    let mut c: Command = pacto(&all);
    c.env("HOME", home)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    run_with(&mut c, None, Duration::from_secs(60))
}

/// The values of column `header` in every data row of a kubectl-style table.
fn column(table: &str, header: &str) -> Vec<String> {
    (0..table.lines().count().saturating_sub(1))
        .map(|row| cell(table, row, header))
        .collect()
}
