//! The recommended gates, defined once: the Argo CD health scripts for Pacto ("GitOps promotion
//! gates") and CoderTemplateTest ("Gate template promotion with GitOps") and the Flux
//! `healthCheckExprs` entries with the Kustomization settings they need (`recommended/flux.yaml`).
//! The gate used when a cluster's own cannot be read ([`super::gate`]), `kubectl pacto snippet`,
//! and the files under `examples/` all come from here; a test keeps the examples equal to what
//! `snippet` prints.

use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The recommended Argo CD health script for Pacto, Warning passing.
pub const PACTO_LUA: &str = include_str!("recommended/pacto.lua");
/// The recommended Argo CD health script for CoderTemplateTest.
pub const CODER_TEMPLATE_TEST_LUA: &str = include_str!("recommended/codertemplatetest.lua");
/// The recommended Flux entries and settings (YAML).
pub const FLUX_YAML: &str = include_str!("recommended/flux.yaml");

/// The argocd-cm key of the Pacto health customization ("GitOps promotion gates", "Argo CD").
pub const PACTO_ARGO_KEY: &str = "resource.customizations.health.pacto.trianalab.io_Pacto";
/// The argocd-cm key of the CoderTemplateTest health customization ("Gate template promotion with
/// GitOps", "Install the Argo CD health check").
pub const CODER_TEMPLATE_TEST_ARGO_KEY: &str =
    "resource.customizations.health.coder.com_CoderTemplateTest";

const WARNING_PASSES: &str = "local onWarning = \"Healthy\"";
const WARNING_BLOCKS: &str = "local onWarning = \"Degraded\"";
const WARNING_CURRENT: &str = " || status.contractStatus == 'Warning'";

/// What a recommended gate is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Pacto,
    CoderTemplateTest,
}

impl Target {
    /// Both, in the order the snippets list them.
    pub const ALL: [Target; 2] = [Target::Pacto, Target::CoderTemplateTest];

    /// `pacto.trianalab.io/v1alpha1` / `coder.com/v1alpha1`.
    pub fn api_version(self) -> &'static str {
        match self {
            Target::Pacto => "pacto.trianalab.io/v1alpha1",
            Target::CoderTemplateTest => "coder.com/v1alpha1",
        }
    }

    /// `Pacto` / `CoderTemplateTest`.
    pub fn kind(self) -> &'static str {
        match self {
            Target::Pacto => "Pacto",
            Target::CoderTemplateTest => "CoderTemplateTest",
        }
    }

    /// The argocd-cm data key.
    pub fn argo_key(self) -> &'static str {
        match self {
            Target::Pacto => PACTO_ARGO_KEY,
            Target::CoderTemplateTest => CODER_TEMPLATE_TEST_ARGO_KEY,
        }
    }
}

/// The Argo CD script for `target`. With `warning_blocks` the Pacto script's one knob is
/// flipped: Warning reads Degraded (the CoderTemplateTest script has no knob).
pub fn argo_script(target: Target, warning_blocks: bool) -> String {
    match (target, warning_blocks) {
        (Target::Pacto, true) => PACTO_LUA.replace(WARNING_PASSES, WARNING_BLOCKS),
        (Target::Pacto, false) => PACTO_LUA.to_string(),
        (Target::CoderTemplateTest, _) => CODER_TEMPLATE_TEST_LUA.to_string(),
    }
}

/// The recommended argocd-cm `data`: the health customizations for both kinds.
pub fn argocd_data(warning_blocks: bool) -> BTreeMap<String, String> {
    Target::ALL
        .iter()
        .map(|t| (t.argo_key().to_string(), argo_script(*t, warning_blocks)))
        .collect()
}

fn flux_definition() -> Value {
    serde_saphyr::from_str(FLUX_YAML)
        .expect("recommended/flux.yaml is valid YAML (a test reads it)")
}

/// The recommended `healthCheckExprs` entry for `target` (`apiVersion`, `kind`, then
/// `inProgress`, `failed`, `current` where set). With `warning_blocks`, Warning moves from the
/// Pacto entry's `current` to its `failed` expression.
pub fn flux_entry(target: Target, warning_blocks: bool) -> Value {
    let key = match target {
        Target::Pacto => "pacto",
        Target::CoderTemplateTest => "codertemplatetest",
    };
    let mut e = flux_definition()[key].clone();
    if warning_blocks && target == Target::Pacto {
        let current = e["current"]
            .as_str()
            .unwrap_or("")
            .replace(WARNING_CURRENT, "");
        let failed = format!("{}{WARNING_CURRENT}", e["failed"].as_str().unwrap_or(""));
        e["current"] = json!(current);
        e["failed"] = json!(failed);
    }
    e
}

/// A Flux setting of the recommended Kustomization: `wait`, `timeout`, `interval`.
pub fn flux_setting(name: &str) -> Value {
    flux_definition()[name].clone()
}

/// The recommended Kustomization as an object (named `recommended`), holding both entries.
pub fn kustomization_object(warning_blocks: bool) -> Value {
    let entries: Vec<Value> = Target::ALL
        .iter()
        .map(|t| flux_entry(*t, warning_blocks))
        .collect();
    json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "recommended", "namespace": ""},
        "spec": {"interval": flux_setting("interval"), "timeout": flux_setting("timeout"),
                 "wait": flux_setting("wait"), "healthCheckExprs": entries}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warning_knob_moves_one_word_on_both_sides() {
        assert!(argo_script(Target::Pacto, false).contains(WARNING_PASSES));
        assert!(argo_script(Target::Pacto, true).contains(WARNING_BLOCKS));
        let e = flux_entry(Target::Pacto, true);
        assert_eq!(
            e["current"],
            json!("status.contractStatus == 'Compliant' || status.contractStatus == 'Reference'")
        );
        assert_eq!(
            e["failed"],
            json!("status.contractStatus == 'NonCompliant' || status.contractStatus == 'Invalid' || status.contractStatus == 'Warning'")
        );
        let k = crate::flux::kustomization::parse(&kustomization_object(false)).unwrap();
        assert!(k.wait);
        assert_eq!(k.timeout.as_deref(), Some("20m"));
        assert_eq!(k.exprs.len(), 2);
    }
}
