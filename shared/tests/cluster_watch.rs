//! `Cluster::follow` against the fake API server of `tests/fake-apiserver`: it starts after the
//! listing's resourceVersion (a change made between the listing and the first watch is
//! reported, what the listing showed is not repeated), resumes from the last resourceVersion
//! seen when the server ends a watch (client-go `tools/cache/reflector.go`), ends with the
//! server's error, and asks nothing once its deadline has passed.

use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
use pacto_gates::cluster::{
    newest_resource_version, resource_version_of, Cluster, ClusterError, ConnectOptions, Scope,
    ServedKind,
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

#[test]
fn a_follow_starts_after_the_listing_and_resumes_where_a_watch_ended() {
    let (server, _dir, kubeconfig) = server();
    std::thread::scope(|scope| {
        with_cluster(kubeconfig, async |c, kind| {
            let listed = c.list(kind, Scope::Namespace("shop"), None).await.unwrap();
            let from = newest_resource_version(&listed);
            assert!(from > 0);
            // Changed after the listing, before the follow asked anything: reported once,
            // and the objects the listing showed are not reported again.
            server.insert(pacto("orders", "Compliant"));
            let mut follow = c
                .follow(kind, Scope::Namespace("shop"), None, from, far())
                .with_watch_seconds(1);
            let first = follow.next().await.unwrap().unwrap();
            assert_eq!(first.kind, "MODIFIED");
            assert_eq!(first.object["metadata"]["name"], json!("orders"));
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
            assert_eq!(second.kind, "MODIFIED");
            assert_eq!(second.object["metadata"]["name"], json!("billing"));
            let w = watches(&server);
            assert_eq!(w[0].query_param("resourceVersion"), Some(from.to_string()));
            assert_eq!(
                w[1].query_param("resourceVersion"),
                Some(resource_version_of(&first.object).to_string())
            );
            assert_eq!(w[0].query_param("timeoutSeconds").as_deref(), Some("1"));
        });
    });
}

#[test]
fn a_follow_ends_at_its_deadline_and_with_the_servers_error() {
    let (server, _dir, kubeconfig) = server();
    with_cluster(kubeconfig, async |c, kind| {
        // The deadline has passed: nothing is asked.
        let mut done = c.follow(kind, Scope::All, None, 0, Some(Instant::now()));
        assert!(done.next().await.is_none());
        assert!(watches(&server).is_empty());
        // A watch the server refuses ends the follow with the refusal.
        server.fault(Fault::always("/pactos", FaultAction::Status(403)));
        let mut refused = c.follow(kind, Scope::Namespace("shop"), None, 0, far());
        match refused.next().await {
            Some(Err(ClusterError::Forbidden { .. })) => {}
            other => panic!("expected a 403, got {other:?}"),
        }
    });
}
