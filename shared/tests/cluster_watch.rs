//! `Cluster::follow` against the fake API server of `tests/fake-apiserver`, as client-go's
//! reflector (`tools/cache/reflector.go`) follows a list: it starts from the list's own
//! resourceVersion (a change made between the list and the first watch is reported, what the
//! list showed is not repeated), asks for bookmarks and resumes from a bookmark's
//! resourceVersion, resumes where a watch ended, lists again after a `410 Gone` (an ERROR event
//! or an HTTP 410) and reports what changed meanwhile (client-go `DeltaFIFO.Replace`), retries
//! a failing server after a backoff and ends at its deadline with the last error, and ends at
//! once on a 403.

use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
use pacto_gates::cluster::{
    resource_version_of, Cluster, ClusterError, ConnectOptions, Event, Scope, Selection, ServedKind,
};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const PACTO: &str = "pacto.trianalab.io/v1alpha1";

fn pacto(name: &str, status: &str) -> Value {
    json!({"apiVersion": PACTO, "kind": "Pacto",
        "metadata": {"name": name, "namespace": "shop"},
        "status": {"contractStatus": status}})
}

fn server() -> (FakeApiServer, tempfile::TempDir, std::path::PathBuf) {
    let server = FakeApiServer::start();
    server.register(Resource::pacto());
    server.insert(pacto("orders", "Unknown"));
    server.insert(pacto("billing", "Compliant"));
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("shop"));
    (server, dir, kubeconfig)
}

fn watches(server: &FakeApiServer) -> Vec<fake_apiserver::Request> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.query_param("watch").as_deref() == Some("true"))
        .collect()
}

/// The requests for Pactos, each as `list` or `watch` and its query as sent.
fn pacto_requests(server: &FakeApiServer) -> Vec<(String, String)> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/pactos"))
        .map(|r| {
            let verb = match r.query_param("watch").as_deref() {
                Some("true") => "watch",
                _ => "list",
            };
            (verb.to_string(), r.query)
        })
        .collect()
}

/// Runs `f` with a connected client and the Pacto kind, on a runtime of its own.
fn with_cluster<T>(
    kubeconfig: std::path::PathBuf,
    f: impl AsyncFnOnce(&Cluster, &ServedKind) -> T,
) -> T {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let c = Cluster::connect(&ConnectOptions {
            kubeconfig: Some(kubeconfig),
            ..Default::default()
        })
        .await
        .expect("connect");
        let kind = c
            .discover("pacto.trianalab.io", "v1alpha1", "Pacto")
            .await
            .expect("the Pacto kind");
        f(&c, &kind).await
    })
}

/// A generous bound that only ends a broken test, never a slow one.
fn far() -> Option<Instant> {
    Some(Instant::now() + Duration::from_secs(60))
}

fn shop() -> Selection<'static> {
    Selection::new(Scope::Namespace("shop"))
}

/// `KIND name` of an event.
fn said(e: &Event) -> String {
    format!(
        "{} {}",
        e.kind,
        e.object["metadata"]["name"].as_str().unwrap()
    )
}

