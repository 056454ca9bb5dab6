//! Throughput of the Flux health engine: the healthCheckExprs of the example Kustomization
//! (examples/flux/kustomization-gated.yaml) over 10,000 Pacto objects, reported as objects per
//! second (criterion's element throughput); and the same verdicts through expressions that call
//! a function the fast evaluator leaves to cel-rust (`lowerAscii()`), for the fallback path.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacto_gates::flux::health::{FluxHealth, JobOrder};
use pacto_gates::flux::kustomization::{self, HealthCheckExpr};
use pacto_gates::flux::KStatus;

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
    let fallback = FluxHealth::new(
        &[HealthCheckExpr {
            index: 0,
            api_version: "pacto.trianalab.io/v1alpha1".into(),
            kind: "Pacto".into(),
            failed: "status.contractStatus.lowerAscii() == 'noncompliant' || status.contractStatus == 'Invalid'".into(),
            current: "status.contractStatus.lowerAscii() == 'compliant' || status.contractStatus == 'Reference' || status.contractStatus == 'Warning'".into(),
            in_progress: String::new(),
        }],
        JobOrder::JobReaderFirst,
        0,
    )
    .expect("valid expressions");
    group.bench_function("fallback_exprs_10k_objects", |b| {
        b.iter(|| {
            let failed = objects
                .iter()
                .filter(|o| fallback.evaluate(o).status == KStatus::Failed)
                .count();
            assert!(failed > 0);
            failed
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
