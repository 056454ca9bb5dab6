//! Writes the 10,000 Pacto objects of the benchmarks (`shared/benches/common`) to standard
//! output as one YAML stream, a `---` document each, the way `kubectl get -o yaml` items are
//! usually concatenated: the input of the whole-process benchmark in docs/engines.md.
//!
//! `cargo run --release -p pacto-gates --example bench_objects > pactos-10k.yaml`

#[path = "../benches/common/mod.rs"]
mod common;

use std::io::Write;

fn main() -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for object in common::pactos() {
        let text = serde_saphyr::to_string(&object)
            .map_err(|e| std::io::Error::other(format!("writing YAML: {e}")))?;
        out.write_all(b"---\n")?;
        out.write_all(text.as_bytes())?;
    }
    out.flush()
}