#[test]
fn a_follow_starts_from_the_lists_resource_version_and_resumes_where_a_watch_ended() {
    let (server, _dir, kubeconfig) = server();
    std::thread::scope(|scope| {
        with_cluster(kubeconfig, async |c, kind| {
            // Something else changes after the Pactos: the list's resourceVersion is the
            // server's, newer than any Pacto's.
            server.insert(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "other", "namespace": "shop"}}));
            let listed = c.list(kind, Scope::Namespace("shop"), None).await.unwrap();
            let from = listed.resource_version.clone();
            assert_eq!(from, server.resource_version().to_string());
            assert!(listed
                .items
                .iter()
                .all(|o| resource_version_of(o) < Some(from.as_str())));
            // Changed after the list, before the follow asked anything: reported once, and
            // the objects the list showed are not reported again.
            server.insert(pacto("orders", "Compliant"));
            let mut follow = c
                .follow(kind, shop(), listed.items, Some(&from), far())
                .with_watch_seconds(1);
            let first = follow.next().await.unwrap().unwrap();
            assert_eq!(said(&first), "MODIFIED orders");
            assert_eq!(first.object["status"]["contractStatus"], json!("Compliant"));
            assert_eq!(
                follow.resource_version(),
                resource_version_of(&first.object)
            );
            // The server ends each watch after a second; a change made once the follow has
            // asked again comes through the next watch, which resumed after the first event.
            let changer = scope.spawn(|| {
                let started = Instant::now();
                while watches(&server).len() < 2 {
                    assert!(
                        started.elapsed() < Duration::from_secs(60),
                        "no second watch"
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
                server.insert(pacto("billing", "NonCompliant"));
            });
            let second = follow.next().await.unwrap().unwrap();
            changer.join().unwrap();
            assert_eq!(said(&second), "MODIFIED billing");
            let w = watches(&server);
            // client-go's query, keys sorted (`url.Values.Encode`).
            assert_eq!(
                w[0].query,
                format!(
                    "allowWatchBookmarks=true&resourceVersion={from}&timeoutSeconds=1&watch=true"
                )
            );
            assert_eq!(
                w[1].query_param("resourceVersion").as_deref(),
                resource_version_of(&first.object)
            );
        });
    });
}

/// A bookmark (the fake sends one 2 s before the watch's deadline, as kube-apiserver does)
/// moves the resourceVersion on without an event: the next watch resumes from it.
#[test]
fn a_follow_resumes_from_the_last_bookmark() {
    let (server, _dir, kubeconfig) = server();
    std::thread::scope(|scope| {
        with_cluster(kubeconfig, async |c, kind| {
            let listed = c.list(kind, Scope::Namespace("shop"), None).await.unwrap();
            let mut follow = c
                .follow(
                    kind,
                    shop(),
                    listed.items,
                    Some(&listed.resource_version),
                    far(),
                )
                .with_watch_seconds(3);
            let changer = scope.spawn(|| {
                let started = Instant::now();
                while watches(&server).is_empty() {
                    assert!(started.elapsed() < Duration::from_secs(60), "no watch");
                    std::thread::sleep(Duration::from_millis(20));
                }
                // Another kind changes: the Pactos' watch learns the new resourceVersion from
                // its bookmark only.
                server.insert(json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "moved", "namespace": "shop"}}));
                let bookmarked = server.resource_version();
                while watches(&server).len() < 2 {
                    assert!(
                        started.elapsed() < Duration::from_secs(60),
                        "no second watch"
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
                server.insert(pacto("orders", "Compliant"));
                bookmarked
            });
            let event = follow.next().await.unwrap().unwrap();
            let bookmarked = changer.join().unwrap();
            assert_eq!(said(&event), "MODIFIED orders");
            let w = watches(&server);
            assert_eq!(
                w[0].query_param("resourceVersion"),
                Some(listed.resource_version.clone())
            );
            assert_eq!(
                w[1].query_param("resourceVersion"),
                Some(bookmarked.to_string())
            );
            assert!(bookmarked.to_string() != listed.resource_version);
        });
    });
}

