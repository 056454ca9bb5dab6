//! End-to-end tests of the built `kubectl-pacto` binary.

#[test]
fn version_prints() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-pacto"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("kubectl-pacto {}\n", env!("CARGO_PKG_VERSION")));
}
