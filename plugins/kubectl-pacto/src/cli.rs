//! The command line of `kubectl pacto` (clap definitions only).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Inspect and test the health gates Argo CD and Flux apply to Pacto contracts and other custom
/// resources, offline, exactly as the controllers evaluate them.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-pacto",
    version,
    propagate_version = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The command as users run it through kubectl: help and usage say `kubectl pacto ...`
    /// (krew's best practice), while completion scripts and man pages keep `kubectl-pacto`.
    #[allow(dead_code)] // the completion shim shares this module but never parses
    pub fn parse_as_plugin() -> Result<Cli, clap::Error> {
        use clap::{CommandFactory, FromArgMatches};
        let cmd = Cli::command().bin_name("kubectl pacto");
        Cli::from_arg_matches(&cmd.try_get_matches()?)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Evaluate Argo CD and Flux health on objects in files, with no cluster.
    ///
    /// Argo CD: deletion first, then a custom health script from argocd-cm (exact key, then
    /// wildcard), then a built-in script from --customizations-dir, then Argo CD's built-in Go
    /// checks. Flux (with --kustomization or --helmrelease): the healthCheckExprs entry for the
    /// object's group and kind, Flux's Job reader, else kstatus; then what the Kustomization's wait
    /// makes of them. Exit 0 when it ran, whatever the verdicts.
    Health(HealthArgs),
    /// Print a shell completion script (bash, zsh or fish) for kubectl-pacto.
    Completion {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// kubectl's plugin completion protocol (used by kubectl_complete-pacto).
    #[command(name = "__complete", hide = true)]
    Complete {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Write the man pages into a directory.
    #[command(name = "__man", hide = true)]
    Man { dir: PathBuf },
}

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    disable_help_subcommand = true
)]
pub struct HealthArgs {
    #[command(subcommand)]
    pub sub: Option<HealthSub>,
    /// Objects to evaluate: YAML or JSON files, directories (recursively, *.yaml *.yml *.json), or
    /// - for standard input. Repeatable.
    #[arg(
        short = 'f',
        long = "filename",
        required = true,
        value_name = "FILE|DIR|-"
    )]
    pub files: Vec<PathBuf>,
    /// An argocd-cm ConfigMap (YAML or JSON) whose resource.customizations apply.
    #[arg(long, value_name = "FILE")]
    pub argocd_cm: Option<PathBuf>,
    /// A directory laid out like argo-cd's resource_customizations/ (<group>/<Kind>/health.lua),
    /// consulted after argocd-cm as Argo CD consults its built-in scripts.
    #[arg(long, value_name = "DIR")]
    pub customizations_dir: Option<PathBuf>,
    /// A Flux Kustomization whose spec.healthCheckExprs, spec.wait, spec.healthChecks and
    /// spec.timeout apply (the objects given stand for what it applies).
    #[arg(long, value_name = "FILE", conflicts_with = "helmrelease")]
    pub kustomization: Option<PathBuf>,
    /// A Flux HelmRelease whose spec.healthCheckExprs apply.
    #[arg(long, value_name = "FILE")]
    pub helmrelease: Option<PathBuf>,
    /// Output format: a table by default.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<Output>,
}

#[derive(Debug, Subcommand)]
pub enum HealthSub {
    /// Run health test suites: every health.lua with a health_test.yaml beside it (argo-cd's
    /// resource_customizations/ layout) and every flux_health_test.yaml. Ends with
    /// "N passed, M failed"; exit 1 on any failure.
    Test {
        /// Directories to search for suites.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    Json,
    Yaml,
}

/// The shells `completion` supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}
