//! Serves objects for a whole-process benchmark of a live command: registers the Stage CRD of
//! `examples/cluster/` and Flux's OCIRepository and Kustomization and Argo CD's Application
//! kinds, stores every item of a JSON `List` file, writes a kubeconfig for the server (namespace
//! `default`) into a directory, prints its path, and serves until its standard input closes.
//!
//! ```text
//! cargo run --release -p fake-apiserver --example serve -- fleet.json /tmp/fleet-kube < fifo
//! ```

use fake_apiserver::{FakeApiServer, Resource};
use serde_json::Value;
use std::io::Read;
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(objects), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: serve OBJECTS.json KUBECONFIG-DIR");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&objects).unwrap_or_else(|e| {
        eprintln!("error: {objects}: {e}");
        std::process::exit(1)
    });
    let list: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!("error: {objects}: {e}");
        std::process::exit(1)
    });
    drop(text);
    let server = FakeApiServer::start();
    let crd = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/cluster/stages.delivery.pacto.trianalab.io.yaml"
    );
    let crd = std::fs::read_to_string(crd).unwrap_or_else(|e| {
        eprintln!("error: the Stage CRD: {e}");
        std::process::exit(1)
    });
    server.register(Resource::from_crd_yaml(&crd, "v1alpha1"));
    for (api_version, kind, plural) in [
        (
            "source.toolkit.fluxcd.io/v1",
            "OCIRepository",
            "ocirepositories",
        ),
        (
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
            "kustomizations",
        ),
        ("argoproj.io/v1alpha1", "Application", "applications"),
    ] {
        server.register(Resource::new(api_version, kind, plural, true, true));
    }
    let items = match list {
        Value::Object(mut m) => match m.remove("items") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let count = items.len();
    for o in items {
        server.insert(o);
    }
    let kubeconfig = server.write_kubeconfig(Path::new(&dir), Some("default"));
    eprintln!("serving {count} objects at {}", server.url());
    println!("{}", kubeconfig.display());
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
}
