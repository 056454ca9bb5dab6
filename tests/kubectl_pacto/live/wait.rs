//! `kubectl pacto wait` against the fake API server with a live watch: reached at once, reached
//! when the object changes, timed out (with the explanation), deleted while waiting, and `--for
//! delete`. Expected gates and verdicts come from the fixtures' own comments ("GitOps promotion
//! gates": a Compliant verdict at the current generation passes both gates).

use super::*;
use fake_apiserver::{Fault, FaultAction};
use std::process::Stdio;

const PACTO: &str = "pacto.trianalab.io/v1alpha1";

/// Starts `kubectl-pacto ARGS` against the cluster; returns the child.
fn start(c: &Cluster, args: &[&str]) -> std::process::Child {
    let mut all = args.to_vec();
    all.extend(["--kubeconfig", s(&c.kubeconfig)]);
    cmd(c.dir.path(), &all)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for the child within the runs' hang guard; its exit code and output.
fn finish(child: std::process::Child) -> Run {
    crate::common::finish(child, DEADLINE, "kubectl pacto")
}

/// Waits until the server has seen a watch request (so a change after it is a change the
/// watch must report).
fn until_watching(c: &Cluster) {
    let started = std::time::Instant::now();
    while !c.server.requests().iter().any(|r| {
        r.query_param("watch").as_deref() == Some("true")
            || r.query_param("watch").as_deref() == Some("1")
    }) {
        assert!(started.elapsed() < DEADLINE, "no watch request");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn reached_at_once_prints_condition_met() {
    let c = shop();
    let r = c.run(&["wait", "pacto/orders", "--for", "verdict=Compliant"]);
    r.assert_code(0);
    assert_eq!(r.stdout, "pacto.pacto.trianalab.io/orders condition met\n");
    let r = c.run(&[
        "wait",
        "pacto/orders",
        "--for",
        "gate=pass",
        "--timeout",
        "0",
    ]);
    r.assert_code(0);
    // kubectl's condition rule on the operator's conditions.
    let r = c.run(&["wait", "pacto/orders", "--for", "condition=ContractValid"]);
    r.assert_code(0);
}

#[test]
fn reached_when_the_verdict_catches_up_with_the_generation() {
    let c = shop();
    // inventory: Compliant, written for generation 3 while the spec is at 4: the gates hold.
    let child = start(
        &c,
        &[
            "wait",
            "pacto/inventory",
            "--for",
            "gate=pass",
            "--timeout",
            "100s",
        ],
    );
    until_watching(&c);
    let mut o = c
        .server
        .get(PACTO, "Pacto", Some("shop"), "inventory")
        .unwrap();
    let generation = o["metadata"]["generation"].clone();
    o["status"]["observedGeneration"] = generation;
    c.server.insert(o);
    let r = finish(child);
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        "pacto.pacto.trianalab.io/inventory condition met\n"
    );
}

/// A Pacto that holds never reaches `gate=pass`: gift-cards (Unknown: both gates hold) and
/// legacy-checkout (being deleted: Argo CD answers Progressing, a hold; no Kustomization of
/// this cluster applies it, so Flux gates nothing and the hold decides) time out, and the
/// explain block shows Argo CD's hold.
#[test]
fn a_holding_pacto_never_reaches_gate_pass() {
    let c = shop();
    for name in ["gift-cards", "legacy-checkout"] {
        let r = c.run(&[
            "wait",
            &format!("pacto/{name}"),
            "--for",
            "gate=pass",
            "--timeout",
            "1s",
        ]);
        r.assert_code(1);
        assert_eq!(
            r.stderr,
            format!("error: timed out after 1s waiting for gate=pass on pacto.pacto.trianalab.io/{name}\n")
        );
        assert!(
            field(&r.stdout, "Gate").unwrap().starts_with("hold"),
            "{name}: {}",
            r.stdout
        );
    }
}

#[test]
fn timed_out_says_why_in_the_explain_block() {
    let c = shop();
    // notifications: NonCompliant with two error findings: both gates fail it.
    let r = c.run(&[
        "wait",
        "pacto/notifications",
        "--for",
        "gate=pass",
        "--timeout",
        "1s",
    ]);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: timed out after 1s waiting for gate=pass on pacto.pacto.trianalab.io/notifications\n"
    );
    assert_eq!(field(&r.stdout, "Pacto"), Some("shop/notifications"));
    assert_eq!(field(&r.stdout, "Verdict"), Some("NonCompliant"));
    assert!(
        field(&r.stdout, "Gate").unwrap().starts_with("fail"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Flux:"), "{}", r.stdout);
}

#[test]
fn deleted_while_waiting_is_an_error_and_for_delete_is_met() {
    let c = shop();
    let child = start(
        &c,
        &[
            "wait",
            "pacto/inventory",
            "--for",
            "gate=pass",
            "--timeout",
            "100s",
        ],
    );
    until_watching(&c);
    assert!(c.server.remove(PACTO, "Pacto", Some("shop"), "inventory"));
    let r = finish(child);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: pacto.pacto.trianalab.io/inventory was deleted while waiting for gate=pass\n"
    );
    c.server.clear_requests();
    let child = start(
        &c,
        &[
            "wait",
            "pacto/orders",
            "--for",
            "delete",
            "--timeout",
            "100s",
        ],
    );
    until_watching(&c);
    assert!(c.server.remove(PACTO, "Pacto", Some("shop"), "orders"));
    let r = finish(child);
    r.assert_code(0);
    assert_eq!(r.stdout, "pacto.pacto.trianalab.io/orders condition met\n");
    // Already gone: met at once; a missing object for another condition is kubectl's NotFound.
    c.run(&["wait", "pacto/orders", "--for", "delete"])
        .assert_code(0);
    let r = c.run(&["wait", "pacto/orders", "--for", "verdict=Compliant"]);
    r.assert_code(1);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);
}

#[test]
fn a_selector_waits_for_every_object_it_matches() {
    let c = shop();
    let r = c.run(&["wait", "pactos", "-l", "nothing=here", "--for", "gate=pass"]);
    r.assert_code(1);
    assert_eq!(r.stderr, "error: no matching resources found\n");
    let r = c.run(&["wait", "pactos", "--for", "gate=pass"]);
    r.assert_code(1);
    assert!(
        r.stderr
            .starts_with("error: give KIND/NAME, or KIND with -l"),
        "{}",
        r.stderr
    );
    let r = c.run(&["wait", "stage/x", "--for", "gate=pass"]);
    r.assert_code(1);
    assert!(
        r.stderr.starts_with("error: --for gate=... is for Pactos"),
        "{}",
        r.stderr
    );
}

#[test]
fn get_watch_prints_the_listing_then_a_row_per_change() {
    let c = shop();
    let before = c.run(&["get"]);
    let child = start(&c, &["get", "-w", "--request-timeout", "4s"]);
    until_watching(&c);
    let mut o = c
        .server
        .get(PACTO, "Pacto", Some("shop"), "inventory")
        .unwrap();
    let generation = o["metadata"]["generation"].clone();
    o["status"]["observedGeneration"] = generation;
    c.server.insert(o);
    let r = finish(child);
    r.assert_code(0);
    assert!(r.stdout.starts_with(&before.stdout), "{}", r.stdout);
    let rows: Vec<&str> = r.stdout[before.stdout.len()..].lines().collect();
    assert_eq!(rows.len(), 1, "{}", r.stdout);
    // The row as the listing now shows it (cells compared; a row is laid out on its own).
    let after = c.run(&["get"]);
    let now = after
        .stdout
        .lines()
        .find(|l| l.starts_with("inventory "))
        .unwrap();
    let cells = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(cells(rows[0]), cells(now));
    let row = after
        .stdout
        .lines()
        .skip(1)
        .position(|l| l.starts_with("inventory "))
        .unwrap();
    assert_eq!(cell(&before.stdout, row, "FRESH"), "no");
    assert_eq!(cell(&after.stdout, row, "FRESH"), "yes");
    // The row lines up with the listing above it (kubectl's tab writer keeps its widths).
    let header = before.stdout.lines().next().unwrap();
    let under = format!("{header}\n{}\n", rows[0]);
    assert_eq!(cell(&under, 0, "NAME"), "inventory");
    assert_eq!(cell(&under, 0, "FRESH"), "yes");
    assert_eq!(cell(&under, 0, "STATUS"), "Compliant");
    let r = c.run(&["get", "-w", "-f", "examples/objects"]);
    r.assert_code(1);
    assert!(r.stderr.contains("cannot be used with -f"), "{}", r.stderr);
}

/// The queries of the requests for Pactos, in order, each as `list` or `watch` and its query
/// as sent.
fn pacto_requests(c: &Cluster) -> Vec<(String, String)> {
    c.server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/pactos"))
        .map(|r| {
            let verb = match r.query_param("watch").as_deref() {
                Some("true") | Some("1") => "watch",
                _ => "list",
            };
            (verb.to_string(), r.query)
        })
        .collect()
}

/// The value of `key` in a raw query (as sent, not decoded).
fn raw_param(query: &str, key: &str) -> Option<String> {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .map(str::to_string)
}

/// `wait KIND/NAME` reads that one object as kubectl wait does (`kubectl/pkg/cmd/wait`: a list
/// and a watch with `fieldSelector=metadata.name=NAME`), and the watch starts from the list's
/// resourceVersion with bookmarks asked for. The field selector is compared with what kubectl
/// wait itself sends to the same server.
#[test]
fn wait_by_name_lists_and_watches_that_one_object_as_kubectl_wait() {
    let c = shop();
    let k = crate::kubectl_plugin::kubectl();
    let mut kc = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[Path::new("/usr/bin"), Path::new("/bin")],
        &[
            "wait",
            "pactos.pacto.trianalab.io/inventory",
            "--for=jsonpath={.status.contractStatus}=Never",
            "--timeout=2s",
            "--kubeconfig",
            s(&c.kubeconfig),
        ],
    );
    let kubectl = run_with(&mut kc, None, Duration::from_secs(60));
    assert_eq!(kubectl.code, Some(1), "{}", kubectl.stderr);
    let theirs = pacto_requests(&c);
    let their_list = theirs
        .iter()
        .find(|(v, _)| v == "list")
        .expect("kubectl's list");
    let their_watch = theirs
        .iter()
        .find(|(v, _)| v == "watch")
        .expect("kubectl's watch");
    let by_name = Some("metadata.name%3Dinventory".to_string());
    assert_eq!(
        raw_param(&their_list.1, "fieldSelector"),
        by_name,
        "{theirs:?}"
    );
    assert_eq!(
        raw_param(&their_watch.1, "fieldSelector"),
        by_name,
        "{theirs:?}"
    );
    assert_eq!(
        raw_param(&their_watch.1, "allowWatchBookmarks").as_deref(),
        Some("true")
    );

    c.server.clear_requests();
    let listed_at = c.server.resource_version();
    let r = c.run(&[
        "wait",
        "pacto/inventory",
        "--for",
        "gate=pass",
        "--timeout",
        "2s",
    ]);
    r.assert_code(1);
    let ours = pacto_requests(&c);
    assert_eq!(
        ours[0],
        (
            "list".to_string(),
            "fieldSelector=metadata.name%3Dinventory&limit=500".to_string()
        ),
        "{ours:?}"
    );
    assert!(ours.len() >= 2, "{ours:?}");
    let watch = &ours[1];
    assert_eq!(watch.0, "watch");
    assert_eq!(raw_param(&watch.1, "fieldSelector"), by_name);
    assert_eq!(
        raw_param(&watch.1, "allowWatchBookmarks").as_deref(),
        Some("true")
    );
    assert_eq!(
        raw_param(&watch.1, "resourceVersion"),
        Some(listed_at.to_string())
    );
    // No object fetched by name, no watch of the whole namespace.
    assert_eq!(c.count("GET", "/pactos/inventory"), 0);
}