/// From a resourceVersion compacted away the watch is 410 Gone (an ERROR event; then an HTTP
/// 410 answer): the follow lists again, reports what changed as a relist reports it
/// (client-go `DeltaFIFO.Replace`: new objects ADDED, changed ones MODIFIED, missing ones
/// DELETED as last seen, unchanged ones not at all), and watches from the new list's
/// resourceVersion.
#[test]
fn after_410_gone_a_follow_lists_again_and_reports_what_changed() {
    let (server, _dir, kubeconfig) = server();
    server.insert(pacto("search", "Compliant"));
    with_cluster(kubeconfig, async |c, kind| {
        let listed = c.list(kind, Scope::Namespace("shop"), None).await.unwrap();
        let from = listed.resource_version.clone();
        server.insert(pacto("orders", "Compliant"));
        assert!(server.remove(PACTO, "Pacto", Some("shop"), "billing"));
        server.insert(pacto("payments", "Unknown"));
        let compacted = server.compact();
        server.clear_requests();
        let mut follow = c.follow(kind, shop(), listed.items, Some(&from), far());
        let mut events = Vec::new();
        for _ in 0..3 {
            events.push(follow.next().await.unwrap().unwrap());
        }
        assert_eq!(
            events.iter().map(said).collect::<Vec<_>>(),
            ["MODIFIED orders", "ADDED payments", "DELETED billing"]
        );
        // The deleted one as last seen.
        assert_eq!(events[2].object["status"]["contractStatus"], "Compliant");
        assert_eq!(
            follow.resource_version(),
            Some(compacted.to_string().as_str())
        );
        // An HTTP 410 to the next watch: the same relist; only what changed is reported.
        server.fault(Fault::once("/pactos", FaultAction::Status(410)));
        server.insert(pacto("search", "NonCompliant"));
        let after = follow.next().await.unwrap().unwrap();
        assert_eq!(said(&after), "MODIFIED search");
        let sent = pacto_requests(&server);
        let verbs: Vec<&str> = sent.iter().map(|(v, _)| v.as_str()).collect();
        assert_eq!(verbs, ["watch", "list", "watch", "list"], "{sent:?}");
        assert_eq!(query_value(&sent[0].1, "resourceVersion"), from);
        assert_eq!(query_value(&sent[0].1, "allowWatchBookmarks"), "true");
        assert_eq!(sent[1].1, "limit=500");
        assert_eq!(
            query_value(&sent[2].1, "resourceVersion"),
            compacted.to_string()
        );
    });
}

fn query_value(query: &str, key: &str) -> String {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_default()
        .to_string()
}

/// Given no resourceVersion (one object read by name), the follow lists what it watches
/// first (here one Pacto by `fieldSelector=metadata.name=orders`, as kubectl watches one
/// object) and reports only what differs from what the caller showed.
#[test]
fn a_follow_without_a_resource_version_lists_first() {
    let (server, _dir, kubeconfig) = server();
    std::thread::scope(|scope| {
        with_cluster(kubeconfig, async |c, kind| {
            let shown = c.get(kind, "shop", "orders").await.unwrap();
            server.insert(pacto("billing", "NonCompliant"));
            server.clear_requests();
            let one = Selection::new(Scope::Namespace("shop")).fields(Some("metadata.name=orders"));
            let mut follow = c.follow(kind, one, vec![shown], None, far());
            // Nothing changed for orders: the follow lists, then watches, and reports the
            // change made once it watches.
            let changer = scope.spawn(|| {
                let started = Instant::now();
                while watches(&server).is_empty() {
                    assert!(started.elapsed() < Duration::from_secs(60), "no watch");
                    std::thread::sleep(Duration::from_millis(20));
                }
                server.insert(pacto("orders", "Compliant"));
            });
            let event = follow.next().await.unwrap().unwrap();
            changer.join().unwrap();
            assert_eq!(said(&event), "MODIFIED orders");
            let sent = pacto_requests(&server);
            assert_eq!(
                sent[0],
                (
                    "list".to_string(),
                    "fieldSelector=metadata.name%3Dorders&limit=500".to_string()
                )
            );
            assert_eq!(sent[1].0, "watch");
            assert_eq!(
                query_value(&sent[1].1, "fieldSelector"),
                "metadata.name%3Dorders"
            );
        });
    });
}

