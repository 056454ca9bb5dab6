//! Delivery at fleet scale (the world of `benches/fleet`): 10,000 Stages in 1,000 chains of 10
//! with 10,000 Kustomizations and 1,000 distinct identity patterns, read into a world and every
//! Stage judged (what `get stages -f` computes), and planned (what `reconcile --once` computes
//! before it writes); one chain of 10,000 Stages judged; and 2,500 Stages sharing one apply
//! OCIRepository with 2,500 Kustomizations applying it judged. Each iteration reads the world
//! afresh, so each identity pattern is compiled and each upstream verdict computed once in it.

#[path = "fleet/mod.rs"]
mod fleet;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacto_gates::delivery::{compute, Snapshot, World};
use pacto_gates::reconcile::{self, ListType};

const NOW: &str = "2026-11-29T12:00:00Z";

/// Reads `snapshot` into a world and judges every Stage; the number judged Ready.
fn judge(snapshot: &Snapshot) -> usize {
    let world = World::new(snapshot);
    world
        .stages
        .iter()
        .filter(|s| compute(s, &world).ready.status == "True")
        .count()
}

fn bench(c: &mut Criterion) {
    let fleet = Snapshot::from_values(fleet::fleet(1000, 10));
    let chain = Snapshot::from_values(fleet::chain(10_000));
    let shared = Snapshot::from_values(fleet::shared(2_500));
    // Every Stage of the fleet is Ready; the chain is followed through 256 upstream
    // references, the Stages below are untrusted.
    assert_eq!(judge(&fleet), 10_000);
    assert_eq!(judge(&chain), 257);
    // Sharing one apply OCIRepository, no Stage is Mediated; each is judged in the same time.
    let mediated = |snapshot: &Snapshot| {
        let world = World::new(snapshot);
        world
            .stages
            .iter()
            .filter(|s| compute(s, &world).mediated.status == "False")
            .count()
    };
    assert_eq!(mediated(&shared), 2_500);
    let mut g = c.benchmark_group("delivery");
    g.throughput(Throughput::Elements(10_000));
    g.sample_size(10);
    g.bench_function("judge 10000 Stages in chains of 10", |b| {
        b.iter(|| judge(&fleet))
    });
    g.bench_function("plan 10000 Stages in chains of 10", |b| {
        b.iter(|| {
            let world = World::new(&fleet);
            reconcile::plan(&fleet.stages, &world, ListType::MapByType, NOW).len()
        })
    });
    g.bench_function("judge one chain of 10000 Stages", |b| {
        b.iter(|| judge(&chain))
    });
    g.throughput(Throughput::Elements(2_500));
    g.bench_function("judge 2500 Stages sharing one apply OCIRepository", |b| {
        b.iter(|| mediated(&shared))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