/// An API server restart ends the watch, the server refuses connections for a while, and the
/// resourceVersion the wait watched from is gone (410) once it is back: the wait backs off,
/// lists again and still sees the object reach the condition, as `kubectl wait` (an informer:
/// client-go `tools/cache/reflector.go`) does.
#[test]
fn wait_survives_a_restart_of_the_api_server() {
    let c = shop();
    let child = start(
        &c,
        &[
            "wait",
            "pacto/inventory",
            "--for",
            "gate=pass",
            "--timeout",
            "100s",
        ],
    );
    until_watching(&c);
    // Down: every request for Pactos dropped; something else moves the resourceVersion on.
    c.server.fault(Fault::always("/pactos", FaultAction::Drop));
    c.server
        .insert(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "elsewhere", "namespace": "shop"}}));
    c.server.clear_requests();
    c.server.restart();
    // The follow tries again while the server is down.
    let started = std::time::Instant::now();
    while c.count("GET", "/pactos") < 2 {
        assert!(started.elapsed() < DEADLINE, "no retry while down");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Meanwhile the verdict catches up with the generation.
    let mut o = c
        .server
        .get(PACTO, "Pacto", Some("shop"), "inventory")
        .unwrap();
    o["status"]["observedGeneration"] = o["metadata"]["generation"].clone();
    c.server.insert(o);
    c.server.clear_faults();
    let r = finish(child);
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        "pacto.pacto.trianalab.io/inventory condition met\n"
    );
    // Back up: the watch from the old resourceVersion was 410 Gone, and the wait listed again.
    let verbs: Vec<String> = pacto_requests(&c).into_iter().map(|(v, _)| v).collect();
    assert!(verbs.iter().any(|v| v == "list"), "{verbs:?}");
}

