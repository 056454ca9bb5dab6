//! Real kubectl plugin discovery and plugin completion (kubectl ≥ 1.26), with the built binaries
//! first on PATH and a throw-away HOME/KUBECONFIG so that no cluster is needed (kubectl
//! `pkg/cmd/plugin/plugin.go` and `pkg/cmd/plugin/plugin_completion.go`).

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// kubectl from PATH, else /usr/bin/kubectl. A missing kubectl fails the test that needs it
/// (the plugin protocol is what these tests are about); install kubectl to run them.
pub(crate) fn kubectl() -> PathBuf {
    let from_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("kubectl"))
            .find(|k| k.is_file())
    });
    let found = from_path.or_else(|| {
        let k = PathBuf::from("/usr/bin/kubectl");
        k.is_file().then_some(k)
    });
    found.expect("kubectl is not installed (not on PATH, not /usr/bin/kubectl): kubectl plugin discovery tests need it")
}

/// A kubectl command with only `path_dirs` on PATH and an empty HOME and KUBECONFIG.
pub(crate) fn kubectl_cmd(
    kubectl: &Path,
    home: &Path,
    path_dirs: &[&Path],
    args: &[&str],
) -> Command {
    let mut c = Command::new(kubectl);
    let path = std::env::join_paths(path_dirs).unwrap();
    c.args(args)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("KUBECONFIG", home.join("kubeconfig"))
        .current_dir(repo());
    c
}

/// A directory holding only the two executables, as an install would lay them out.
fn install_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(PACTO, d.path().join("kubectl-pacto")).unwrap();
    std::os::unix::fs::symlink(COMPLETE_SHIM, d.path().join("kubectl_complete-pacto")).unwrap();
    d
}

fn build_dir() -> PathBuf {
    Path::new(PACTO).parent().unwrap().to_path_buf()
}

#[test]
fn kubectl_runs_the_plugin_from_the_build_directory() {
    let k = kubectl();
    let home = tempfile::tempdir().unwrap();
    let bin = build_dir();
    let r = run(&mut kubectl_cmd(
        &k,
        home.path(),
        &[&bin, Path::new("/usr/bin"), Path::new("/bin")],
        &[
            "pacto",
            "health",
            "-f",
            "examples/objects",
            "--argocd-cm",
            "examples/argocd-cm.yaml",
        ],
    ));
    r.assert_code(0).assert_no_panic();
    let rows: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(rows.len(), 11, "{}", r.stdout);
    assert!(rows[0].starts_with("NAMESPACE"), "{}", r.stdout);
    let t = &r.stdout;
    assert_eq!(cell(t, 0, "ARGO"), "Healthy", "{t}");
    assert_eq!(cell(t, 0, "MESSAGE"), "contract satisfied", "{t}");
    assert_eq!(cell(t, 1, "ARGO"), "Degraded", "{t}");
    assert!(
        cell(t, 1, "MESSAGE").starts_with("contract violated: INTERFACE_ABSENT"),
        "{t}"
    );
}

