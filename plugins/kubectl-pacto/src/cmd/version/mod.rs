//! `kubectl pacto version`: the plugin's version (it has only a client version) and the Argo CD
//! and Flux releases its engines follow, as text or as a `Version` document (`-o json|yaml`).

use crate::io::output::write_stdout;
use anyhow::{Context, Result};
use kubectl_pacto::cli::Output;
use std::process::ExitCode;

/// `version [-o json|yaml]`.
pub(crate) fn run(output: Option<Output>) -> Result<ExitCode> {
    let version = env!("CARGO_PKG_VERSION");
    let (argo, flux) = (pacto_gates::argo::FOLLOWS, pacto_gates::flux::FOLLOWS);
    let data = serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Version",
        "version": version, "userAgent": pacto_gates::cluster::USER_AGENT,
        "follows": {"argoCD": argo, "flux": flux}});
    let out = match output {
        Some(Output::Json) => serde_json::to_string_pretty(&data)? + "\n",
        Some(Output::Yaml) => serde_saphyr::to_string(&data).context("rendering YAML")?,
        None => format!("kubectl-pacto {version}\nArgo CD: {argo}\nFlux:    {flux}\n"),
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}