/// A wait on a server that keeps failing ends at its `--timeout` (not before: the follow keeps
/// trying, a lower bound only) with the server's error (`error:`, exit 1), having asked again
/// only after the reflector's backoff (0.2 s pause, then 0.8 s, 1.6 s, 3.2 s: at most five
/// attempts in 8 s).
#[test]
fn wait_on_a_failing_server_ends_at_its_timeout_with_the_error() {
    let c = shop();
    let spawned = std::time::Instant::now();
    let child = start(
        &c,
        &[
            "wait",
            "pacto/inventory",
            "--for",
            "gate=pass",
            "--timeout",
            "8s",
        ],
    );
    until_watching(&c);
    c.server
        .fault(Fault::always("/pactos", FaultAction::Status(503)));
    c.server.clear_requests();
    c.server.restart();
    let r = finish(child);
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr.starts_with("error: the API server answered 503 ")
            && r.stderr
                .contains(" to watch pactos.pacto.trianalab.io in namespace \"shop\": "),
        "{}",
        r.stderr
    );
    assert!(
        spawned.elapsed() >= Duration::from_secs(8),
        "{:?}",
        spawned.elapsed()
    );
    let tries = c.count("GET", "/pactos");
    assert!((2..=5).contains(&tries), "{tries}");
}

