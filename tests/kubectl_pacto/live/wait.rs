//! `kubectl pacto wait` against the fake API server with a live watch: reached at once, reached
//! when the object changes, timed out (with the explanation), deleted while waiting, and `--for
//! delete`. Expected gates and verdicts come from the fixtures' own comments ("GitOps promotion
//! gates": a Compliant verdict at the current generation passes both gates).

use super::*;
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