/// A watch the server fails (503) is asked again after the reflector's backoff (0.8 s, then
/// 1.6 s: the attempts are not made in a tight loop); one that keeps failing ends at the
/// deadline with the last error; a 403 ends the follow at once.
#[test]
fn a_failing_server_is_retried_after_a_backoff_and_a_refusal_ends_the_follow() {
    let (server, _dir, kubeconfig) = server();
    std::thread::scope(|scope| {
        with_cluster(kubeconfig, async |c, kind| {
            // The deadline has passed: nothing is asked.
            let mut done = c.follow(
                kind,
                Selection::new(Scope::All),
                Vec::new(),
                Some("1"),
                Some(Instant::now()),
            );
            assert!(done.next().await.is_none());
            assert!(watches(&server).is_empty());

            let listed = c.list(kind, Scope::Namespace("shop"), None).await.unwrap();
            let rv = listed.resource_version.clone();
            server.fault(Fault::limited("/pactos", FaultAction::Status(503), 2));
            let started = Instant::now();
            let mut follow = c.follow(kind, shop(), listed.items.clone(), Some(&rv), far());
            let server = &server;
            let changer = scope.spawn(move || {
                while watches(server).len() < 3 {
                    assert!(
                        started.elapsed() < Duration::from_secs(60),
                        "no third watch"
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
                server.insert(pacto("orders", "Compliant"));
            });
            let event = follow.next().await.unwrap().unwrap();
            changer.join().unwrap();
            assert_eq!(said(&event), "MODIFIED orders");
            // Two delays before the third attempt: at least 0.8 s + 1.6 s (a lower bound).
            let took = started.elapsed();
            assert!(took >= Duration::from_millis(2400), "{took:?}");
            let w = watches(server);
            assert_eq!(w.len(), 3);
            assert!(w
                .iter()
                .all(|r| r.query_param("resourceVersion").as_deref() == Some(rv.as_str())));

            server.clear_requests();
            server.fault(Fault::always("/pactos", FaultAction::Status(503)));
            let mut failing = c.follow(
                kind,
                shop(),
                listed.items.clone(),
                Some(&rv),
                Some(Instant::now() + Duration::from_secs(3)),
            );
            match failing.next().await {
                Some(Err(ClusterError::Api {
                    code: 503, verb, ..
                })) => assert_eq!(verb, "watch"),
                other => panic!("expected the 503 at the deadline, got {other:?}"),
            }
            assert!(failing.next().await.is_none());
            // Within 3 s: the attempts at 0, 0.8 s and 2.4 s, no more.
            let tries = watches(server).len();
            assert!((1..=3).contains(&tries), "{tries}");

            server.clear_faults();
            server.fault(Fault::always("/pactos", FaultAction::Status(403)));
            let mut refused = c.follow(kind, shop(), Vec::new(), Some(&rv), far());
            match refused.next().await {
                Some(Err(ClusterError::Forbidden { .. })) => {}
                other => panic!("expected a 403, got {other:?}"),
            }
        });
    });
}

/// Without a deadline (`get -w` alone) the idle bound ends a follow whose server went silent: a
/// watch opened (its headers came) that then sends nothing past its timeoutSeconds and the bound
/// is given up, and the next open, with nothing of the bound left, ends the follow with the
/// error naming the watch, how long it was silent and both bounds.
#[test]
fn an_idle_bound_ends_a_follow_whose_server_went_silent() {
    let (server, _dir, kubeconfig) = server();
    let got = with_cluster(kubeconfig, async |c, kind| {
        let list = c.list(kind, Scope::Namespace("shop"), None).await.unwrap();
        server.fault(Fault::once("/pactos", FaultAction::Stall));
        server.fault(Fault::always("/pactos", FaultAction::Silence));
        let started = Instant::now();
        let mut f = c
            .follow(kind, shop(), list.items, Some(&list.resource_version), None)
            .with_watch_seconds(1)
            .with_idle(Duration::from_secs(2));
        (f.next().await, started.elapsed())
    });
    match got {
        (
            Some(Err(ClusterError::Timeout {
                verb,
                after,
                limit,
                resource,
                ..
            })),
            elapsed,
        ) => {
            assert_eq!(
                (verb.as_str(), after, limit.as_str(), resource.as_str()),
                (
                    "watch",
                    Duration::from_secs(3),
                    "the watch's timeoutSeconds=1 and --timeout",
                    "pactos.pacto.trianalab.io"
                )
            );
            // The stalled watch was given up after its 1 s and the 2 s bound, not before.
            assert!(elapsed >= Duration::from_secs(3), "{elapsed:?}");
        }
        other => panic!("not the idle error: {other:?}"),
    }
    assert!(!watches(&server).is_empty());
}