/// `get -w` across an API server restart: while the watch is down the objects change; once
/// the server is back the old resourceVersion is gone (410), the follow lists again and prints
/// one row per object that changed meanwhile, as kubectl's `get -w` prints one per event: the
/// changed one and the new one as they are now, the deleted one as last seen; an object that
/// did not change is not printed again (client-go `DeltaFIFO.Replace`, see `cluster::watch`).
#[test]
fn get_watch_prints_what_changed_while_the_watch_was_down() {
    let c = shop();
    let before = c.run(&["get"]);
    // The follow ends at --request-timeout: long enough for the steps below on a machine
    // busy with other builds (at 30 s it once ended while the server was still down).
    let child = start(&c, &["get", "-w", "--request-timeout", "60s"]);
    until_watching(&c);
    c.server.fault(Fault::always("/pactos", FaultAction::Drop));
    c.server
        .insert(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "elsewhere", "namespace": "shop"}}));
    c.server.clear_requests();
    c.server.restart();
    let started = std::time::Instant::now();
    while c.count("GET", "/pactos") < 2 {
        assert!(started.elapsed() < DEADLINE, "no retry while down");
        std::thread::sleep(Duration::from_millis(20));
    }
    // While down: inventory's verdict catches up, notifications is deleted, a new Pacto
    // (a copy of orders) appears.
    let mut o = c
        .server
        .get(PACTO, "Pacto", Some("shop"), "inventory")
        .unwrap();
    o["status"]["observedGeneration"] = o["metadata"]["generation"].clone();
    c.server.insert(o);
    assert!(c
        .server
        .remove(PACTO, "Pacto", Some("shop"), "notifications"));
    let mut new = c
        .server
        .get(PACTO, "Pacto", Some("shop"), "orders")
        .unwrap();
    new["metadata"] = serde_json::json!({"name": "orders-copy", "namespace": "shop",
        "generation": new["metadata"]["generation"].clone()});
    c.server.insert(new);
    c.server.clear_faults();
    let after = c.run(&["get"]);
    let r = finish(child);
    r.assert_code(0);
    assert!(r.stdout.starts_with(&before.stdout), "{}", r.stdout);
    let cells = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let row_of = |table: &str, name: &str| {
        cells(
            table
                .lines()
                .find(|l| l.starts_with(&format!("{name} ")))
                .unwrap_or_else(|| panic!("no row {name} in {table}")),
        )
    };
    let rows: Vec<Vec<String>> = r.stdout[before.stdout.len()..].lines().map(cells).collect();
    assert_eq!(
        rows,
        [
            row_of(&after.stdout, "inventory"),
            row_of(&after.stdout, "orders-copy"),
            row_of(&before.stdout, "notifications"),
        ],
        "{}",
        r.stdout
    );
}

