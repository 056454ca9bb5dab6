//! Reading objects: the 10,000 Pacto objects of `common` written as a YAML stream (one document
//! each, as `kubectl get -o yaml` items are usually concatenated) and as one JSON `List`
//! (`kubectl get -o json`), read with `object::parse_objects`, reported as objects per second
//! (criterion's element throughput). Peak memory is measured on whole runs with
//! `/usr/bin/time -v` (see the report of the change that added this file).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

mod common;
use common::{pactos, OBJECTS};

fn bench(c: &mut Criterion) {
    let objects = pactos();
    let yaml: String = objects
        .iter()
        .map(|o| format!("---\n{}", serde_saphyr::to_string(o).expect("YAML")))
        .collect();
    let json = serde_json::to_string_pretty(
        &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objects}),
    )
    .expect("JSON");
    let mut group = c.benchmark_group("read_objects");
    group.throughput(Throughput::Elements(OBJECTS as u64));
    group.sample_size(10);
    for (name, text) in [("yaml_stream_10k", &yaml), ("json_list_10k", &json)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let objs = pacto_gates::object::parse_objects(text, name).expect("parses");
                assert_eq!(objs.len(), OBJECTS);
                objs.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
