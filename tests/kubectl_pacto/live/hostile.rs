//! A hostile API server or exec credential plugin: an endless answer stops at
//! `--max-response-bytes`, a plugin that floods its output or hangs is stopped (and no longer
//! runs afterwards), and a well-behaved plugin's token is used. Each error exits 1 at its bound
//! (bytes read, or the tool's own `--request-timeout`), which the error names; the runs' hang
//! guard is far beyond it.

use super::*;
use fake_apiserver::{Fault, FaultAction};

/// An answer without end is refused at the bound, named with its flag.
#[test]
fn an_endless_answer_stops_at_the_bound() {
    let c = shop();
    c.server
        .fault(Fault::always("/pactos", FaultAction::EndlessBody));
    let r = c.run(&["get", "--max-response-bytes", "1Mi"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the API server's answer is larger than 1 MiB (--max-response-bytes; give a larger bound, or a smaller --chunk-size, to read it)\n"
    );
}

/// A kubeconfig whose user runs `script` (written to the cluster's directory) as its exec plugin.
#[cfg(unix)]
fn exec_kubeconfig(c: &Cluster, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = c.dir.path();
    let plugin = dir.join("plugin.sh");
    std::fs::write(&plugin, script).unwrap();
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let kc = dir.join("exec.yaml");
    std::fs::write(
        &kc,
        format!("apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: fake\n  cluster: {{server: \"{}\"}}\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\ncontexts:\n- name: x\n  context: {{cluster: fake, user: u, namespace: shop}}\n", c.server.url(), s(&plugin)),
    )
    .unwrap();
    kc
}

fn run_exec(c: &Cluster, kc: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["get", "--kubeconfig", s(kc)];
    args.extend_from_slice(extra);
    run_with(&mut cmd(c.dir.path(), &args), None, DEADLINE)
}

/// Whether a process still runs (signal 0).
#[cfg(unix)]
fn alive(pid: &str) -> bool {
    std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(unix)]
#[test]
fn a_flooding_exec_plugin_is_stopped_at_the_bound() {
    let c = shop();
    let pid = c.dir.path().join("pid");
    let kc = exec_kubeconfig(
        &c,
        &format!("#!/bin/sh\necho $$ > {}\nexec yes credential\n", s(&pid)),
    );
    let r = run_exec(&c, &kc, &["--max-response-bytes", "1Mi"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        format!(
            "error: {}: the kubeconfig's exec plugin \"{}\" answered more than 1 MiB (--max-response-bytes): it was stopped\n",
            s(&kc),
            s(&c.dir.path().join("plugin.sh"))
        )
    );
    let pid = std::fs::read_to_string(&pid).unwrap();
    assert!(!alive(&pid), "the plugin {pid} still runs");
    assert!(c.server.requests().is_empty());
}

#[cfg(unix)]
#[test]
fn a_hanging_exec_plugin_is_killed_at_the_request_timeout() {
    let c = shop();
    let pid = c.dir.path().join("pid");
    let kc = exec_kubeconfig(
        &c,
        &format!("#!/bin/sh\necho $$ > {}\nexec sleep 600\n", s(&pid)),
    );
    // The plugin would sleep far beyond the runs' hang guard: only the tool's own timeout,
    // named in the error, ends this run.
    let r = run_exec(&c, &kc, &["--request-timeout", "1s"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        format!(
            "error: {}: the kubeconfig's exec plugin \"{}\" gave no credentials within 1s (--request-timeout; 60s without it): it was stopped\n",
            s(&kc),
            s(&c.dir.path().join("plugin.sh"))
        )
    );
    let pid = std::fs::read_to_string(&pid).unwrap();
    assert!(!alive(&pid), "the plugin {pid} still runs");
}

/// A plugin that starts a helper and waits for it: at the request timeout the whole process
/// group is stopped, the helper with the plugin (it used to keep running).
#[cfg(unix)]
#[test]
fn a_hanging_exec_plugins_children_are_stopped_with_it() {
    let c = shop();
    let pid = c.dir.path().join("child-pid");
    let kc = exec_kubeconfig(
        &c,
        // The helper's output goes elsewhere: only the process group holds it to the plugin.
        &format!(
            "#!/bin/sh\nsleep 600 >/dev/null 2>&1 &\necho $! > {}\nwait\n",
            s(&pid)
        ),
    );
    let r = run_exec(&c, &kc, &["--request-timeout", "1s"]);
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr.contains("gave no credentials within 1s"),
        "{}",
        r.stderr
    );
    let pid = std::fs::read_to_string(&pid).unwrap();
    // The kill is sent before the tool exits; the helper is gone once the kernel delivers it.
    let gone = (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        !alive(&pid)
    });
    assert!(gone, "the plugin's child {pid} still runs");
}

/// A plugin that answers an ExecCredential: its token is sent, the request info it was given
/// is client-go's.
#[cfg(unix)]
#[test]
fn an_exec_plugin_token_is_used() {
    let c = shop();
    let info = c.dir.path().join("info");
    let kc = exec_kubeconfig(
        &c,
        &format!("#!/bin/sh\nprintf '%s' \"$KUBERNETES_EXEC_INFO\" > {}\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"t0k3n\"}}}}'\n", s(&info)),
    );
    let r = run_exec(&c, &kc, &["-o", "name"]);
    r.assert_code(0).assert_no_panic();
    assert!(
        r.stdout.contains("pacto.pacto.trianalab.io/"),
        "{}",
        r.stdout
    );
    let info: Value = serde_json::from_str(&std::fs::read_to_string(&info).unwrap()).unwrap();
    assert_eq!(
        info,
        serde_json::json!({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "spec": {"interactive": false}})
    );
}

/// A plugin answering something else fails with the reason.
#[cfg(unix)]
#[test]
fn an_exec_plugin_without_a_token_is_an_error() {
    let c = shop();
    let kc = exec_kubeconfig(
        &c,
        "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{}}'\n",
    );
    let r = run_exec(&c, &kc, &[]);
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr
            .ends_with("the answer has neither status.token nor a client certificate and key\n"),
        "{}",
        r.stderr
    );
}