/// kubectl wait refuses a malformed `--for jsonpath=` before it asks anything, and ends at
/// once, with the template's error, when the template fails on the object
/// (kubectl/pkg/cmd/wait/json.go): neither waits out its timeout.
#[test]
fn a_failing_jsonpath_ends_the_wait_at_once_as_kubectls_does() {
    let c = shop();
    let k = crate::kubectl_plugin::kubectl();
    for (for_, words, asks) in [
        (
            "jsonpath={.status.conditions[}=X",
            "unterminated array",
            false,
        ),
        ("jsonpath=.x}=X", "unexpected path string", false),
        (
            "jsonpath={.status.conditions[9].type}=X",
            "array index out of bounds: index 9, length 2",
            true,
        ),
        (
            "jsonpath={.status.conditions[*].type}=X",
            "given jsonpath expression matches more than one value",
            true,
        ),
    ] {
        let before = c.server.requests().len();
        // A timeout far beyond the test's hang guard: only the error can end these runs.
        let r = c.run(&["wait", "pacto/orders", "--for", for_, "--timeout", "1h"]);
        r.assert_code(1).assert_no_panic();
        assert!(r.stderr.contains(words), "{for_}: {}", r.stderr);
        assert!(!r.stderr.contains("timed out"), "{for_}: {}", r.stderr);
        assert_eq!(c.server.requests().len() > before, asks, "{for_}");
        let mut kc = crate::kubectl_plugin::kubectl_cmd(
            &k,
            c.dir.path(),
            &[Path::new("/usr/bin"), Path::new("/bin")],
            &[
                "wait",
                "pactos.pacto.trianalab.io/orders",
                &format!("--for={for_}"),
                "--timeout=1h",
                "--kubeconfig",
                s(&c.kubeconfig),
            ],
        );
        let kr = run_with(&mut kc, None, DEADLINE);
        assert_eq!(kr.code, Some(1), "kubectl {for_}: {}", kr.stderr);
        assert!(kr.stderr.contains(words), "kubectl {for_}: {}", kr.stderr);
    }
}
