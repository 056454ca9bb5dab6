//! End-to-end tests of the built `argocd-pacto` binary: `argocd pacto settings resource-overrides
//! health RESOURCE_YAML_PATH --argocd-cm-path FILE` must print and exit as `argocd admin settings
//! resource-overrides health` does (argo-cd `cmd/argocd/commands/admin/settings.go`
//! `NewResourceHealthCommand`, at 37ee0097): STATUS/MESSAGE or "Health script is not configured for
//! 'g/K'" with exit 0; any error as a logrus fatal line (JSON by default) on stderr with exit 20
//! (util/errors ErrorGeneric); missing arguments → help and exit 1.

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_argocd-pacto");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(rel: &str) -> String {
    repo()
        .join("tests/fixtures")
        .join(rel)
        .display()
        .to_string()
}

fn example(rel: &str) -> String {
    repo().join("examples").join(rel).display().to_string()
}

fn pacto_testdata(name: &str) -> String {
    example(&format!("gates/pacto.trianalab.io/Pacto/testdata/{name}"))
}

#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// How long a run may take before the test calls it hung: a guard, not a speed claim (each
/// run takes a fraction of a second of CPU; the margin is for cores busy with other builds).
const HANG_GUARD: Duration = Duration::from_secs(120);

/// Runs a command, failing the test if it has not ended within [`HANG_GUARD`].
fn run_cmd(cmd: &mut Command) -> Run {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            panic!("{cmd:?} did not finish within {HANG_GUARD:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let r = Run {
        code: status.code(),
        stdout: o.join().unwrap(),
        stderr: e.join().unwrap(),
    };
    assert!(!r.stderr.contains("panicked"), "panic:\n{}", r.stderr);
    r
}

/// `argocd-pacto settings resource-overrides health ARGS...`
fn health(args: &[&str]) -> Run {
    let mut c = Command::new(BIN);
    c.args(["settings", "resource-overrides", "health"])
        .args(args)
        .current_dir(repo());
    run_cmd(&mut c)
}

/// The resource's health with the given argocd-cm: exit 0 and stdout.
fn ok(resource: &str, cm: &str) -> String {
    let r = health(&[resource, "--argocd-cm-path", cm]);
    assert_eq!(r.code, Some(0), "stderr: {}", r.stderr);
    assert_eq!(r.stderr, "");
    r.stdout
}

/// A fatal error: exit 20, nothing on stdout, one JSON log line on stderr; returns its `msg`.
fn fatal(r: &Run) -> String {
    assert_eq!(
        r.code,
        Some(20),
        "stdout: {}\nstderr: {}",
        r.stdout,
        r.stderr
    );
    assert_eq!(r.stdout, "", "nothing on stdout for an error");
    assert_eq!(r.stderr.lines().count(), 1, "one log line: {}", r.stderr);
    let line: Value = serde_json::from_str(r.stderr.trim_end())
        .unwrap_or_else(|e| panic!("not a JSON log line ({e}): {}", r.stderr));
    assert_eq!(line["level"], "fatal", "{line}");
    assert!(line["time"].is_string(), "logrus adds the time: {line}");
    line["msg"].as_str().unwrap_or_default().to_string()
}

/// Writes an argocd-cm with the given data (values as JSON strings) into `dir`.
fn write_cm(dir: &Path, data: &[(&str, &str)]) -> String {
    let mut text = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n",
    );
    for (k, v) in data {
        text.push_str(&format!("  {k}: {}\n", Value::from(*v)));
    }
    let p = dir.join("argocd-cm.yaml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn widget_cm(dir: &Path, script: &str) -> String {
    write_cm(
        dir,
        &[("resource.customizations.health.example.com_Widget", script)],
    )
}

