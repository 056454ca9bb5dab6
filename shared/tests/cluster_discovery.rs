//! The discovery timeout of `pacto_gates::cluster`, injected through
//! `ConnectOptions::discovery_timeout`, against a silent fake API server of
//! `tests/fake-apiserver` reached through a temporary kubeconfig, so the real kube-rs client path
//! runs. kubectl's discovery client gives up after 32 s when no `--request-timeout` is set
//! (client-go `discovery_client.go` `setDiscoveryDefaults`); the unit tests of
//! `cluster::discovery` check that default and its message.

use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
use pacto_gates::cluster::{Cluster, ConnectOptions};
use std::time::{Duration, Instant};

/// A fake API server serving Pactos whose discovery of `pacto.trianalab.io` never answers in
/// time, and its kubeconfig.
fn silent_discovery() -> (FakeApiServer, tempfile::TempDir, std::path::PathBuf) {
    let server = FakeApiServer::start();
    server.register(Resource::pacto());
    server.fault(Fault::always(
        "/apis/pacto.trianalab.io",
        FaultAction::Delay(Duration::from_secs(120)),
    ));
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("shop"));
    (server, dir, kubeconfig)
}

/// Connects with `opts` and discovers the Pacto kind; the error and how long it took.
fn discover_pacto(opts: &ConnectOptions) -> (String, Duration) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let cluster = Cluster::connect(opts).await.expect("connect");
        let start = Instant::now();
        let err = cluster
            .discover("pacto.trianalab.io", "v1alpha1", "Pacto")
            .await
            .expect_err("a silent API server");
        (err.to_string(), start.elapsed())
    })
}

#[test]
fn a_silent_api_server_is_given_up_on_after_the_injected_discovery_timeout() {
    let (server, _dir, kubeconfig) = silent_discovery();
    let (err, took) = discover_pacto(&ConnectOptions {
        kubeconfig: Some(kubeconfig),
        discovery_timeout: Some(Duration::from_millis(300)),
        ..Default::default()
    });
    assert_eq!(
        err,
        format!(
            "no answer from the API server at {} within 300ms (kubectl's discovery timeout; --request-timeout sets another) to discover the API group pacto.trianalab.io/v1alpha1",
            server.url()
        )
    );
    // At least the bound; well short of the 120 s the server would take (a busy machine only
    // adds to the first).
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(60),
        "gave up after {took:?}"
    );
}

#[test]
fn request_timeout_still_sets_another_discovery_bound() {
    let (server, _dir, kubeconfig) = silent_discovery();
    let (err, took) = discover_pacto(&ConnectOptions {
        kubeconfig: Some(kubeconfig),
        // The request timeout also bounds building the client (a few hundredths of a second of
        // CPU): long enough that a busy machine cannot spend it before discovery starts.
        request_timeout: Some(Duration::from_secs(5)),
        discovery_timeout: Some(Duration::from_secs(60)),
        ..Default::default()
    });
    assert_eq!(
        err,
        format!(
            "no answer from the API server at {} within 5s (--request-timeout) to discover the API group pacto.trianalab.io/v1alpha1",
            server.url()
        )
    );
    assert!(
        took >= Duration::from_secs(5) && took < Duration::from_secs(60),
        "gave up after {took:?}"
    );
}
