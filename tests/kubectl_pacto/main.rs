//! End-to-end tests of the built `kubectl-pacto` binary (and its completion shim), run the way
//! users run them: as processes, through kubectl's plugin discovery where kubectl is installed.
//! Expected values come from Argo CD's source and measured behaviour, kubectl's plugin conventions
//! (the upstream files of docs/upstream.md) and the Pacto documents, never from what the binary
//! happens to print.

mod bad_input;
mod common;
mod completion;
mod delivery;
mod doctor;
mod explain_gate;
mod flux;
mod health;
mod hostile;
mod krew;
#[cfg(unix)]
mod kubectl_plugin;
mod live;
mod man_pages;
mod readme;
mod real;
mod reconcile;
mod scripts;
mod suites;
mod terminal;
mod tree;
mod walkthrough;

#[test]
fn version_prints() {
    let out = std::process::Command::new(common::PACTO)
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("kubectl-pacto {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// `version` prints the plugin's version, then the Argo CD source and the Flux release its
/// engines follow: argo-cd master `37ee0097` (the commit whose `resource_customizations/` corpus
/// the Lua engine passes) and flux2 v2.9.4 (whose kustomize-controller v1.9.4 pins the fluxcd/pkg
/// `runtime/cel` and `ssa` the Flux engine follows), as docs/upstream.md records them.
fn assert_follows(stdout: &str) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(
        lines[0],
        format!("kubectl-pacto {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(
        lines[1].starts_with("Argo CD: argo-cd 37ee0097 "),
        "{stdout}"
    );
    assert!(lines[2].starts_with("Flux:    flux2 v2.9.4 "), "{stdout}");
    let upstream = std::fs::read_to_string(common::repo().join("docs/upstream.md")).unwrap();
    assert!(upstream.contains("| argoproj/argo-cd | master `37ee0097`"));
    assert!(upstream.contains("| fluxcd/flux2 | v2.9.4 "));
}

/// kubectl's habits: `version` (and `-o json`), `help COMMAND`, and an unknown command answered
/// with the list of those that exist.
#[test]
fn version_help_and_unknown_commands() {
    let v = common::run(&mut common::pacto(&["version"]));
    v.assert_code(0);
    assert_follows(&v.stdout);
    let j = common::run(&mut common::pacto(&["version", "-o", "json"]));
    j.assert_code(0);
    let doc: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(doc["kind"], "Version");
    assert_eq!(doc["version"], env!("CARGO_PKG_VERSION"));
    let argo = doc["follows"]["argoCD"].as_str().unwrap_or_default();
    let flux = doc["follows"]["flux"].as_str().unwrap_or_default();
    assert!(argo.starts_with("argo-cd 37ee0097 "), "{}", j.stdout);
    assert!(flux.starts_with("flux2 v2.9.4 "), "{}", j.stdout);
    let h = common::run(&mut common::pacto(&["help", "doctor"]));
    h.assert_code(0);
    assert!(
        h.stdout.contains("Usage: kubectl pacto doctor"),
        "{}",
        h.stdout
    );
    let u = common::run(&mut common::pacto(&["frobnicate"]));
    u.assert_code(1);
    assert!(
        u.stderr.ends_with("hint: the commands are health, get, explain, tree, doctor, reconcile, wait, snippet, version, completion (kubectl pacto help COMMAND)\n"),
        "{}",
        u.stderr
    );
}

/// kubectl's habits: `kubectl pacto` alone prints the help (exit 0), `version --client` is
/// taken; a Flux flag given the other kind's file says which flag takes it.
#[test]
fn bare_invocation_version_client_and_flux_flag_kinds() {
    let r = common::run(&mut common::pacto(&[]));
    r.assert_code(0);
    assert!(
        r.stdout
            .contains("Usage: kubectl pacto [OPTIONS] <COMMAND>"),
        "{}",
        r.stdout
    );
    let v = common::run(&mut common::pacto(&["version", "--client"]));
    v.assert_code(0);
    assert_follows(&v.stdout);
    let h = common::run(&mut common::pacto(&[
        "health",
        "-f",
        "examples/objects",
        "--helmrelease",
        "examples/flux/kustomization-gated.yaml",
    ]));
    h.assert_code(1);
    assert_eq!(
        h.stderr,
        "error: examples/flux/kustomization-gated.yaml: document 1: --helmrelease takes a HelmRelease, this is a Kustomization (give it with --kustomization)\n"
    );
    // A ConfigMap is no HelmRelease: the flag that takes it is --argocd-cm.
    let c = common::run(&mut common::pacto(&[
        "health",
        "-f",
        "examples/objects",
        "--kustomization",
        "examples/argocd-cm.yaml",
    ]));
    c.assert_code(1);
    assert_eq!(
        c.stderr,
        "error: examples/argocd-cm.yaml: document 1: --kustomization takes a Kustomization, this is a ConfigMap (an argocd-cm is given with --argocd-cm)\n"
    );
}