#[test]
fn version_prints() {
    let out = Command::new(BIN).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("argocd-pacto {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn compliant_pacto_is_healthy() {
    // "GitOps promotion gates", "Check that it took": "A Compliant Pacto prints STATUS: Healthy and
    // MESSAGE: contract satisfied."
    assert_eq!(
        ok(
            &pacto_testdata("compliant.yaml"),
            &example("argocd-cm.yaml")
        ),
        "STATUS: Healthy\nMESSAGE: contract satisfied\n"
    );
}

#[test]
fn noncompliant_pacto_names_the_first_error_finding() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("payments.yaml");
    std::fs::write(
        &p,
        "apiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: payments, namespace: shop, generation: 2}\n\
         status:\n  contractStatus: NonCompliant\n  observedGeneration: 2\n  findings:\n\
         \x20 - {code: TAG_NOT_DIGEST, severity: warning, message: pinned by tag}\n\
         \x20 - {code: PORT_MISSING, severity: error, message: port 8080 is not served}\n\
         \x20 - {code: ENV_ABSENT, severity: error, message: second error}\n",
    )
    .unwrap();
    assert_eq!(
        ok(p.to_str().unwrap(), &example("argocd-cm.yaml")),
        "STATUS: Degraded\nMESSAGE: contract violated: PORT_MISSING: port 8080 is not served\n"
    );
}

#[test]
fn not_configured_for_a_pacto_with_an_empty_argocd_cm() {
    // "GitOps promotion gates", "Check that it took": "Health script is not configured" is printed
    // with exit 0.
    assert_eq!(
        ok(
            &pacto_testdata("compliant.yaml"),
            &fixture("argocd-cm/empty.yaml")
        ),
        "Health script is not configured for 'pacto.trianalab.io/Pacto'\n"
    );
}

#[test]
fn not_configured_for_a_core_kind_prints_an_empty_group() {
    assert_eq!(
        ok(
            &fixture("objects/configmap.yaml"),
            &fixture("argocd-cm/empty.yaml")
        ),
        "Health script is not configured for '/ConfigMap'\n"
    );
}

#[test]
fn builtin_go_check_runs_without_customizations() {
    assert_eq!(
        ok(
            &fixture("objects/deployment-rolling.yaml"),
            &fixture("argocd-cm/empty.yaml")
        ),
        "STATUS: Progressing\nMESSAGE: Waiting for rollout to finish: 1 out of 4 new replicas have been updated...\n"
    );
}

#[test]
fn deletion_is_pending_deletion_without_running_lua() {
    let dir = tempfile::tempdir().unwrap();
    let cm = write_cm(
        dir.path(),
        &[(
            "resource.customizations.health.pacto.trianalab.io_Pacto",
            "error('must not run')",
        )],
    );
    assert_eq!(
        ok(&fixture("objects/pacto-deleting.yaml"), &cm),
        "STATUS: Progressing\nMESSAGE: Pending deletion\n"
    );
}

#[test]
fn wildcard_keys_of_the_legacy_blob_are_consulted() {
    // Since v2.10 (#16461) the command consults wildcard keys too, not only exact ones.
    assert_eq!(
        ok(
            &pacto_testdata("compliant.yaml"),
            &fixture("argocd-cm/wildcard-blob.yaml")
        ),
        "STATUS: Suspended\nMESSAGE: held by the wildcard\n"
    );
}

#[test]
fn only_the_first_document_is_read() {
    // sigs.k8s.io/yaml reads the first document of the file.
    assert_eq!(
        ok(
            &fixture("objects/two-documents.yaml"),
            &example("argocd-cm.yaml")
        ),
        "STATUS: Healthy\nMESSAGE: contract satisfied\n"
    );
}

#[test]
fn lua_runtime_error_is_fatal_with_exit_20() {
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(
        dir.path(),
        "local hs = {}\nhs.status = obj.status.phase\nreturn hs\n",
    );
    let r = health(&[&fixture("objects/widget.yaml"), "--argocd-cm-path", &cm]);
    assert_eq!(
        fatal(&r),
        "failed to get resource health for gates/w1: <string>:2: attempt to index a non-table object(nil) with key 'phase'"
    );
}

#[test]
fn non_table_result_is_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(dir.path(), "return \"Healthy\"");
    let r = health(&[&fixture("objects/widget.yaml"), "--argocd-cm-path", &cm]);
    assert_eq!(
        fatal(&r),
        "failed to get resource health for gates/w1: expect table output from Lua script, not string"
    );
}

