//! `kubectl pacto get -A` on 1,000 Pactos against the fake API server on loopback, through the real
//! client path: kubeconfig, discovery, the Pactos listed in two pages of 500, the cluster's gates
//! (argocd-cm, Kustomizations), both engines on every Pacto, and the table. Also the pure part
//! alone (gates and table over objects already read), to show where the time goes.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fake_apiserver::{FakeApiServer, Resource};
use pacto_gates::cluster::{Cluster, ConnectOptions, Scope};
use pacto_gates::pacto::gate::decide;
use pacto_gates::pacto::gate::{self, ArgoGate, FluxGate};
use pacto_gates::pacto::view::PactoView;
use pacto_gates::render::{pacto_table, PactoRow, TableOptions};
use serde_json::Value;

mod common;

const PACTOS: usize = 1000;

fn server() -> (FakeApiServer, tempfile::TempDir, std::path::PathBuf) {
    let server = FakeApiServer::start();
    server.register(Resource::pacto());
    server.register(Resource::new(
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "kustomizations",
        true,
        true,
    ));
    for (i, mut p) in common::pactos().into_iter().take(PACTOS).enumerate() {
        p["metadata"]["namespace"] = Value::String(format!("team-{}", i % 10));
        p["metadata"]["creationTimestamp"] = Value::String("2026-11-28T12:00:00Z".into());
        server.insert(p);
    }
    let cm = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/argocd-cm.yaml");
    let k = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/flux/kustomization-gated.yaml"
    );
    for path in [cm, k] {
        let text = std::fs::read_to_string(path).expect("example");
        let obj = pacto_gates::object::parse_objects(&text, path).expect("parses");
        server.insert(obj[0].value.clone());
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("default"));
    (server, dir, kubeconfig)
}

fn table(
    objects: &[Value],
    gates: &(
        pacto_gates::pacto::gate::ArgoGate,
        pacto_gates::pacto::gate::FluxGate,
    ),
) -> String {
    let views: Vec<PactoView> = objects.iter().map(PactoView::new).collect();
    let decisions: Vec<_> = objects
        .iter()
        .map(|o| decide(&gates.0, &gates.1, o))
        .collect();
    let rows: Vec<PactoRow> = views
        .iter()
        .zip(&decisions)
        .map(|(view, decision)| PactoRow { view, decision })
        .collect();
    let now = "2026-11-29T12:00:00Z".parse().expect("time");
    pacto_table(
        &rows,
        TableOptions {
            contexts: None,
            all_namespaces: true,
            wide: false,
            headers: true,
            labels: None,
            min_widths: None,
            colour: false,
            now,
        },
    )
}

fn bench(c: &mut Criterion) {
    let (server, _dir, kubeconfig) = server();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let opts = ConnectOptions {
        kubeconfig: Some(kubeconfig),
        ..Default::default()
    };
    let mut group = c.benchmark_group("get_pactos");
    group.throughput(Throughput::Elements(PACTOS as u64));
    group.sample_size(10);
    group.bench_function("live_1000_pactos_all_namespaces", |b| {
        b.iter(|| {
            rt.block_on(async {
                let cluster = Cluster::connect(&opts).await.expect("connect");
                let kind = cluster
                    .discover("pacto.trianalab.io", "v1alpha1", "Pacto")
                    .await
                    .expect("discover");
                let objects = cluster
                    .list(&kind, Scope::All, None)
                    .await
                    .expect("list")
                    .items;
                let gates = gates(&cluster).await;
                let t = table(&objects, &gates);
                assert_eq!(t.lines().count(), PACTOS + 1);
                t.len()
            })
        })
    });
    let objects = rt.block_on(async {
        let cluster = Cluster::connect(&opts).await.expect("connect");
        let kind = cluster
            .discover("pacto.trianalab.io", "v1alpha1", "Pacto")
            .await
            .expect("discover");
        cluster
            .list(&kind, Scope::All, None)
            .await
            .expect("list")
            .items
    });
    let gates = rt.block_on(async {
        let cluster = Cluster::connect(&opts).await.expect("connect");
        gates(&cluster).await
    });
    group.bench_function("gates_and_table_1000_pactos", |b| {
        b.iter(|| table(&objects, &gates).len())
    });
    group.finish();
    drop(server);
}

criterion_group!(benches, bench);
criterion_main!(benches);

/// The cluster's gates, read and built as `kubectl pacto get` does.
async fn gates(cluster: &Cluster) -> (ArgoGate, FluxGate) {
    let read = cluster.gate_objects("argocd").await;
    gate::from_cluster(
        read.argocd_cm.map_err(|e| e.to_string()),
        "argocd",
        read.kustomizations.map_err(|e| e.to_string()),
        false,
        0,
    )
}
