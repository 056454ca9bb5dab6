//! Writes an Argo CD Application of N resources (default 5,000) with its live objects and the
//! argocd-cm that judges them, as one YAML stream: the input of the `explain application/NAME`
//! measurement in docs/engines.md. Every fifth resource is a ConfigMap (no health), every
//! seventh a Deployment (the built-in Go check), the rest `example.io` Widgets judged by an
//! argocd-cm health script; the Widget in the middle is Degraded.
//!
//! `cargo run --release -p pacto-gates --example bench_application -- 5000 > app-5k.yaml`

use serde_json::{json, Value};
use std::io::Write;

fn main() -> std::io::Result<()> {
    let n: usize = match std::env::args().nth(1) {
        None => 5000,
        Some(a) => a
            .parse()
            .map_err(|e| std::io::Error::other(format!("N: {e}")))?,
    };
    let broken = n / 2;
    let mut resources = Vec::with_capacity(n);
    let mut live: Vec<Value> = Vec::with_capacity(n);
    for i in 0..n {
        let name = format!("r{i:05}");
        let (group, kind) = if i != broken && i % 5 == 0 {
            ("", "ConfigMap")
        } else if i != broken && i % 7 == 0 {
            ("apps", "Deployment")
        } else {
            ("example.io", "Widget")
        };
        resources.push(json!({"group": group, "version": "v1", "kind": kind, "namespace": "shop", "name": name}));
        let api = if group.is_empty() {
            "v1".to_string()
        } else {
            format!("{group}/v1")
        };
        let mut o = json!({"apiVersion": api, "kind": kind,
            "metadata": {"name": name, "namespace": "shop", "generation": 1}});
        match kind {
            "Widget" if i == broken => {
                o["status"] = json!({"phase": "Broken", "reason": "disk quota exceeded"})
            }
            "Widget" => o["status"] = json!({"phase": "Ready"}),
            "Deployment" => {
                o["spec"] = json!({"replicas": 1});
                o["status"] = json!({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1});
            }
            _ => o["data"] = json!({"k": "v"}),
        }
        live.push(o);
    }
    let app = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "shop", "namespace": "argocd"},
        "status": {"resources": resources}});
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": "argocd"},
        "data": {"resource.customizations.health.example.io_Widget":
            "if obj.status.phase == 'Ready' then return {status = 'Healthy'} end\nreturn {status = 'Degraded', message = obj.status.reason}"}});
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for object in [app, cm].iter().chain(live.iter()) {
        let text = serde_saphyr::to_string(object)
            .map_err(|e| std::io::Error::other(format!("writing YAML: {e}")))?;
        out.write_all(b"---\n")?;
        out.write_all(text.as_bytes())?;
    }
    out.flush()
}
