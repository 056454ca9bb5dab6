//! Script failures are verdicts, not errors: Argo CD shows the resource `Unknown` with the Lua
//! error text as the message (gitops-engine `pkg/health/health.go` `GetResourceHealth`), so the
//! command exits 0 and reports them. Texts are gopher-lua v1.1.2's, the interpreter Argo CD runs
//! (argo-cd `util/lua/lua.go` `ExecuteHealthLua`; gopher-lua `parse/lexer.go` `Error`).

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The verdict of one custom script for `example.com/Widget` on the widget fixture.
struct Verdict {
    status: String,
    message: String,
    table: String,
    elapsed: Duration,
}

fn evaluate(dir: &Path, script: &str, open_libs: bool) -> Verdict {
    let mut data = vec![("resource.customizations.health.example.com_Widget", script)];
    if open_libs {
        data.push((
            "resource.customizations.useOpenLibs.example.com_Widget",
            "true",
        ));
    }
    let cm = write_argocd_cm(dir, &data);
    let widget = fixture("objects/widget.yaml");
    let json = run(&mut pacto(&[
        "health",
        "-f",
        s(&widget),
        "--argocd-cm",
        s(&cm),
        "-o",
        "json",
    ]));
    json.assert_code(0).assert_no_panic();
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let table = run(&mut pacto(&[
        "health",
        "-f",
        s(&widget),
        "--argocd-cm",
        s(&cm),
    ]));
    table.assert_code(0).assert_no_panic();
    Verdict {
        status: v["items"][0]["argo"]["status"]
            .as_str()
            .unwrap_or("<null>")
            .to_string(),
        message: v["items"][0]["argo"]["message"]
            .as_str()
            .unwrap_or("<null>")
            .to_string(),
        table: table.stdout,
        elapsed: json.elapsed,
    }
}

fn unknown_with(script: &str, open_libs: bool) -> (String, Verdict) {
    let dir = tempfile::tempdir().unwrap();
    let v = evaluate(dir.path(), script, open_libs);
    assert_eq!(v.status, "Unknown", "message: {}", v.message);
    assert_eq!(cell(&v.table, 0, "ARGO"), "Unknown", "table: {}", v.table);
    (v.message.clone(), v)
}

#[test]
fn syntax_error_has_gophers_parser_text() {
    let (msg, _) = unknown_with("local hs = {status = = \"x\"}\nreturn hs\n", false);
    assert_eq!(msg, "<string> line:1(column:22) near '=':   syntax error\n");
}

#[test]
fn syntax_error_on_a_later_line() {
    let (msg, v) = unknown_with(
        "local hs = {}\nhs.status = \"Healthy\" hs.message = = 1\nreturn hs\n",
        false,
    );
    assert_eq!(msg, "<string> line:2(column:36) near '=':   syntax error\n");
    // One object stays one row: the trailing newline is not printed raw.
    assert_eq!(v.table.lines().count(), 2, "{}", v.table);
}

#[test]
fn syntax_error_at_end_of_input() {
    let (msg, _) = unknown_with("local x = 1\nlocal y = (x\n", false);
    assert_eq!(msg, "<string> at EOF:   syntax error\n");
}

/// The deadline is a wall clock, as Argo CD's: the run takes at least the second (a busy
/// machine only makes it longer), and the deadline's own error shows that it, not the hang
/// guard of the run, stopped the loop.
#[test]
fn endless_loop_hits_the_one_second_deadline() {
    // util/lua/lua.go: context.WithTimeout(1 s); gopher checks it in its main loop.
    let (msg, v) = unknown_with("while true do end", false);
    assert_eq!(msg, "<string>:1: context deadline exceeded");
    assert!(
        v.elapsed >= Duration::from_millis(950),
        "stopped early: {:?}",
        v.elapsed
    );
}

/// Stopped by the memory limit (work done), named in the message.
#[test]
fn memory_bomb_is_stopped_by_the_memory_limit() {
    let (msg, _) = unknown_with("local s = \"x\" while true do s = s .. s end", false);
    let lower = msg.to_lowercase();
    assert!(lower.contains("memory") && lower.contains("limit"), "{msg}");
}

#[test]
fn os_execute_with_open_libs_is_refused_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("pwned");
    let script = format!(
        "os.execute(\"touch {}\")\nreturn {{status = \"Healthy\"}}\n",
        marker.display()
    );
    let v = evaluate(dir.path(), &script, true);
    assert_eq!(v.status, "Unknown", "{}", v.message);
    assert!(v.message.contains("os.execute"), "{}", v.message);
    assert!(!marker.exists(), "the script ran a process");
}

