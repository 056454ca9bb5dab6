//! Every snippet, parsed back as Argo CD and Flux would read it and run by this crate's engines,
//! reproduces the mapping tables of "GitOps promotion gates" (Pacto) and "Gate template promotion
//! with GitOps" (CoderTemplateTest) row by row (`pacto/testdata/gate_decisions.yaml`,
//! `pacto/testdata/ctt_decisions.yaml`); the files under `examples/` are the snippets' output byte
//! for byte.

use super::*;
use crate::argo::health::ArgoHealth;
use crate::argo::settings::parse_configmap;
use crate::flux::health::FluxHealth;
use serde_json::json;

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).expect("the snippet is valid YAML")
}

/// The engines as the snippets configure them.
fn engines(warning_blocks: bool) -> (ArgoHealth, FluxHealth) {
    let cm = yaml(&argocd(&Target::ALL, warning_blocks));
    let argo = ArgoHealth::new(
        parse_configmap(&cm).expect("Argo CD loads the patch"),
        None,
        0,
    );
    let entries = yaml(&flux(&Target::ALL, warning_blocks));
    let k = crate::flux::kustomization::parse(&json!({
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "k", "namespace": "flux-system"},
        "spec": {"wait": true, "healthCheckExprs": entries}}))
    .expect("Flux reads the entries");
    let flux = FluxHealth::new(&k.exprs, k.job_order(), 0).expect("the entries compile");
    (argo, flux)
}

fn s(v: &Value) -> &str {
    v.as_str()
        .unwrap_or_else(|| panic!("expected a string, got {v}"))
}

#[test]
fn the_snippets_reproduce_seed_000_row_by_row() {
    let table = yaml(include_str!("../pacto/testdata/gate_decisions.yaml"));
    let mut rows = 0;
    for warning_blocks in [false, true] {
        let (argo, flux) = engines(warning_blocks);
        for state in table["states"].as_array().unwrap() {
            for freshness in ["none", "fresh", "stale", "unobserved"] {
                let Some(plain) = state.get(freshness) else {
                    continue;
                };
                let row = match (warning_blocks, state.get("warning_blocks")) {
                    (true, Some(wb)) => &wb[freshness],
                    _ => plain,
                };
                let mut obj = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
                    "metadata": {"name": "p", "namespace": "n", "generation": 3}});
                if !state["status"].is_null() {
                    let mut st = state["status"].clone();
                    match freshness {
                        "fresh" => st["observedGeneration"] = json!(3),
                        "stale" => st["observedGeneration"] = json!(2),
                        _ => {}
                    }
                    obj["status"] = st;
                }
                let case = format!(
                    "{} / {freshness} / warning blocks {warning_blocks}",
                    s(&state["name"])
                );
                let h = argo.evaluate(&obj).health.expect("a health");
                assert_eq!(
                    (h.status.as_str(), h.message.as_str()),
                    (s(&row["argo"][0]), s(&row["argo"][1])),
                    "{case}: Argo"
                );
                assert_eq!(
                    flux.evaluate(&obj).status.as_str(),
                    s(&row["flux"]),
                    "{case}: Flux"
                );
                rows += 1;
            }
        }
    }
    assert_eq!(rows, 68);
}

#[test]
fn the_snippets_reproduce_seed_004_row_by_row() {
    let table = yaml(include_str!("../pacto/testdata/ctt_decisions.yaml"));
    let (argo, flux) = engines(false);
    for c in table["cases"].as_array().unwrap() {
        let mut obj = json!({"apiVersion": "coder.com/v1alpha1", "kind": "CoderTemplateTest",
            "metadata": {"name": "t", "namespace": "n", "generation": 2}});
        if !c["status"].is_null() {
            obj["status"] = c["status"].clone();
        }
        if c["deleting"] == json!(true) {
            obj["metadata"]["deletionTimestamp"] = json!("2026-11-29T12:00:00Z");
        }
        let name = s(&c["name"]);
        let h = argo.evaluate(&obj).health.expect("a health");
        assert_eq!(
            (h.status.as_str(), h.message.as_str()),
            (s(&c["argo"][0]), s(&c["argo"][1])),
            "{name}: Argo"
        );
        assert_eq!(
            flux.evaluate(&obj).status.as_str(),
            s(&c["flux"]),
            "{name}: Flux"
        );
    }
}

#[test]
fn one_target_gives_only_its_key_and_entry() {
    let cm = yaml(&argocd(&[Target::CoderTemplateTest], false));
    let data = cm["data"].as_object().unwrap();
    assert_eq!(
        data.keys().collect::<Vec<_>>(),
        [&CODER_TEMPLATE_TEST_KEY.to_string()]
    );
    let entries = yaml(&flux(&[Target::Pacto], true));
    assert_eq!(entries.as_array().unwrap().len(), 1);
    assert_eq!(entries[0]["kind"], json!("Pacto"));
}

const CODER_TEMPLATE_TEST_KEY: &str = recommended::CODER_TEMPLATE_TEST_ARGO_KEY;

/// examples/ holds the snippets' output: regenerate with
/// `UPDATE_EXAMPLES=1 cargo test -p pacto-gates --lib snippets`.
#[test]
fn the_examples_are_the_snippets_output() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut drift = Vec::new();
    for (path, text) in example_files() {
        let file = root.join(path);
        if std::env::var_os("UPDATE_EXAMPLES").is_some() {
            std::fs::write(&file, &text).unwrap();
            continue;
        }
        let on_disk = std::fs::read_to_string(&file).unwrap_or_default();
        if on_disk != text {
            drift.push(path);
        }
    }
    assert!(
        drift.is_empty(),
        "out of date (UPDATE_EXAMPLES=1 rewrites them): {drift:?}"
    );
}
