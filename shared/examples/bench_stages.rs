//! Writes the delivery world of the fleet benchmarks (`shared/benches/fleet`) to standard
//! output as one YAML stream, a `---` document each: the input of the whole-process figures of
//! docs/engines.md ("Delivery at fleet scale"). Each Stage carries the `Ready` and `Mediated`
//! conditions its reconcile computes (`status.conditions`), so a reconcile of it writes nothing.
//!
//! ```text
//! cargo run --release -p pacto-gates --example bench_stages -- fleet 1000 10 > fleet.yaml
//! cargo run --release -p pacto-gates --example bench_stages -- chain 10000 > chain.yaml
//! ```
//!
//! `fleet CHAINS DEPTH`: CHAINS services through DEPTH environments (CHAINS × DEPTH Stages and
//! Kustomizations, CHAINS identity patterns); `chain N`: one chain of N Stages; `shared N`: N
//! Stages sharing one apply OCIRepository, each with a Kustomization applying it. A last argument
//! `--json` writes one JSON `List` instead (for `fake-apiserver`'s `serve` example).

#[path = "../benches/fleet/mod.rs"]
mod fleet;

use pacto_gates::delivery::{Snapshot, World};
use pacto_gates::reconcile::{self, ListType};
use serde_json::{json, Value};
use std::io::Write;

const NOW: &str = "2026-11-29T12:00:00Z";

fn number(arg: Option<String>, what: &str) -> std::io::Result<usize> {
    arg.as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|_| std::io::Error::other(format!("{what}: expected a number")))
}

/// `objects` with each Stage at `metadata.generation` 1 and its status as its reconcile
/// writes it (`reconcile::plan`), so that a reconcile of them writes nothing.
fn written(mut objects: Vec<Value>) -> Vec<Value> {
    for o in objects.iter_mut().filter(|o| o["kind"] == "Stage") {
        o["metadata"]["generation"] = json!(1);
    }
    let snapshot = Snapshot::from_objects(&objects);
    let world = World::new(&snapshot);
    let statuses: Vec<Value> = reconcile::plan(&snapshot.stages, &world, ListType::MapByType, NOW)
        .into_iter()
        .map(|c| match c.write {
            Some(w) => w.body()["status"].clone(),
            None => Value::Null,
        })
        .collect();
    drop(world);
    let mut statuses = statuses.into_iter();
    for o in objects.iter_mut().filter(|o| o["kind"] == "Stage") {
        o["status"] = statuses.next().unwrap_or(Value::Null);
    }
    objects
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let objects = match args.next().as_deref() {
        Some("fleet") => {
            let chains = number(args.next(), "CHAINS")?;
            let depth = number(args.next(), "DEPTH")?;
            fleet::fleet(chains, depth)
        }
        Some("chain") => fleet::chain(number(args.next(), "N")?),
        Some("shared") => fleet::shared(number(args.next(), "N")?),
        _ => {
            return Err(std::io::Error::other(
                "usage: bench_stages fleet CHAINS DEPTH | chain N | shared N",
            ))
        }
    };
    let objects = written(objects);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.next().as_deref() == Some("--json") {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
        serde_json::to_writer(&mut out, &list)?;
        out.write_all(b"\n")?;
        return out.flush();
    }
    for object in objects {
        let text = serde_saphyr::to_string(&object)
            .map_err(|e| std::io::Error::other(format!("writing YAML: {e}")))?;
        out.write_all(b"---\n")?;
        out.write_all(text.as_bytes())?;
    }
    out.flush()
}
