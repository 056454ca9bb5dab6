//! The delivery world of the fleet benchmarks (`benches/delivery.rs`, `examples/bench_stages.rs`
//! and the whole-process figures of docs/engines.md): services promoted through chains of
//! Stages, each Stage in its environment's namespace with its labelled apply OCIRepository and
//! the one labelled, scoped Kustomization that applies it ("Delivery reference: setup and
//! gates", "Set up a Stage" and "What the pointer guarantees"); the first Stage of each chain
//! takes its candidates from an OCIRepository verified keyless, with an identity pattern of its
//! own (so a fleet of `chains` chains reads `chains` distinct subject patterns).
//!
//! Every Stage of the world is Ready and Mediated.

use serde_json::{json, Value};

const GROUP_VERSION: &str = "delivery.pacto.trianalab.io/v1alpha1";
const LABEL: &str = "delivery.pacto.trianalab.io/apply-ref";

/// The namespace of environment `d` of a chain.
fn environment(d: usize) -> String {
    format!("env-{d}")
}

/// `chains` services, each through `depth` environments (Stage `svc-<c>` in namespace
/// `env-<d>`, taking its candidates from `svc-<c>` in `env-<d-1>`): `chains × depth` Stages,
/// as many apply OCIRepositories and Kustomizations, and `chains` candidate OCIRepositories.
pub fn fleet(chains: usize, depth: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(chains * (3 * depth + 1));
    for c in 0..chains {
        let service = format!("svc-{c}");
        out.push(candidates(&service, &environment(0), c));
        for d in 0..depth {
            let upstream = (d > 0).then(|| environment(d - 1));
            out.extend(stage(&service, &environment(d), upstream.as_deref()));
        }
    }
    out
}

/// One chain of `n` Stages of one service in one namespace (`svc-0` first, `svc-<i>` taking
/// its candidates from `svc-<i-1>`), each with its own apply OCIRepository and Kustomization.
pub fn chain(n: usize) -> Vec<Value> {
    let ns = "chain";
    let mut out = Vec::with_capacity(3 * n + 1);
    out.push(candidates("svc-0", ns, 0));
    for i in 0..n {
        let name = format!("svc-{i}");
        let mut objects = stage(&name, ns, None);
        objects[0]["spec"]["service"]["name"] = json!("svc");
        objects[0]["spec"]["candidates"] = match i {
            0 => json!({"ociRepositoryRef": {"name": "svc-0-candidates"}}),
            _ => json!({"upstreamStage": {"name": format!("svc-{}", i - 1)}}),
        };
        out.extend(objects);
    }
    out
}

/// `n` Stages in one namespace sharing one apply OCIRepository (`shared`, labelled for
/// `svc-0`), each with its own Kustomization applying it (labelled for its namesake Stage):
/// a misconfigured world where every Stage has `n` appliers (`Mediated` False
/// `SeveralAppliers`), whose cost must stay linear in `n`.
#[allow(dead_code)]
pub fn shared(n: usize) -> Vec<Value> {
    let ns = "shared";
    let mut out = Vec::with_capacity(2 * n + 2);
    out.push(candidates("svc-0", ns, 0));
    for i in 0..n {
        let name = format!("svc-{i}");
        let mut objects = stage(&name, ns, None);
        objects[0]["spec"]["applyRef"]["name"] = json!("shared");
        objects[0]["spec"]["candidates"] =
            json!({"ociRepositoryRef": {"name": "svc-0-candidates"}});
        objects[2]["spec"]["sourceRef"]["name"] = json!("shared");
        if i == 0 {
            objects[1]["metadata"]["name"] = json!("shared");
            out.extend(objects);
        } else {
            // The Stage and its Kustomization; its own apply OCIRepository is left out.
            let k = objects.pop().unwrap_or_default();
            out.push(objects.swap_remove(0));
            out.push(k);
        }
    }
    out
}

/// The candidate OCIRepository `<service>-candidates`, verified keyless with the issuer of
/// GitHub Actions and a subject naming the service's own publish workflow on a version tag.
fn candidates(service: &str, namespace: &str, c: usize) -> Value {
    json!({
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "OCIRepository",
        "metadata": {"name": format!("{service}-candidates"), "namespace": namespace},
        "spec": {
            "interval": "5m",
            "url": format!("oci://registry.example.com/apps/{service}"),
            "ref": {"semver": ">=0.0.0"},
            "verify": {"provider": "cosign", "matchOIDCIdentity": [{
                "issuer": r"^https://token\.actions\.githubusercontent\.com$",
                "subject": format!(r"^https://github\.com/acme/svc-{c}/\.github/workflows/publish\.yaml@refs/tags/v[0-9]+\.[0-9]+\.[0-9]+$"),
            }]}
        }
    })
}

/// The Stage `name` of `namespace` (its candidates from the candidate OCIRepository of its
/// namespace, or from the Stage of the same name in `upstream`), its apply OCIRepository and
/// its Kustomization.
fn stage(name: &str, namespace: &str, upstream: Option<&str>) -> Vec<Value> {
    let candidates = match upstream {
        Some(up) => json!({"upstreamStage": {"name": name, "namespace": up}}),
        None => {
            json!({"ociRepositoryRef": {"name": format!("{name}-candidates"), "namespace": "env-0"}})
        }
    };
    let labels = json!({LABEL: name});
    vec![
        json!({
            "apiVersion": GROUP_VERSION,
            "kind": "Stage",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "service": {"name": name},
                "environment": namespace,
                "applyRef": {"name": name},
                "candidates": candidates,
                "startLevel": "advise",
                "gates": {"verify": {"window": "5m"}}
            }
        }),
        json!({
            "apiVersion": "source.toolkit.fluxcd.io/v1",
            "kind": "OCIRepository",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {
                "interval": "1m",
                "url": format!("oci://registry.example.com/apps/{name}"),
                "ref": {"digest": "sha256:3f1c1a0d7e35a1c7b1b0e0c5b6f0b1a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3"},
                "verify": {"provider": "cosign", "secretRef": {"name": "cosign-pub"}}
            }
        }),
        json!({
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
            "kind": "Kustomization",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {
                "interval": "1m",
                "path": format!("./{namespace}"),
                "prune": true,
                "wait": true,
                "serviceAccountName": format!("{name}-deployer"),
                "sourceRef": {"kind": "OCIRepository", "name": name}
            }
        }),
    ]
}
