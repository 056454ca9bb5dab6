//! Hostile input read from files and pipes: every stream is bounded (`--max-input-bytes`), an
//! endless or binary stream ends with an error at its bound, a YAML alias bomb is refused, and
//! fields that used to read as absent when mistyped are errors naming the field. Each error
//! exits 1 with `error: ...` on stderr and nothing on stdout (kubectl's convention).

use crate::common::*;
use std::process::Stdio;

fn health_error(args: &[&str], input: Option<&str>) -> String {
    let mut full = vec!["health"];
    full.extend_from_slice(args);
    let r = run_with(&mut pacto(&full), input, DEADLINE);
    r.assert_code(1).assert_no_panic();
    assert_eq!(r.stdout, "", "nothing on stdout for an input error");
    r.stderr
}

/// `-f /dev/zero`: the first byte is a NUL, which no YAML or JSON text holds.
#[cfg(unix)]
#[test]
fn dev_zero_ends_at_once() {
    let err = health_error(&["-f", "/dev/zero"], None);
    assert_eq!(
        err,
        "error: /dev/zero: document 1: a NUL byte at offset 0: not YAML or JSON text\n"
    );
}

/// Standard input that never ends (`yes` through a pipe) stops at the bound, named with its flag.
#[cfg(unix)]
#[test]
fn an_endless_pipe_stops_at_the_bound() {
    let mut yes = std::process::Command::new("yes")
        .arg("a: b")
        .stdout(Stdio::piped())
        .spawn()
        .expect("yes");
    let child = pacto(&["health", "-f", "-", "--max-input-bytes", "1Mi"])
        .stdin(yes.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let r = finish(child, DEADLINE, "kubectl pacto health -f - from yes");
    let _ = yes.kill();
    let _ = yes.wait();
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: <stdin>: larger than 1 MiB (--max-input-bytes; give a larger bound to read it), reached in document 1\n"
    );
    assert_eq!(r.stdout, "");
}

/// The same bound on a file, and the flag's own errors.
#[test]
fn files_are_bounded_too() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big.yaml");
    std::fs::write(
        &f,
        "kind: ConfigMap\nmetadata: {name: a}\n---\n".repeat(1000),
    )
    .unwrap();
    let err = health_error(&["-f", s(&f), "--max-input-bytes", "10k"], None);
    // 10,000 bytes hold 250 documents of 40 bytes; the bound is reached in the 251st.
    assert_eq!(
        err,
        format!(
            "error: {}: larger than 10000 bytes (--max-input-bytes; give a larger bound to read it), reached in document 251\n",
            s(&f)
        )
    );
    let err = health_error(&["-f", s(&f), "--max-input-bytes", "lots"], None);
    assert_eq!(
        err,
        "error: --max-input-bytes \"lots\": expected a size such as 1Gi, 512Mi or 1000000\n"
    );
    // Raised, the same file is read.
    let r = run_with(
        &mut pacto(&[
            "health",
            "-f",
            s(&f),
            "--max-input-bytes",
            "1Mi",
            "-o",
            "json",
        ]),
        None,
        DEADLINE,
    );
    r.assert_code(0);
}

/// A YAML "billion laughs" of a few hundred bytes is refused, not expanded.
#[test]
fn an_alias_bomb_is_refused() {
    let mut text = String::from("kind: ConfigMap\nmetadata: {name: a}\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
        ));
    }
    let err = health_error(&["-f", "-"], Some(&text));
    assert!(err.starts_with("error: <stdin>: document 1: "), "{err}");
    assert!(err.contains("refused: "), "{err}");
    assert!(err.contains("alias"), "{err}");
}

/// Mistyped fields that used to read as a blank name, a deleted object or one object.
#[test]
fn mistyped_fields_are_errors() {
    for (text, want) in [
        (
            "kind: Pacto\nmetadata: {name: [1, 2]}\n",
            "error: <stdin>: document 1: field metadata.name: expected a string, found a list\n",
        ),
        (
            "kind: Pacto\nmetadata: {name: a, deletionTimestamp: 12}\n",
            "error: <stdin>: document 1: field metadata.deletionTimestamp: expected a string, found a number\n",
        ),
        (
            "apiVersion: v1\nkind: List\nitems: 5\n",
            "error: <stdin>: document 1: field items: expected a list of objects, found a number (kind List)\n",
        ),
    ] {
        assert_eq!(health_error(&["-f", "-"], Some(text)), want, "{text}");
    }
}

