//! `reconcile --once` on 1,000 Stages with their appliers: the pure plan alone, and a whole run
//! against the fake API server on loopback through the real client path (paged lists of every
//! kind, the served schema, one server-side apply per Stage), first run (1,000 writes) and
//! second run (no write).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fake_apiserver::{FakeApiServer, Resource};
use pacto_gates::cluster::{Cluster, ConnectOptions, DeliveryQuery, Scope};
use pacto_gates::delivery::view::Snapshot;
use pacto_gates::delivery::World;
use pacto_gates::reconcile::{self, conditions_list_type};
use serde_json::{json, Value};

const STAGES: usize = 1000;
const NOW: &str = "2026-11-29T12:00:00Z";

/// 1,000 copies of the delivery test base (a Stage, its two OCIRepositories, its Kustomization).
fn objects() -> Vec<Value> {
    let base = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/delivery/testdata/base-flux.yaml"
    );
    let text = std::fs::read_to_string(base).expect("the base");
    let base: Vec<Value> = pacto_gates::object::parse_objects(&text, base)
        .expect("parses")
        .into_iter()
        .map(|o| o.value)
        .collect();
    let mut out = Vec::new();
    for i in 0..STAGES {
        for o in &base {
            let mut o = o.clone();
            let name = o["metadata"]["name"].as_str().unwrap_or("").to_string();
            o["metadata"]["name"] = json!(format!("{name}-{i:04}"));
            if o["kind"] == "Stage" {
                o["spec"]["applyRef"]["name"] = json!(format!("payments-{i:04}"));
                o["spec"]["candidates"]["ociRepositoryRef"]["name"] =
                    json!(format!("payments-candidates-{i:04}"));
            }
            if o["kind"] == "Kustomization" {
                o["spec"]["sourceRef"]["name"] = json!(format!("payments-{i:04}"));
            }
            if o["metadata"]["labels"].is_object() {
                o["metadata"]["labels"]["delivery.pacto.trianalab.io/apply-ref"] =
                    json!(format!("payments-{i:04}"));
            }
            out.push(o);
        }
    }
    out
}

fn snapshot(objects: &[Value]) -> Snapshot {
    let of = |k: &str| -> Vec<Value> {
        objects
            .iter()
            .filter(|o| o["kind"] == json!(k))
            .cloned()
            .collect()
    };
    Snapshot {
        stages: of("Stage"),
        oci_repositories: Some(Ok(of("OCIRepository"))),
        kustomizations: Some(Ok(of("Kustomization"))),
        applications: Some(Ok(Vec::new())),
    }
}

fn server(objects: &[Value]) -> (FakeApiServer, tempfile::TempDir, std::path::PathBuf) {
    let server = FakeApiServer::start();
    let crd = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/cluster/stages.delivery.pacto.trianalab.io.yaml"
    );
    server.register(Resource::from_crd_yaml(
        &std::fs::read_to_string(crd).expect("the CRD"),
        "v1alpha1",
    ));
    for (av, kind, plural) in [
        (
            "source.toolkit.fluxcd.io/v1",
            "OCIRepository",
            "ocirepositories",
        ),
        (
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
            "kustomizations",
        ),
        ("argoproj.io/v1alpha1", "Application", "applications"),
    ] {
        server.register(Resource::new(av, kind, plural, true, true));
    }
    for o in objects {
        server.insert(o.clone());
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("test"));
    (server, dir, kubeconfig)
}

/// One run as the binary makes it: read, plan, write; the number of writes.
async fn run(kubeconfig: &std::path::Path) -> usize {
    let cluster = Cluster::connect(&ConnectOptions {
        kubeconfig: Some(kubeconfig.to_path_buf()),
        ..Default::default()
    })
    .await
    .expect("connect");
    let kind = cluster
        .discover("delivery.pacto.trianalab.io", "v1alpha1", "Stage")
        .await
        .expect("Stage");
    let stages = cluster
        .list(&kind, Scope::Namespace("test"), None)
        .await
        .expect("stages")
        .items;
    let read = cluster
        .delivery_objects(&DeliveryQuery {
            appliers: true,
            ..Default::default()
        })
        .await;
    let listed = |r: pacto_gates::cluster::ListRead| r.map(|r| r.map_err(|e| e.to_string()));
    let snap = Snapshot {
        stages: stages.clone(),
        oci_repositories: listed(read.oci_repositories),
        kustomizations: listed(read.kustomizations),
        applications: listed(read.applications),
    };
    let doc = cluster
        .openapi_v3("delivery.pacto.trianalab.io", "v1alpha1")
        .await
        .expect("schema");
    let list_type = conditions_list_type(&doc, "delivery.pacto.trianalab.io", "v1alpha1", "Stage");
    let world = World::new(&snap);
    let mut writes = 0;
    for c in reconcile::plan(&stages, &world, list_type, NOW) {
        let Some(w) = &c.write else { continue };
        cluster
            .patch_status(&kind, &c.namespace, &c.name, w.status_patch())
            .await
            .expect("written");
        writes += 1;
    }
    writes
}

fn bench(c: &mut Criterion) {
    let objects = objects();
    let snap = snapshot(&objects);
    let world = World::new(&snap);
    let stages = snap.stages.clone();
    let mut g = c.benchmark_group("reconcile");
    g.throughput(Throughput::Elements(STAGES as u64));
    g.bench_function("plan 1000 Stages", |b| {
        b.iter(|| reconcile::plan(&stages, &world, reconcile::ListType::MapByType, NOW))
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    g.sample_size(10);
    g.bench_function("whole run, 1000 writes", |b| {
        b.iter_batched(
            || server(&objects),
            |(server, _dir, kubeconfig)| {
                assert_eq!(rt.block_on(run(&kubeconfig)), STAGES);
                server
            },
            criterion::BatchSize::PerIteration,
        )
    });
    let (server, _dir, kubeconfig) = server(&objects);
    rt.block_on(run(&kubeconfig));
    g.bench_function("whole run, nothing to write", |b| {
        b.iter(|| assert_eq!(rt.block_on(run(&kubeconfig)), 0))
    });
    drop(server);
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
