//! `kubectl pacto version`: the plugin's version (it has only a client version), as text or
//! as a `Version` document (`-o json|yaml`).

use crate::io::output::write_stdout;
use anyhow::{Context, Result};
use kubectl_pacto::cli::Output;
use std::process::ExitCode;

/// `version [-o json|yaml]`.
pub(crate) fn run(output: Option<Output>) -> Result<ExitCode> {
    let version = env!("CARGO_PKG_VERSION");
    let data = serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Version",
        "version": version, "userAgent": pacto_gates::cluster::USER_AGENT});
    let out = match output {
        Some(Output::Json) => serde_json::to_string_pretty(&data)? + "\n",
        Some(Output::Yaml) => serde_saphyr::to_string(&data).context("rendering YAML")?,
        None => format!("kubectl-pacto {version}\n"),
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}