/// A Pacto without metadata in a list is an error naming the item, not a row ` / `.
#[test]
fn an_object_without_a_name_from_the_server_is_an_error() {
    let list = r#"{"kind":"PactoList","apiVersion":"pacto.trianalab.io/v1alpha1","metadata":{},"items":[{"apiVersion":"pacto.trianalab.io/v1alpha1","kind":"Pacto"}]}"#;
    let srv = super::faults::scripted(vec![(200, "", list.to_string())]);
    let r = srv.run(&["get"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the API server's answer is malformed: items[0]: an object without metadata\n"
    );
}

/// An answer nested 2,000,000 levels deep (4 MB, within every size bound) is refused before it
/// is parsed, at Go's nesting limit (10,000: `encoding/json` refuses it too), naming the
/// request; it used to overflow the stack (SIGABRT). Run with the address space bounded to
/// 4 GiB (`ulimit -v 4194304`), where nothing may abort either.
#[test]
fn an_answer_nested_without_end_is_refused_before_it_is_parsed() {
    let c = shop();
    let n = 2_000_000;
    let body = format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
    c.server
        .fault(Fault::always("/pactos", FaultAction::Body(body)));
    let mut cmd = Command::new("bash");
    cmd.args([
        "-c",
        "ulimit -v 4194304 && exec \"$0\" \"$@\"",
        PACTO,
        "get",
        "pactos",
        "--kubeconfig",
        s(&c.kubeconfig),
    ])
    .env("HOME", c.dir.path())
    .env_remove("KUBECONFIG");
    let r = run_with(&mut cmd, None, DEADLINE);
    r.assert_code(1).assert_no_panic();
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the API server's answer is malformed: nested deeper than 10000 levels (Go's JSON decoder refuses it too)\n"
    );
}

/// `args` run with the address space bounded to 4 GiB (`ulimit -v 4194304`), where nothing may
/// abort.
fn run_bounded(c: &Cluster, args: &[&str]) -> Run {
    let mut cmd = Command::new("bash");
    cmd.args(["-c", "ulimit -v 4194304 && exec \"$0\" \"$@\"", PACTO])
        .args(args)
        .args(["--kubeconfig", s(&c.kubeconfig)])
        .env("HOME", c.dir.path())
        .env("KUBECTL_PACTO_NOW", NOW)
        .env_remove("KUBECONFIG");
    run_with(&mut cmd, None, DEADLINE)
}

/// The fixture cluster whose Pactos are listed once, then watched as a flood of ever-new
/// objects (each a copy of `shop/inventory` named anew).
fn flooding_new_objects() -> Cluster {
    let c = shop();
    let item = shop_pacto(&c, "inventory");
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server
        .fault(Fault::always("/pactos", FaultAction::FloodNewObjects(item)));
    c
}

