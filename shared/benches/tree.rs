//! `kubectl pacto tree`'s library part on the shapes that grow: a chain of 1,000 nested
//! Kustomizations (each holding one ConfigMap and the next), a root holding 1,000 child
//! Kustomizations, and a root whose inventory holds 20,000 ConfigMaps. Each level reads the
//! live objects through one index built once per tree, so the time grows with the number of
//! objects, not with their square.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacto_gates::pacto::explain::tree::{count, kustomization_tree};
use serde_json::{json, Value};

fn kustomization(name: &str, ids: Vec<String>) -> Value {
    let entries: Vec<Value> = ids
        .into_iter()
        .map(|id| json!({"id": id, "v": "v1"}))
        .collect();
    json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": name, "namespace": "flux-system", "generation": 1},
        "spec": {"interval": "10m", "wait": true},
        "status": {"observedGeneration": 1,
            "conditions": [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded"}],
            "inventory": {"entries": entries}}})
}

fn configmap(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "shop"}})
}

fn kid(name: &str) -> String {
    format!("flux-system_{name}_kustomize.toolkit.fluxcd.io_Kustomization")
}

/// k0 holds cm0 and k1, ..., the last holds its ConfigMap only.
fn chain(n: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(2 * n);
    for i in 0..n {
        let mut ids = vec![format!("shop_cm{i}__ConfigMap")];
        if i + 1 < n {
            ids.push(kid(&format!("k{}", i + 1)));
        }
        out.push(kustomization(&format!("k{i}"), ids));
        out.push(configmap(&format!("cm{i}")));
    }
    out
}

/// root holds k0..k{n-1}, each holding its ConfigMap.
fn fan(n: usize) -> Vec<Value> {
    let mut out = vec![kustomization(
        "root",
        (0..n).map(|i| kid(&format!("k{i}"))).collect(),
    )];
    for i in 0..n {
        out.push(kustomization(
            &format!("k{i}"),
            vec![format!("shop_cm{i}__ConfigMap")],
        ));
        out.push(configmap(&format!("cm{i}")));
    }
    out
}

/// root holds n ConfigMaps.
fn wide(n: usize) -> Vec<Value> {
    let mut out = vec![kustomization(
        "root",
        (0..n).map(|i| format!("shop_cm{i}__ConfigMap")).collect(),
    )];
    out.extend((0..n).map(|i| configmap(&format!("cm{i}"))));
    out
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("tree");
    g.sample_size(10);
    for (name, objects) in [
        ("chain_1000", chain(1000)),
        ("fan_1000", fan(1000)),
        ("wide_20000", wide(20_000)),
    ] {
        g.throughput(Throughput::Elements(objects.len() as u64));
        let root = objects[0].clone();
        let t = kustomization_tree(&root, &objects, 0, None).expect("a tree");
        assert_eq!(count(&t), objects.len(), "{name}: every object is a node");
        g.bench_function(name, |b| {
            b.iter(|| kustomization_tree(&root, &objects, 0, None).expect("a tree"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
