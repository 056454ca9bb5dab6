//! Throughput of the Flux health engine: the healthCheckExprs of the example Kustomization
//! (examples/flux/kustomization-gated.yaml) over 10,000 Pacto objects, reported as objects per
//! second (criterion's element throughput).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacto_gates::flux::health::{FluxHealth, JobOrder};
use pacto_gates::flux::{kustomization, KStatus};

mod common;
use common::{pactos, OBJECTS};

fn bench(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/flux/kustomization-gated.yaml"
    );
    let text = std::fs::read_to_string(path).expect("example Kustomization");
    let objs = pacto_gates::object::parse_objects(&text, path).expect("parses");
    let k = kustomization::parse(&objs[0].value).expect("a Kustomization");
    let engine = FluxHealth::new(&k.exprs, JobOrder::JobReaderFirst, 0).expect("valid expressions");
    let objects = pactos();
    let mut group = c.benchmark_group("flux_health");
    group.throughput(Throughput::Elements(OBJECTS as u64));
    group.sample_size(10);
    group.bench_function("pacto_exprs_10k_objects", |b| {
        b.iter(|| {
            let failed = objects
                .iter()
                .filter(|o| engine.evaluate(o).status == KStatus::Failed)
                .count();
            assert!(failed > 0);
            failed
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
