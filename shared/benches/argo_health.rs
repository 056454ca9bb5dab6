//! Throughput of the Argo CD health engine: the example Pacto gate script (argocd-cm custom
//! key, restricted libraries) over 10,000 Pacto objects, a fresh Lua state per object as Argo CD
//! runs it. Reported as objects per second (criterion's element throughput).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacto_gates::argo::health::ArgoHealth;
use pacto_gates::argo::settings::parse_configmap;
use serde_json::{json, Value};

const OBJECTS: usize = 10_000;

fn pactos() -> Vec<Value> {
    let verdicts = [
        "Compliant",
        "Warning",
        "NonCompliant",
        "Invalid",
        "Unknown",
        "Reference",
    ];
    (0..OBJECTS)
        .map(|i| {
            let verdict = verdicts[i % verdicts.len()];
            json!({
                "apiVersion": "pacto.trianalab.io/v1alpha1",
                "kind": "Pacto",
                "metadata": {"name": format!("svc-{i}"), "namespace": "shop", "generation": 2},
                "spec": {"contractRef": {"oci": "ghcr.io/acme/c:1.0.0"}, "target": {"serviceName": format!("svc-{i}")}},
                "status": {
                    "contractStatus": verdict,
                    "observedGeneration": if i % 7 == 0 { 1 } else { 2 },
                    "summary": {"errorCount": 1, "warningCount": 1, "infoCount": 0, "unknownCount": 0},
                    "findings": [
                        {"code": "TAG_NOT_DIGEST", "severity": "warning", "category": "reference", "message": "pinned by tag"},
                        {"code": "INTERFACE_ABSENT", "severity": "error", "category": "interface", "subject": format!("service/svc-{i}"), "message": "interface http-api is not served"}
                    ],
                    "conditions": [
                        {"type": "ContractValid", "status": "True", "reason": "Valid", "message": "ok", "lastTransitionTime": "2026-11-29T10:00:00Z"},
                        {"type": "RuntimeObserved", "status": "True", "reason": "Found", "message": "ok", "lastTransitionTime": "2026-11-29T10:00:00Z"}
                    ]
                }
            })
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/argocd-cm.yaml");
    let text = std::fs::read_to_string(root).expect("examples/argocd-cm.yaml");
    let cm = pacto_gates::object::parse_objects(&text, root).expect("argocd-cm parses");
    let engine = ArgoHealth::new(
        parse_configmap(&cm[0].value).expect("valid argocd-cm"),
        None,
        0,
    );
    let objects = pactos();
    let mut group = c.benchmark_group("argo_health");
    group.throughput(Throughput::Elements(OBJECTS as u64));
    group.sample_size(10);
    group.bench_function("pacto_gate_10k_objects", |b| {
        b.iter(|| {
            let mut degraded = 0;
            for o in &objects {
                let v = engine.evaluate(o);
                if v.health.map(|h| h.status == "Degraded").unwrap_or(false) {
                    degraded += 1;
                }
            }
            assert!(degraded > 0);
            degraded
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