/// A valid `%YAML 1.1` directive is read.
#[test]
fn a_yaml_directive_is_accepted() {
    let r = run_with(
        &mut pacto(&["health", "-f", "-", "-o", "json"]),
        Some("%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
        DEADLINE,
    );
    r.assert_code(0).assert_no_panic();
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["items"][0]["ref"]["name"], "a");
}

/// `--argocd-cm DIR` says the flag takes a file, not what a file inside is.
#[test]
fn argocd_cm_given_a_directory() {
    let err = health_error(
        &[
            "-f",
            s(&fixture("objects/widget.yaml")),
            "--argocd-cm",
            "examples",
        ],
        None,
    );
    assert_eq!(
        err,
        "error: examples: a directory; give the file that holds the argocd-cm ConfigMap\n"
    );
}

/// A Kustomization summary line with a terminal escape in a name shows it escaped.
#[test]
fn the_summary_line_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.yaml");
    std::fs::write(
        &k,
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: \"k\\e]0;owned\\a\", namespace: flux-system}\nspec: {wait: true, interval: 1m, prune: true, sourceRef: {kind: GitRepository, name: r}}\n",
    )
    .unwrap();
    let r = run_with(
        &mut pacto(&["health", "-f", "-", "--kustomization", s(&k)]),
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"a\\e[2J\", namespace: x}\n"),
        DEADLINE,
    );
    r.assert_code(0).assert_no_panic();
    assert!(!r.stdout.contains('\u{1b}'), "{}", r.stdout);
    assert!(!r.stdout.contains('\u{7}'), "{}", r.stdout);
    assert!(r.stdout.contains("k\\x1b]0;owned\\x07"), "{}", r.stdout);
}

/// A `health.lua` that is a FIFO is reported, not skipped (reading it would block).
#[cfg(unix)]
#[test]
fn a_fifo_health_lua_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("example.com/Widget");
    std::fs::create_dir_all(&suite).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(suite.join("health.lua"))
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::write(
        suite.join("health_test.yaml"),
        "tests:\n- healthStatus: {status: Healthy}\n  inputPath: testdata/a.yaml\n",
    )
    .unwrap();
    let r = run_with(
        &mut pacto(&["health", "test", s(dir.path())]),
        None,
        DEADLINE,
    );
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stdout.contains("health.lua: not a regular file"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

/// A test case whose `inputPath` is a FIFO is a failed case naming it, in an Argo CD suite and
/// in a Flux one: reading it would block `health test` for ever.
#[cfg(unix)]
#[test]
fn a_fifo_input_path_is_a_failed_case() {
    let dir = tempfile::tempdir().unwrap();
    let argo = dir.path().join("example.com/Widget");
    std::fs::create_dir_all(argo.join("testdata")).unwrap();
    std::fs::write(argo.join("health.lua"), "return {status = 'Healthy'}\n").unwrap();
    std::fs::write(
        argo.join("health_test.yaml"),
        "tests:\n- healthStatus: {status: Healthy}\n  inputPath: testdata/a.yaml\n",
    )
    .unwrap();
    let flux = dir.path().join("flux");
    std::fs::create_dir_all(flux.join("testdata")).unwrap();
    std::fs::write(
        flux.join("flux_health_test.yaml"),
        "tests:\n- inputPath: testdata/a.yaml\n  status: Current\n",
    )
    .unwrap();
    for fifo in [argo.join("testdata/a.yaml"), flux.join("testdata/a.yaml")] {
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo is needed for this test");
        assert!(made.success());
    }
    let r = run_with(
        &mut pacto(&["health", "test", s(dir.path())]),
        None,
        DEADLINE,
    );
    r.assert_code(1).assert_no_panic();
    for suite in ["example.com/Widget", "flux"] {
        let named = format!("{suite}/testdata/a.yaml: not a regular file");
        assert!(
            r.stdout.contains(&named),
            "{named}\n{}\n{}",
            r.stdout,
            r.stderr
        );
    }
}