/// A watch that reports new objects without end (and never their deletion) ends once the
/// objects it reported alive are more than a list may bring (`--max-list-items`, 100,000 by
/// default) or hold (`--max-response-bytes`), naming the bound: `get -w` kept them all and grew
/// past 2 GB in 20 s. Under `ulimit -v 4194304`.
#[test]
fn a_watch_of_ever_new_objects_stops_at_the_list_bounds() {
    let listed = shop().run(&["get", "-o", "name"]).stdout.lines().count();
    assert!(listed > 0);
    let c = flooding_new_objects();
    // The bound on objects is the point: these Pactos count about 19 kB each in memory (1.6 kB of text), so
    // 100,000 of them pass the default 1 GiB held before they pass 100,000 (the test below
    // reaches that bound).
    let r = run_bounded(
        &c,
        &["get", "-w", "-o", "name", "--max-response-bytes", "1Gi"],
    );
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot watch pactos.pacto.trianalab.io in namespace \"shop\": the watch reported more than 100000 objects alive at once (--max-list-items; give a larger bound to follow them)\n"
    );
    // The listing, then each new object until the store held 100,000.
    assert_eq!(r.stdout.lines().count(), 100_000);
    assert_eq!(
        r.stdout.lines().last(),
        Some(format!("pacto.pacto.trianalab.io/inventory-{}", 100_000 - listed).as_str())
    );

    let c = flooding_new_objects();
    let r = run_bounded(
        &c,
        &["get", "-w", "-o", "name", "--max-response-bytes", "1Mi"],
    );
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot watch pactos.pacto.trianalab.io in namespace \"shop\": the watch reported more than 4 MiB of objects in memory alive at once (4 times --max-response-bytes; give a larger bound to follow them)\n"
    );

    let c = flooding_new_objects();
    // A watch of one name keeps no object of another (the server should have sent none):
    // `wait` ends at its --timeout with its report, however many the flood brought.
    let r = run_bounded(
        &c,
        &[
            "wait",
            "pacto/inventory",
            "--for",
            "verdict=Compliant",
            "--max-list-items",
            "500",
            "--timeout",
            "3s",
        ],
    );
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr.lines().next(),
        Some("error: timed out after 3s waiting for verdict=Compliant on pacto.pacto.trianalab.io/inventory"),
        "{}",
        r.stderr
    );
}

/// `doctor --cluster` reads its kinds at once; against answers that never end, what they hold
/// between them is bounded by `--max-response-bytes` too (each alone held up to the bound, and
/// the run aborted under `ulimit -v 4194304`). Each kind is then not checked, naming the bound,
/// and the exit is 2.
#[test]
fn doctor_reading_endless_answers_at_once_stays_within_one_bound() {
    let c = shop();
    for plural in [
        "/kustomizations",
        "/helmreleases",
        "/pactos",
        "/codertemplatetests",
        "/stages",
        "/ocirepositories",
        "/applications",
        "/pods",
        "/configmaps",
    ] {
        c.server
            .fault(Fault::always(plural, FaultAction::EndlessBody));
    }
    let r = run_bounded(&c, &["doctor", "--cluster"]);
    r.assert_code(2).assert_no_panic();
    assert_eq!(r.stdout, "");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines[0], "error: nothing could be read from the cluster:");
    assert!(lines.len() > 3, "{}", r.stderr);
    // A kind refused only because the others were being read at the same time is read again
    // alone: each ends at its own bound, whatever the timing.
    for l in &lines[1..] {
        assert!(
            l.ends_with("the API server's answer is larger than 256 MiB (--max-response-bytes; give a larger bound, or a smaller --chunk-size, to read it)"),
            "{l}"
        );
    }
}

/// `n` zeros as JSON text: `0,0,…,0`, two bytes a value.
fn zeros(n: usize) -> String {
    let mut out = "0,".repeat(n);
    out.pop();
    out
}