#[test]
fn kubectl_plugin_list_shows_the_plugin_in_the_build_directory() {
    let k = kubectl();
    let home = tempfile::tempdir().unwrap();
    let bin = build_dir();
    let r = run(&mut kubectl_cmd(
        &k,
        home.path(),
        &[&bin, Path::new("/usr/bin")],
        &["plugin", "list"],
    ));
    r.assert_no_panic();
    // Cargo also leaves kubectl-pacto.d (dependency info) there, which kubectl warns about as
    // a non-executable plugin; the exit code reflects that warning, not the plugin.
    assert!(
        r.stdout
            .lines()
            .any(|l| l == bin.join("kubectl-pacto").to_str().unwrap()),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[test]
fn kubectl_plugin_list_is_clean_for_an_install_directory() {
    let k = kubectl();
    let home = tempfile::tempdir().unwrap();
    let dir = install_dir();
    let r = run(&mut kubectl_cmd(
        &k,
        home.path(),
        &[dir.path()],
        &["plugin", "list"],
    ));
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        format!(
            "The following compatible plugins are available:\n\n{}\n",
            dir.path().join("kubectl-pacto").display()
        )
    );
}

#[test]
fn exit_codes_and_streams_pass_through_kubectl() {
    let k = kubectl();
    let home = tempfile::tempdir().unwrap();
    let dir = install_dir();
    let r = run(&mut kubectl_cmd(
        &k,
        home.path(),
        &[dir.path()],
        &["pacto", "health", "-f", "tests/fixtures/bad/no-kind.yaml"],
    ));
    r.assert_code(1).assert_no_panic();
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert!(r.stderr.contains("no-kind.yaml"), "{}", r.stderr);
    assert_eq!(r.stdout, "");

    let r = run(&mut kubectl_cmd(
        &k,
        home.path(),
        &[dir.path()],
        &["pacto", "health", "test", "examples/gates"],
    ));
    r.assert_code(0);
    assert_eq!(r.stdout.lines().last(), Some("30 passed, 0 failed"));
}

#[test]
fn help_through_kubectl_says_kubectl_pacto() {
    // krew best practice: usage reads `kubectl pacto ...` when run as a plugin.
    let k = kubectl();
    let home = tempfile::tempdir().unwrap();
    let dir = install_dir();
    let r = run(&mut kubectl_cmd(
        &k,
        home.path(),
        &[dir.path()],
        &["pacto", "health", "--help"],
    ));
    r.assert_code(0);
    assert!(
        r.stdout.contains("Usage: kubectl pacto health"),
        "{}",
        r.stdout
    );
}

/// `kubectl __complete pacto WORDS...`: (candidate lines, directive line).
fn complete(k: &Path, cwd: &Path, words: &[&str]) -> (Vec<String>, String, String) {
    let home = tempfile::tempdir().unwrap();
    let dir = install_dir();
    let mut args = vec!["__complete", "pacto"];
    args.extend_from_slice(words);
    let mut cmd = kubectl_cmd(k, home.path(), &[dir.path()], &args);
    cmd.current_dir(cwd);
    let r = run(&mut cmd);
    r.assert_code(0).assert_no_panic();
    let mut lines: Vec<String> = r.stdout.lines().map(str::to_string).collect();
    let directive = lines.pop().unwrap_or_default();
    (lines, directive, r.stderr)
}

fn values(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect()
}

#[test]
fn completion_of_the_subcommands_through_kubectl() {
    let k = kubectl();
    let (lines, directive, stderr) = complete(&k, &repo(), &[""]);
    let v = values(&lines);
    assert!(v.contains(&"health"), "{lines:?}");
    assert!(v.contains(&"completion"), "{lines:?}");
    assert!(
        !v.iter().any(|c| c.starts_with("__")),
        "hidden commands offered: {lines:?}"
    );
    // Cobra protocol: last line `:<directive>`; for command names, NoFileComp (4).
    assert_eq!(directive, ":4");
    assert!(stderr.contains("ShellCompDirectiveNoFileComp"), "{stderr}");
}

#[test]
fn completion_of_a_prefix_through_kubectl() {
    let k = kubectl();
    let (lines, directive, _) = complete(&k, &repo(), &["he"]);
    // Cobra commands have `help` too: kubectl completes `he` to both.
    assert_eq!(values(&lines), vec!["health", "help"]);
    assert_eq!(directive, ":4");
}

#[test]
fn completion_below_health_through_kubectl() {
    let k = kubectl();
    let (lines, directive, _) = complete(&k, &repo(), &["health", ""]);
    let v = values(&lines);
    assert!(v.contains(&"test"), "{lines:?}");
    assert!(v.contains(&"--filename"), "{lines:?}");
    assert!(v.contains(&"--argocd-cm"), "{lines:?}");
    assert!(
        directive.starts_with(':') && directive[1..].parse::<u32>().is_ok(),
        "{directive}"
    );

    let (lines, directive, _) = complete(&k, &repo(), &["health", "-o", ""]);
    assert_eq!(values(&lines), vec!["wide", "json", "yaml"]);
    assert_eq!(directive, ":4");
}

#[test]
fn completion_of_health_test_dir_offers_paths() {
    let k = kubectl();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir(cwd.path().join("suites")).unwrap();
    let (lines, directive, _) = complete(&k, cwd.path(), &["health", "test", ""]);
    assert!(values(&lines).contains(&"suites/"), "{lines:?}");
    // A path argument leaves file completion to the shell (ShellCompDirectiveDefault).
    assert_eq!(directive, ":0");
}

#[test]
fn the_shim_and_the_hidden_complete_subcommand_agree() {
    let shim = run(std::process::Command::new(COMPLETE_SHIM)
        .args(["health", ""])
        .current_dir(repo()));
    shim.assert_code(0).assert_no_panic();
    let sub = run(&mut pacto(&["__complete", "health", ""]));
    sub.assert_code(0).assert_no_panic();
    assert_eq!(shim.stdout, sub.stdout);
    assert!(shim.stdout.lines().last().unwrap_or("").starts_with(':'));
}

#[test]
fn completion_of_get_and_explain_through_kubectl() {
    let k = kubectl();
    let (lines, _, _) = complete(&k, &repo(), &["get", ""]);
    let v = values(&lines);
    assert_eq!(v[0], "pactos", "{lines:?}");
    assert!(
        v.contains(&"--all-namespaces") && v.contains(&"--selector"),
        "{lines:?}"
    );
    let (lines, directive, _) = complete(&k, &repo(), &["get", "-o", ""]);
    assert_eq!(
        values(&lines),
        vec![
            "wide",
            "name",
            "json",
            "yaml",
            "jsonpath",
            "jsonpath-as-json",
            "custom-columns"
        ]
    );
    assert_eq!(directive, ":4");
    // `pacto/` waits for a name: no space after it, no file names (NoSpace | NoFileComp).
    let (lines, directive, _) = complete(&k, &repo(), &["explain", "pa"]);
    assert_eq!(values(&lines), vec!["pacto/"]);
    assert_eq!(directive, ":6");
}

/// `--context` completes from the kubeconfig, `-n` and `pacto/NAME` from the cluster, through
/// kubectl's plugin completion (the fake API server on loopback answers).
#[test]
fn contexts_namespaces_and_names_complete_from_the_kubeconfig_and_cluster() {
    let k = kubectl();
    let server = fake_apiserver::FakeApiServer::start();
    server.register(fake_apiserver::Resource::pacto());
    for ns in ["shop", "payments"] {
        server.insert(
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        );
    }
    server.insert(
        serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "orders", "namespace": "shop"}}),
    );
    let home = tempfile::tempdir().unwrap();
    server.write_kubeconfig(home.path(), Some("shop"));
    let dir = install_dir();
    let ask = |words: &[&str]| {
        let mut args = vec!["__complete", "pacto"];
        args.extend_from_slice(words);
        let mut cmd = kubectl_cmd(&k, home.path(), &[dir.path()], &args);
        let r = run(&mut cmd);
        r.assert_code(0).assert_no_panic();
        let mut lines: Vec<String> = r.stdout.lines().map(str::to_string).collect();
        lines.pop();
        lines
            .iter()
            .map(|l| l.split('\t').next().unwrap_or("").to_string())
            .collect::<Vec<String>>()
    };
    assert_eq!(ask(&["get", "--context", ""]), vec!["fake"]);
    let ns = ask(&["get", "-n", ""]);
    assert!(
        ns.contains(&"shop".to_string()) && ns.contains(&"payments".to_string()),
        "{ns:?}"
    );
    let targets = ask(&["explain", "pacto/"]);
    assert!(targets.contains(&"pacto/orders".to_string()), "{targets:?}");
    let targets = ask(&["wait", "pa"]);
    assert!(targets.contains(&"pacto/orders".to_string()), "{targets:?}");
}

/// A name from the cluster with a newline or an escape sequence is not offered: it would forge
/// candidates and directive lines, or drive the terminal.
#[test]
fn completion_drops_names_with_control_characters() {
    let server = fake_apiserver::FakeApiServer::start();
    server.register(fake_apiserver::Resource::pacto());
    server.insert(
        serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "evil\n:0\n\u{1b}]0;x\u{7}", "namespace": "shop"}}),
    );
    server.insert(
        serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "orders", "namespace": "shop"}}),
    );
    let home = tempfile::tempdir().unwrap();
    server.write_kubeconfig(home.path(), Some("shop"));
    let r = run(Command::new(COMPLETE_SHIM)
        .args(["explain", "pacto/"])
        .env("KUBECONFIG", home.path().join("kubeconfig"))
        .env("HOME", home.path()));
    r.assert_code(0);
    assert!(!r.stdout.contains('\u{1b}'), "{:?}", r.stdout);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| l.starts_with(':')).count(),
        1,
        "{lines:?}"
    );
    assert!(lines.contains(&"pacto/orders"), "{lines:?}");
}