#[test]
fn invalid_status_is_unknown_and_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(dir.path(), "return {status = \"healthy\", message = \"x\"}");
    assert_eq!(
        ok(&fixture("objects/widget.yaml"), &cm),
        "STATUS: Unknown\nMESSAGE: Lua returned an invalid health status\n"
    );
}

#[test]
fn empty_table_gives_empty_status() {
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(dir.path(), "return {}");
    assert_eq!(
        ok(&fixture("objects/widget.yaml"), &cm),
        "STATUS: \nMESSAGE: \n"
    );
}

#[test]
fn nil_result_gives_empty_status() {
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(dir.path(), "local hs = {}");
    assert_eq!(
        ok(&fixture("objects/widget.yaml"), &cm),
        "STATUS: \nMESSAGE: \n"
    );
}

#[test]
fn misspelled_customization_type_fails_the_settings() {
    let r = health(&[
        &fixture("objects/widget.yaml"),
        "--argocd-cm-path",
        &fixture("argocd-cm/typo-key.yaml"),
    ]);
    let msg = fatal(&r);
    assert!(msg.contains("heath"), "{msg}");
}

#[test]
fn use_open_libs_yes_fails_the_settings() {
    let r = health(&[
        &fixture("objects/widget.yaml"),
        "--argocd-cm-path",
        &fixture("argocd-cm/open-libs-yes.yaml"),
    ]);
    let msg = fatal(&r);
    assert!(msg.contains("yes"), "{msg}");
}

#[test]
fn resource_without_kind_is_fatal() {
    // argo-cd `NewResourceHealthCommand`: a resource file that does not decode (here: no kind) goes
    // through `errors.CheckError`, exit 20 (`util/errors/errors.go`).
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kindless.yaml");
    std::fs::write(&p, "apiVersion: v1\nmetadata: {name: kindless}\n").unwrap();
    let r = health(&[
        p.to_str().unwrap(),
        "--argocd-cm-path",
        &fixture("argocd-cm/empty.yaml"),
    ]);
    fatal(&r);
}

#[test]
fn missing_resource_file_is_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.yaml");
    let r = health(&[
        missing.to_str().unwrap(),
        "--argocd-cm-path",
        &fixture("argocd-cm/empty.yaml"),
    ]);
    let msg = fatal(&r);
    assert!(msg.contains(missing.to_str().unwrap()), "{msg}");
}

#[test]
fn missing_argocd_cm_path_is_fatal() {
    let r = health(&[&pacto_testdata("compliant.yaml")]);
    assert_eq!(
        fatal(&r),
        "either --argocd-cm-path must be provided or --load-cluster-settings must be set to true"
    );
}

#[test]
fn missing_resource_path_prints_help_and_exits_1() {
    let r = health(&["--argocd-cm-path", &example("argocd-cm.yaml")]);
    assert_eq!(r.code, Some(1), "stderr: {}", r.stderr);
    assert!(r.stdout.contains("Usage:"), "help on stdout: {}", r.stdout);
    assert!(r.stdout.contains("RESOURCE_YAML_PATH"), "{}", r.stdout);
}

#[test]

fn missing_resource_path_help_names_the_whole_command() {
    // cobra's help prints the full command path (`argocd admin settings resource-overrides
    // health RESOURCE_YAML_PATH [flags]`); for the plugin that is `argocd pacto settings ...`.
    let r = health(&["--argocd-cm-path", &example("argocd-cm.yaml")]);
    assert!(
        r.stdout
            .contains("argocd pacto settings resource-overrides health"),
        "{}",
        r.stdout
    );
}

#[test]