/// A list answer of 15 million zeros (30 MB, well within the 256 MiB one answer may be)
/// takes 1.2 GB once parsed (72 bytes a value, in a vector grown by doubling); 250 MB of it
/// aborted every read command under `ulimit -v 4194304`. It is refused before it is parsed,
/// at 4 times `--max-response-bytes` (1 GiB), naming the request, closed or not; a smaller
/// bound refuses less.
#[test]
fn a_list_of_tiny_values_is_refused_before_it_is_parsed() {
    let c = shop();
    let body = format!(
        "{{\"apiVersion\":\"pacto.trianalab.io/v1alpha1\",\"kind\":\"PactoList\",\"metadata\":{{}},\"items\":[{}]}}",
        zeros(15_000_000)
    );
    c.server.fault(Fault::always(
        "/pactos",
        FaultAction::Body(body.into_bytes()),
    ));
    let r = run_bounded(&c, &["get", "pactos"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the API server's answers would take more than 1 GiB in memory once parsed (4 times --max-response-bytes; give a larger bound to read them)\n"
    );
    // The same answer never closed (no `]}`): the parser would build it all before it met
    // the end (above 67 MB of it, the run aborted); counted as if closed where it ends.
    let unclosed = format!(
        "{{\"apiVersion\":\"pacto.trianalab.io/v1alpha1\",\"kind\":\"PactoList\",\"metadata\":{{}},\"items\":[{{\"pad\":[{}",
        zeros(15_000_000)
    );
    let c2 = shop();
    c2.server.fault(Fault::always(
        "/pactos",
        FaultAction::Body(unclosed.into_bytes()),
    ));
    let r2 = run_bounded(&c2, &["get", "pactos"]);
    r2.assert_code(1).assert_no_panic();
    assert_eq!(r2.stderr, r.stderr);
    let r = run_bounded(&c, &["doctor", "--cluster", "--max-response-bytes", "64Mi"]);
    r.assert_code(2).assert_no_panic();
    assert!(
        r.stderr.contains("Pacto (pacto.trianalab.io) not checked: cannot list pactos.pacto.trianalab.io in all namespaces: the API server's answers would take more than 256 MiB in memory once parsed (4 times --max-response-bytes; give a larger bound to read them)"),
        "{}",
        r.stderr
    );
}

/// One watch event of 10 million zeros (20 MB, within the 64 MiB an event may be) would take
/// 1.2 GB once parsed: it is refused before it is parsed, and the watch ends naming the bound
/// (the same event sent without end kept `get -w` parsing it for ever).
#[test]
fn a_watch_event_of_tiny_values_is_refused_before_it_is_parsed() {
    let c = shop();
    let mut item = shop_pacto(&c, "inventory");
    item["metadata"]["resourceVersion"] = Value::from("999");
    let line = format!(
        "{{\"type\":\"MODIFIED\",\"object\":{}}}\n",
        serde_json::to_string(&item).unwrap().replacen(
            '{',
            &format!("{{\"pad\":[{}],", zeros(10_000_000)),
            1
        )
    );
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server.fault(Fault::always(
        "/pactos",
        FaultAction::FloodWatch(line.into_bytes()),
    ));
    let r = run_bounded(&c, &["get", "-w", "-o", "name"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot watch pactos.pacto.trianalab.io in namespace \"shop\": the API server's answers would take more than 1 GiB in memory once parsed (4 times --max-response-bytes; give a larger bound to read them)\n"
    );
}

/// A watch of ever-new objects each padded with 50,000 zeros (100 kB of text, 4.7 MB in
/// memory): what the store holds is counted in memory, so the watch ends at 1 GiB of them
/// (about 220 objects), not at 256 MiB of their text (2,600, 9 GB: it aborted under
/// `ulimit -v 4194304`).
#[test]
fn a_watch_of_ever_new_padded_objects_stops_at_the_memory_bound() {
    let c = shop();
    let mut item = shop_pacto(&c, "inventory");
    item["pad"] = serde_json::from_str(&format!("[{}]", zeros(50_000))).unwrap();
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server
        .fault(Fault::always("/pactos", FaultAction::FloodNewObjects(item)));
    let r = run_bounded(&c, &["get", "-w", "-o", "name"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot watch pactos.pacto.trianalab.io in namespace \"shop\": the watch reported more than 1 GiB of objects in memory alive at once (4 times --max-response-bytes; give a larger bound to follow them)\n"
    );
    let shown = r.stdout.lines().count();
    assert!((100..400).contains(&shown), "{shown} objects shown");
}

/// A watch that sends the start of an event and then a byte every 200 ms, never its end: `get
/// -w --timeout 2s` ends once the event has been begun and unfinished for 2 s (the bytes are
/// no answer), naming the bound; it waited for the watch's own timeoutSeconds (290 s) first.
#[test]
fn a_watch_event_that_never_ends_ends_get_w_at_its_timeout() {
    let c = shop();
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server.fault(Fault::always(
        "/pactos",
        FaultAction::Trickle(Duration::from_millis(200)),
    ));
    let r = run_bounded(&c, &["get", "-w", "-o", "name", "--timeout", "2s"]);
    r.assert_code(1).assert_no_panic();
    let (head, tail) = r
        .stderr
        .split_once(" sent ")
        .unwrap_or_else(|| panic!("{}", r.stderr));
    assert_eq!(
        head,
        format!(
            "error: cannot watch pactos.pacto.trianalab.io in namespace \"shop\": the API server at {}",
            c.server.url()
        )
    );
    assert!(
        tail.ends_with(" bytes of an event and not its end within 2s (--timeout)\n"),
        "{tail}"
    );
}
