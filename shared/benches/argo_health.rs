//! Throughput of the Argo CD health engine: the example Pacto gate script (argocd-cm custom
//! key, restricted libraries) over 10,000 Pacto objects, fresh globals per object (Argo CD builds a
//! fresh state). Reported as objects per second (criterion's element throughput), twice: by
//! wall-clock time (`pacto_gate_10k_objects`) and by the CPU time the process spends
//! (`pacto_gate_10k_objects_cpu`, all its threads: objects per second of one core, steadier on a
//! loaded machine).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacto_gates::argo::health::ArgoHealth;
use pacto_gates::argo::settings::parse_configmap;

mod common;
use common::{pactos, OBJECTS};

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
    group.bench_function("pacto_gate_10k_objects_cpu", |b| {
        b.iter_custom(|iters| {
            let start = process_cpu_time();
            for _ in 0..iters {
                let mut degraded = 0;
                for o in &objects {
                    let v = engine.evaluate(o);
                    if v.health.map(|h| h.status == "Degraded").unwrap_or(false) {
                        degraded += 1;
                    }
                }
                assert!(degraded > 0);
            }
            process_cpu_time() - start
        })
    });
    group.finish();

    // The cost of routing arithmetic through gopher's coercion rules: a script doing 1,000
    // additions and multiplications per object, over 1,000 objects.
    let arith = pacto_gates::argo::lua::Script::compile(
        "local n = 0 for i = 1, 1000 do n = n + i * 2 end return {status = 'Healthy', message = tostring(n)}",
    )
    .expect("compiles");
    let limits = pacto_gates::argo::lua::Limits::default();
    let mut group = c.benchmark_group("argo_arithmetic");
    group.throughput(Throughput::Elements(1_000));
    group.sample_size(10);
    group.bench_function("loop_1000_ops_1k_objects_cpu", |b| {
        b.iter_custom(|iters| {
            let start = process_cpu_time();
            for _ in 0..iters {
                for o in objects.iter().take(1_000) {
                    let ev = pacto_gates::argo::lua::execute_health(&arith, o, false, 0, &limits);
                    assert_eq!(ev.result.expect("runs").message, "1001000");
                }
            }
            process_cpu_time() - start
        })
    });
    group.finish();
}

/// CPU time consumed by the whole process, every thread included (`CLOCK_PROCESS_CPUTIME_ID`).
fn process_cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

criterion_group!(benches, bench);
criterion_main!(benches);
