//! `kubectl pacto snippet`: print the recommended gate configuration, the argocd-cm merge patch
//! or the Flux healthCheckExprs entries, from the library's snippets.

use crate::io::output::write_stdout;
use anyhow::{anyhow, Result};
use kubectl_pacto::cli::{SnippetArgs, SnippetTarget, SnippetTool};
use pacto_gates::pacto::recommended::Target;
use pacto_gates::snippets;
use std::process::ExitCode;

/// `kubectl pacto snippet argocd|flux [--for KIND] [--warning-blocks]`, and `snippet flux
/// --kustomization NAME [--namespace NS] [--source KIND/NAME] [--path PATH]`.
pub(crate) fn run(args: &SnippetArgs) -> Result<ExitCode> {
    let targets: Vec<Target> = match args.target {
        None => Target::ALL.to_vec(),
        Some(SnippetTarget::Pacto) => vec![Target::Pacto],
        Some(SnippetTarget::Codertemplatetest) => vec![Target::CoderTemplateTest],
    };
    let text = match (args.tool, &args.kustomization) {
        (SnippetTool::Argocd, Some(_)) => {
            return Err(anyhow!(
                "--kustomization is for snippet flux (Argo CD reads the argocd-cm patch)"
            ))
        }
        (SnippetTool::Argocd, None) => snippets::argocd(&targets, args.warning_blocks),
        (SnippetTool::Flux, None) => snippets::flux(&targets, args.warning_blocks),
        (SnippetTool::Flux, Some(name)) => {
            let parts =
                snippets::KustomizationParts::new(name, &args.namespace, &args.source, &args.path)
                    .map_err(|e| anyhow!(e))?;
            snippets::flux_kustomization(&parts, &targets, args.warning_blocks)
        }
    };
    if text.is_empty() {
        return Err(anyhow!("no snippet"));
    }
    write_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