fn closed_stdout_is_not_a_panic() {
    let mut child = Command::new(BIN)
        .args(["settings", "resource-overrides", "health"])
        .arg(pacto_testdata("compliant.yaml"))
        .args(["--argocd-cm-path", &example("argocd-cm.yaml")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn argocd_runs_the_plugin_by_its_executable_name() {
    // `argocd pacto ARGS...` execs the executable `argocd-pacto` found on PATH with ARGS.
    assert_eq!(
        Path::new(BIN).file_name().and_then(|n| n.to_str()),
        Some("argocd-pacto")
    );
    let dir = Path::new(BIN).parent().unwrap();
    let mut c = Command::new("argocd-pacto");
    c.env("PATH", dir)
        .args(["settings", "resource-overrides", "health"])
        .arg(pacto_testdata("compliant.yaml"))
        .args(["--argocd-cm-path", &example("argocd-cm.yaml")]);
    let r = run_cmd(&mut c);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "STATUS: Healthy\nMESSAGE: contract satisfied\n");
}

/// gopher-lua's print (baselib.go `basePrint`: `fmt.Print` of each argument's `tostring`, tabs
/// between, a newline) writes to the process's stdout while the script runs, so the CLI shows it
/// before `STATUS:` (and also when the script then fails).
#[test]
fn print_output_comes_before_status() {
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(
        dir.path(),
        "print(\"checking\", 1e15, nil) print() return {status = \"Healthy\", message = \"ok\"}",
    );
    assert_eq!(
        ok(&fixture("objects/widget.yaml"), &cm),
        "checking\t1000000000000000\tnil\n\nSTATUS: Healthy\nMESSAGE: ok\n"
    );
    let cm = widget_cm(dir.path(), "print(\"before\") error(\"boom\")");
    let r = health(&[&fixture("objects/widget.yaml"), "--argocd-cm-path", &cm]);
    assert_eq!(r.code, Some(20), "stderr: {}", r.stderr);
    assert_eq!(r.stdout, "before\n");
    assert!(r.stderr.contains("<string>:1: boom"), "{}", r.stderr);
}

/// Every input is bounded: `/dev/zero` as the resource or the argocd-cm ends at the bound with
/// the flag named, exit 20 as any error (argo-cd `util/errors` `CheckError`).
#[cfg(unix)]
#[test]
fn endless_inputs_end_at_the_bound() {
    // /dev/zero ends at its first byte: no text holds a NUL.
    let r = health(&["/dev/zero", "--max-input-bytes", "1Mi"]);
    assert_eq!(
        fatal(&r),
        "read /dev/zero: a NUL byte at offset 0: not text"
    );
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(dir.path(), "return {status = 'Healthy'}");
    let big = dir.path().join("big.yaml");
    std::fs::write(&big, "a".repeat(2000)).unwrap();
    let r = health(&[
        &cm,
        "--argocd-cm-path",
        big.to_str().unwrap(),
        "--max-input-bytes",
        "1000",
    ]);
    assert_eq!(
        fatal(&r),
        format!(
            "read {}: larger than 1000 bytes (--max-input-bytes; give a larger bound to read it)",
            big.display()
        )
    );
}

/// When stdout is not a terminal the message is Argo's bytes, control characters included
/// (the output is compared with Argo's CLI).
#[test]
fn message_bytes_are_kept_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let cm = widget_cm(
        dir.path(),
        "return {status = 'Degraded', message = 'a\\27]0;x\\7b'}",
    );
    let obj = dir.path().join("w.yaml");
    std::fs::write(
        &obj,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
    )
    .unwrap();
    let out = ok(obj.to_str().unwrap(), &cm);
    assert_eq!(out, "STATUS: Degraded\nMESSAGE: a\u{1b}]0;x\u{7}b\n");
}

/// Runs `argocd-pacto ARGS` on a pseudo-terminal (util-linux `script`); the arguments reach it
/// through the environment, unquoted by a shell. What the terminal showed (both streams, `\r\n`
/// back to `\n`) and the exit code.
fn on_a_pty(args: &[&str]) -> Run {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("util-linux `script` is not installed: the terminal tests need it");
    let mut line = String::from("exec \"$PTY_PROGRAM\"");
    let mut c = Command::new(script);
    for (i, a) in args.iter().enumerate() {
        line.push_str(&format!(" \"$PTY_ARG{i}\""));
        c.env(format!("PTY_ARG{i}"), a);
    }
    c.args(["-qec", &line, "/dev/null"])
        .env("PTY_PROGRAM", BIN)
        .env("SHELL", "/bin/sh")
        .env("TERM", "xterm");
    let mut r = run_cmd(&mut c);
    r.stdout = r.stdout.replace("\r\n", "\n");
    r
}

/// clap quotes the arguments it refuses: on a terminal (and off it) no escape sequence or
/// bidirectional control of them arrives raw; a fatal line's message neither, on a terminal.
#[test]
fn command_line_errors_and_fatal_lines_show_hostile_words_escaped() {
    let hostile = "s\u{1b}]0;PWNED\u{7}\u{202e}x";
    let raw = |t: &str| t.contains('\u{1b}') || t.contains('\u{202e}') || t.contains('\u{9b}');
    for args in [vec![hostile], vec!["settings", "--bogus", hostile]] {
        let tty = on_a_pty(&args);
        assert_eq!(tty.code, Some(1), "{args:?}: {}", tty.stdout);
        assert!(
            tty.stdout.starts_with("error: "),
            "{args:?}: {}",
            tty.stdout
        );
        assert!(!raw(&tty.stdout), "{args:?}: {:?}", tty.stdout);
        let piped = run_cmd(Command::new(BIN).args(&args));
        assert_eq!(piped.code, Some(1));
        assert!(!raw(&piped.stderr), "{args:?}: {:?}", piped.stderr);
    }
    let missing = format!("/nonexistent/{hostile}\u{9b}31m.yaml");
    let tty = on_a_pty(&[
        "settings",
        "resource-overrides",
        "health",
        &missing,
        "--argocd-cm-path",
        "x",
    ]);
    assert_eq!(tty.code, Some(20), "{}", tty.stdout);
    assert!(tty.stdout.contains("\"level\":\"fatal\""), "{}", tty.stdout);
    assert!(!raw(&tty.stdout), "{:?}", tty.stdout);
    let line = tty.stdout.lines().find(|l| l.contains("fatal")).unwrap();
    let msg: Value = serde_json::from_str(line).unwrap();
    assert!(msg["msg"].as_str().unwrap().contains(&missing), "{line}");
}

/// Output that cannot be written (a full disk) is an error, for help too.
#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_fails() {
    let cm = example("argocd-cm.yaml");
    let obj = pacto_testdata("compliant.yaml");
    for (args, code) in [
        (vec!["--help"], 1),
        (vec!["--version"], 1),
        (
            vec![
                "settings",
                "resource-overrides",
                "health",
                &obj,
                "--argocd-cm-path",
                &cm,
            ],
            20,
        ),
    ] {
        let r = run_cmd(
            Command::new("sh")
                .args(["-c", "exec \"$0\" \"$@\" > /dev/full", BIN])
                .args(&args),
        );
        assert_eq!(r.code, Some(code), "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("writing to standard output"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

/// Every ```console block of README.md and docs/*.md whose command is `argocd pacto ...` prints
/// exactly what it shows (exit 0, nothing on stderr); the kubectl_pacto readme tests run the
/// `kubectl pacto` ones.
#[test]
fn the_readme_examples_show_what_argocd_pacto_prints() {
    let mut docs = vec![repo().join("README.md")];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            docs.push(path);
        }
    }
    let mut ran = 0;
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        for block in text.split("```console\n").skip(1) {
            let body = block.split("```").next().unwrap();
            let (first, shown) = body.split_once('\n').unwrap();
            let Some(args) = first.strip_prefix("$ argocd pacto ") else {
                continue;
            };
            let mut c = Command::new(BIN);
            c.args(args.split_whitespace()).current_dir(repo());
            let r = run_cmd(&mut c);
            assert_eq!(
                r.code,
                Some(0),
                "{}: `{first}`: {}",
                doc.display(),
                r.stderr
            );
            assert_eq!(r.stderr, "", "{}: `{first}`", doc.display());
            assert_eq!(r.stdout, shown, "{}: `{first}`", doc.display());
            ran += 1;
        }
    }
    assert!(ran > 0, "no `argocd pacto` example in the README or docs/");
}
