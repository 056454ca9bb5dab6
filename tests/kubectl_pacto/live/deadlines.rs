//! Every cluster command ends within its deadline against a hostile API server: one that
//! accepts connections and never answers (`get`, `get -w`, `explain`, `wait`, `doctor
//! --cluster`, `reconcile`), a list whose every page hands out a new `continue` token, and a
//! watch that is always readable. Each ends with `error:` naming the bound and a non-zero exit
//! (a flooding `get -w` ends at its `--request-timeout`, kubectl's bound on a watch, with 0).
//! Only lower bounds of time are checked; the runs' hang guard is far beyond every deadline.

use super::*;
use fake_apiserver::{Fault, FaultAction};

/// A server that accepts every connection and answers no request.
fn silent() -> Cluster {
    let c = shop();
    c.server.fault(Fault::always("", FaultAction::Silence));
    c
}

/// Every command, given a deadline of 5 s (long enough for a debug binary to start and ask on a
/// loaded machine), ends at it with an error naming the flag; the first request it makes is
/// the one named.
#[test]
fn every_command_ends_at_its_deadline_against_a_silent_server() {
    let discover = "to discover the API group pacto.trianalab.io/v1alpha1";
    let cases: [(&[&str], i32, &str); 6] = [
        (&["get", "--timeout", "5s"], 1, discover),
        (&["get", "-w", "--timeout", "5s"], 1, discover),
        (&["explain", "pacto/orders", "--timeout", "5s"], 1, discover),
        (
            &[
                "wait",
                "pacto/orders",
                "--for",
                "verdict=Compliant",
                "--timeout",
                "5s",
            ],
            1,
            discover,
        ),
        (
            &["doctor", "--cluster", "--timeout", "5s"],
            2,
            "to get configmaps in namespace \"argocd\"",
        ),
        (
            &["reconcile", "--once", "--timeout", "5s"],
            2,
            "passed before the Stages and their appliers were read",
        ),
    ];
    for (args, code, want) in cases {
        let c = silent();
        let r = c.run(args);
        r.assert_code(code).assert_no_panic();
        assert!(r.stderr.starts_with("error: "), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("5s"), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(want), "{args:?}: {}", r.stderr);
        assert!(
            r.elapsed >= Duration::from_secs(5),
            "{args:?}: {:?}",
            r.elapsed
        );
        if args[0] != "reconcile" {
            assert!(r.stderr.contains("(--timeout)"), "{args:?}: {}", r.stderr);
        }
    }
}

