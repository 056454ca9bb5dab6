//! End-to-end tests of the built `kubectl-pacto` binary (and its completion shim), run the way
//! users run them: as processes, through kubectl's plugin discovery where kubectl is installed.
//! Expected values come from Argo CD's documented and measured behaviour
//! (shared/reference/argo-cd-health.md), kubectl's plugin conventions
//! (shared/reference/kubectl-ecosystem.md §2) and the Pacto seed documents, never from what the
//! binary happens to print.

mod bad_input;
mod common;
mod completion;
mod delivery;
mod doctor;
mod flux;
mod health;
mod krew;
#[cfg(unix)]
mod kubectl_plugin;
mod live;
mod man_pages;
mod readme;
mod reconcile;
mod scripts;
mod suites;

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