#[test]
fn os_is_absent_in_restricted_mode() {
    // Restricted mode has no global os (argo-cd `runLua` opens only package, base and table).
    let (msg, _) = unknown_with(
        "os.execute(\"true\")\nreturn {status = \"Healthy\"}\n",
        false,
    );
    assert_eq!(
        msg,
        "<string>:1: attempt to index a non-table object(nil) with key 'execute'"
    );
}

#[test]
fn require_os_gives_the_safe_time_and_date_only() {
    let dir = tempfile::tempdir().unwrap();
    let v = evaluate(
        dir.path(),
        "local os = require(\"os\")\nreturn {status = \"Healthy\", message = type(os.time) .. \",\" .. type(os.date) .. \",\" .. type(os.execute)}\n",
        false,
    );
    assert_eq!(
        (v.status.as_str(), v.message.as_str()),
        ("Healthy", "function,function,nil")
    );
}

#[test]
fn io_open_is_absent_in_restricted_mode() {
    let (msg, _) = unknown_with(
        "local f = io.open(\"/etc/hostname\")\nreturn {status = \"Healthy\"}\n",
        false,
    );
    assert_eq!(
        msg,
        "<string>:1: attempt to index a non-table object(nil) with key 'open'"
    );
}

#[test]
fn io_open_with_open_libs_is_refused() {
    let (msg, _) = unknown_with(
        "local f = io.open(\"/etc/hostname\")\nreturn {status = \"Healthy\", message = f:read(\"*a\")}\n",
        true,
    );
    assert!(msg.contains("io.open"), "{msg}");
}

#[test]

fn require_json_is_not_found() {
    // gopher-lua `baselib.go` `loRequire`: `<string>:1: module json not found:\n\tno field
    // package.preload['json']\n\t...`
    let (msg, _) = unknown_with(
        "local json = require(\"json\")\nreturn {status = \"Healthy\"}\n",
        false,
    );
    assert!(
        msg.starts_with(
            "<string>:1: module json not found:\n\tno field package.preload['json']\n\t"
        ),
        "{msg:?}"
    );
}

#[test]
fn string_methods_are_absent_in_restricted_mode() {
    // Strings have no metatable without the string library (argo-cd `runLua`;
    // argoproj/argo-cd#7222).
    let (msg, _) = unknown_with(
        "if obj.metadata.name:find(\"w\") then return {status = \"Healthy\"} end\n",
        false,
    );
    assert_eq!(
        msg,
        "<string>:1: attempt to index a non-table object(string) with key 'find'"
    );
}

#[test]
fn string_methods_work_with_open_libs() {
    let dir = tempfile::tempdir().unwrap();
    let v = evaluate(
        dir.path(),
        "if obj.metadata.name:find(\"w\") then return {status = \"Healthy\", message = string.upper(obj.metadata.name)} end\n",
        true,
    );
    assert_eq!((v.status.as_str(), v.message.as_str()), ("Healthy", "W1"));
}

#[test]
fn indexing_nil_names_the_key_and_the_line() {
    let (msg, _) = unknown_with(
        "local hs = {}\nhs.status = obj.status.phase\nreturn hs\n",
        false,
    );
    assert_eq!(
        msg,
        "<string>:2: attempt to index a non-table object(nil) with key 'phase'"
    );
}

#[test]
fn non_table_result_is_an_error() {
    let (msg, _) = unknown_with("return \"Healthy\"", false);
    assert_eq!(msg, "expect table output from Lua script, not string");
}

#[test]
fn invalid_status_and_empty_results_are_not_errors() {
    let dir = tempfile::tempdir().unwrap();
    let v = evaluate(
        dir.path(),
        "return {status = \"healthy\", message = \"lower case\"}",
        false,
    );
    assert_eq!(
        (v.status.as_str(), v.message.as_str()),
        ("Unknown", "Lua returned an invalid health status")
    );
    let v = evaluate(dir.path(), "return {}", false);
    assert_eq!((v.status.as_str(), v.message.as_str()), ("", ""));
    let v = evaluate(dir.path(), "return nil", false);
    assert_eq!((v.status.as_str(), v.message.as_str()), ("", ""));
    // Field names are matched case-insensitively by Go's JSON decoding.
    let v = evaluate(
        dir.path(),
        "return {Status = \"Degraded\", MESSAGE = \"x\"}",
        false,
    );
    assert_eq!((v.status.as_str(), v.message.as_str()), ("Degraded", "x"));
}