/// doctor reads its kinds at once: against a silent server every read has been asked before the
/// deadline passes (one after another, only the first would have been).
#[test]
fn doctor_asks_for_every_kind_at_once() {
    let c = silent();
    let r = c.run(&[
        "doctor",
        "--cluster",
        "--request-timeout",
        "1s",
        "--timeout",
        "5s",
    ]);
    r.assert_code(2).assert_no_panic();
    let paths: Vec<String> = c.server.requests().iter().map(|q| q.path.clone()).collect();
    for want in [
        "/api/v1/namespaces/argocd/configmaps/argocd-cm",
        "/api/v1/namespaces/argocd/configmaps/argocd-cmd-params-cm",
        "/apis/kustomize.toolkit.fluxcd.io/v1",
        "/apis/pacto.trianalab.io/v1alpha1",
        "/apis/delivery.pacto.trianalab.io/v1alpha1",
        "/apis/argoproj.io/v1alpha1",
        "/api/v1",
    ] {
        assert!(
            paths.iter().any(|p| p == want),
            "{want} not asked: {paths:?}"
        );
    }
    // Each read ended at --request-timeout, and every one is named.
    assert!(
        r.stderr
            .starts_with("error: nothing could be read from the cluster:\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("within 1s (--request-timeout)"),
        "{}",
        r.stderr
    );
}

/// The default deadlines are stated in the help of each command.
#[test]
fn the_default_deadlines_are_in_the_help() {
    for (cmd, default) in [
        ("get", "[default: 1m]"),
        ("explain", "[default: 1m]"),
        ("doctor", "[default: 1m]"),
        ("wait", "[default: 30s]"),
        ("reconcile", "[default: 3m]"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let r = run(&mut cmd_help(home.path(), cmd));
        r.assert_code(0);
        let help = r.stdout.replace('\n', " ");
        let at = help
            .find("--timeout <DURATION>")
            .unwrap_or_else(|| panic!("{cmd}: {help}"));
        let rest = &help[at..];
        let end = rest[2..].find("  --").map_or(rest.len(), |i| i + 2);
        assert!(rest[..end].contains(default), "{cmd}: {}", &rest[..end]);
    }
}

fn cmd_help(home: &Path, sub: &str) -> Command {
    cmd(home, &[sub, "--help"])
}

/// A page of Pactos as the fake hands them out for ever.
fn endless(c: &Cluster, per_page: usize) {
    let item = shop_pacto(c, "orders");
    c.server.fault(Fault::always(
        "/pactos",
        FaultAction::EndlessPages { item, per_page },
    ));
}

/// A list that never ends stops at the bound on its objects, naming the resource and the flag;
/// pages without objects stop at the pages that bound allows (one more than it takes to bring
/// as many objects in pages of --chunk-size). It used to be followed until memory ran out.
#[test]
fn an_endless_list_stops_at_its_bound() {
    let c = shop();
    endless(&c, 500);
    let r = c.run(&["get", "--max-list-items", "2000"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the API server sent more than 2000 objects (--max-list-items; give a larger bound to read them)\n"
    );
    assert_eq!(c.count("GET", "/pactos"), 5);
    let c = shop();
    endless(&c, 0);
    let r = c.run(&["get", "--max-list-items", "1000", "--chunk-size", "100"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the API server kept sending continue tokens past 11 pages (--max-list-items 1000 in pages of --chunk-size 100)\n"
    );
    assert_eq!(c.count("GET", "/pactos"), 11);
}

/// With the default bound on objects, under `ulimit -v 4194304` (4 GiB of address space): the
/// list ends at 100,000 objects with the error, and nothing aborts.
#[test]
fn an_endless_list_stops_at_the_default_bound_in_bounded_memory() {
    let c = shop();
    endless(&c, 500);
    let mut cmd = Command::new("bash");
    cmd.args([
        "-c",
        "ulimit -v 4194304 && exec \"$0\" \"$@\"",
        PACTO,
        "get",
        "pactos",
        "-o",
        "name",
        // The bound on objects is the point, not the deadline (reading 100,000 objects in a
        // debug build on a busy machine may take longer than the default minute).
        "--timeout",
        "0",
        // Nor the bound on memory: these Pactos count about 19 kB each once parsed (1.6 kB of text), so
        // 100,000 of them pass the default 1 GiB held first (see `live::hostile`).
        "--max-response-bytes",
        "1Gi",
        "--kubeconfig",
        s(&c.kubeconfig),
    ])
    .env("HOME", c.dir.path())
    .env_remove("KUBECONFIG");
    let r = run_with(&mut cmd, None, Duration::from_secs(600));
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the API server sent more than 100000 objects (--max-list-items; give a larger bound to read them)\n"
    );
}

/// One watch event line of `obj`.
fn event_line(kind: &str, obj: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({"type": kind, "object": obj})).unwrap();
    line.push(b'\n');
    line
}

/// A watch that is always readable (the same change sent again and again, as fast as it is
/// read) ends `wait` at its --timeout with the report, and `get -w` at --request-timeout.
#[test]
fn a_flooding_watch_ends_at_the_deadline() {
    let c = shop();
    let mut o = shop_pacto(&c, "inventory");
    o["metadata"]["resourceVersion"] = serde_json::json!("999999");
    // The list is answered; every watch after it floods.
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server.fault(Fault::always(
        "/pactos",
        FaultAction::FloodWatch(event_line("MODIFIED", &o)),
    ));
    let r = c.run(&[
        "wait",
        "pacto/inventory",
        "--for",
        "verdict=Compliant",
        "--timeout",
        "3s",
    ]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: timed out after 3s waiting for verdict=Compliant on pacto.pacto.trianalab.io/inventory\n"
    );
    assert!(r.elapsed >= Duration::from_secs(3));
    let c = shop();
    let bookmark = serde_json::json!({"kind": "Pacto", "apiVersion": "pacto.trianalab.io/v1alpha1", "metadata": {"resourceVersion": "999999"}});
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server.fault(Fault::always(
        "/pactos",
        FaultAction::FloodWatch(event_line("BOOKMARK", &bookmark)),
    ));
    let r = c.run(&["get", "-w", "--request-timeout", "3s", "-o", "name"]);
    r.assert_code(0).assert_no_panic();
    assert!(r.elapsed >= Duration::from_secs(3));
    assert!(
        r.stdout.starts_with("pacto.pacto.trianalab.io/"),
        "{}",
        r.stdout
    );
}

/// A watch event that never ends (no newline) is refused at 64 MiB, the size bound, in one pass
/// over its bytes (the search from the start of the buffer on every frame did not end within
/// the hang guard in a debug build), under `ulimit -v 4194304` where nothing may abort.
#[test]
fn an_unterminated_watch_event_is_refused_at_the_size_bound() {
    let c = shop();
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server
        .fault(Fault::always("/pactos", FaultAction::EndlessBody));
    let mut cmd = Command::new("bash");
    cmd.args([
        "-c",
        "ulimit -v 4194304 && exec \"$0\" \"$@\"",
        PACTO,
        "get",
        "-w",
        "-o",
        "name",
        "--kubeconfig",
        s(&c.kubeconfig),
    ])
    .env("HOME", c.dir.path())
    .env("KUBECTL_PACTO_NOW", NOW)
    .env_remove("KUBECONFIG");
    let r = run_with(&mut cmd, None, DEADLINE);
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr
            .ends_with("the API server's answer is malformed: a watch event longer than 64 MiB\n"),
        "{}",
        r.stderr
    );
}

/// `get -w` without --request-timeout follows the watch without a deadline, as kubectl does;
/// a server that answers the listing and then nothing (the watch request gets not even its
/// headers back) ends it after --timeout with an error naming the watch.
#[test]
fn get_watch_ends_when_the_server_goes_silent_after_the_listing() {
    let c = shop();
    c.server
        .fault(Fault::once("/pactos", FaultAction::Delay(Duration::ZERO)));
    c.server
        .fault(Fault::always("/pactos", FaultAction::Silence));
    let r = c.run(&["get", "-w", "--timeout", "2s", "-o", "name"]);
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stdout.starts_with("pacto.pacto.trianalab.io/"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .starts_with("error: no answer from the API server at ")
            && r.stderr.ends_with(
                " within 2s (--timeout) to watch pactos.pacto.trianalab.io in namespace \"shop\"\n"
            ),
        "{}",
        r.stderr
    );
    assert!(r.elapsed >= Duration::from_secs(2));
}
