//! The command line of `kubectl pacto` (clap definitions only).

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::engine::ArgValueCandidates;
use std::path::PathBuf;

/// Inspect, explain, test and check the health gates Argo CD and Flux apply to Pacto contracts,
/// delivery Stages and other custom resources: offline, exactly as the controllers evaluate
/// them, or against a cluster.
#[derive(Debug, Parser)]
#[command(name = "kubectl-pacto", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The most bytes read from one input: a file, standard input, a kubeconfig, a test suite
    /// (e.g. 1Gi, 512Mi, 1000000). A larger input is refused with an error.
    #[arg(long, global = true, value_name = "SIZE", default_value = "1Gi")]
    pub max_input_bytes: String,
    /// How many upstream Stages a Stage's chain of spec.candidates.upstreamStage is followed
    /// through (live, each is one more read); the Stages further down are UpstreamUntrusted.
    #[arg(long, global = true, value_name = "N", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_upstream_depth: u32,
    /// The most bytes of source one Argo CD health script may have (argocd-cm, a customizations
    /// directory, a test suite; e.g. 1Mi, 4Mi): the default is what a ConfigMap can hold. A
    /// larger script is refused with an error before it is compiled.
    #[arg(long, global = true, value_name = "SIZE", default_value = "1Mi")]
    pub max_script_bytes: String,
    /// The Flux release to judge as, 2.5 to 2.9 (the newest, the one the engines follow): where
    /// healthCheckExprs behave otherwise (duplicate entries, entries without kind, a HelmRelease's
    /// entries, a non-integer observedGeneration), the older release's behaviour is emulated.
    /// KUBECTL_PACTO_FLUX_VERSION sets a default.
    #[arg(
        long,
        global = true,
        value_name = "VERSION",
        default_value = "2.9",
        env = "KUBECTL_PACTO_FLUX_VERSION"
    )]
    pub flux_version: String,
}

impl Cli {
    /// The command as users run it through kubectl: help and usage say `kubectl pacto ...`
    /// (krew's best practice), while completion scripts and man pages keep `kubectl-pacto`.
    pub fn parse_as_plugin() -> Result<Cli, clap::Error> {
        use clap::{CommandFactory, FromArgMatches};
        let cmd = Cli::command().bin_name("kubectl pacto");
        Cli::from_arg_matches(&cmd.try_get_matches()?)
    }
}

/// The command of a command line clap refused (`doctor`, `get`, ...), found as clap finds it
/// with its errors ignored, so that a global flag's value before it is not taken for it. None
/// when it names none.
pub fn refused_command<I, T>(args: I) -> Option<String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::CommandFactory;
    let matched = Cli::command()
        .ignore_errors(true)
        .try_get_matches_from(args);
    Some(matched.ok()?.subcommand_name()?.to_string())
}

/// The exit code of a command line clap refused, for its `command` ([`refused_command`]): the
/// code the command gives when it could not run (2 for `doctor` and `reconcile`, whose 1 means
/// findings or Stages not ready), else 1.
pub fn usage_error_code(command: Option<&str>) -> u8 {
    match command {
        Some("doctor" | "reconcile") => 2,
        _ => 1,
    }
}

/// A hint for a command line clap refused because a file or directory was given without `-f`
/// (`health examples/objects`, `doctor examples`): the value it refused names an existing path.
/// `exists` says whether a path exists (the caller's file system).
pub fn forgot_f_hint(e: &clap::Error, exists: impl Fn(&str) -> bool) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let kind = match e.kind() {
        ErrorKind::InvalidSubcommand => ContextKind::InvalidSubcommand,
        ErrorKind::UnknownArgument => ContextKind::InvalidArg,
        _ => return None,
    };
    let value = match e.get(kind)? {
        ContextValue::String(s) => s.clone(),
        _ => return None,
    };
    (!value.starts_with('-') && exists(&value))
        .then(|| format!("hint: {value:?} is a file or directory: give files with -f (-f {value})"))
}

/// A hint for `-f` given to a command that reads only the cluster (`wait`, `reconcile`; the
/// refused `command` as [`refused_command`] finds it): clap's own tip (`to pass '-f' as a
/// value, use '-- -f'`) leads nowhere. None for any other refusal.
pub fn files_not_read_hint(e: &clap::Error, command: Option<&str>) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    if !matches!(arg.as_str(), "-f" | "--filename") && !arg.starts_with("--filename=") {
        return None;
    }
    let command = command.filter(|c| matches!(*c, "wait" | "reconcile"))?;
    Some(format!(
        "hint: {command} reads the cluster, not files; -f is for get, explain, health and doctor"
    ))
}

/// What to list instead when files given to `get` (Pactos) hold none but hold delivery objects:
/// `no Pactos in the files given; they hold 2 Stages and 1 Operation: kubectl pacto get stages
/// -f ..., kubectl pacto get operations -f ...`. None when they hold a Pacto or neither kind.
pub fn other_kinds_hint(values: &[serde_json::Value]) -> Option<String> {
    use pacto_gates::kinds::{OPERATION, PACTO, STAGE};
    if values.iter().any(|v| PACTO.is(v)) {
        return None;
    }
    let count = |k: &pacto_gates::kinds::ApiKind| values.iter().filter(|v| k.is(v)).count();
    let held: Vec<(usize, &str, &str)> = [
        (count(&STAGE), "Stage", "stages"),
        (count(&OPERATION), "Operation", "operations"),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .collect();
    if held.is_empty() {
        return None;
    }
    let words: Vec<String> = held
        .iter()
        .map(|(n, kind, _)| format!("{n} {kind}{}", if *n == 1 { "" } else { "s" }))
        .collect();
    let commands: Vec<String> = held
        .iter()
        .map(|(_, _, plural)| format!("kubectl pacto get {plural} -f ..."))
        .collect();
    Some(format!(
        "no Pactos in the files given; they hold {}: {}",
        words.join(" and "),
        commands.join(", ")
    ))
}

/// The command line without its internal commands (`__complete`, `__man`), for the static
/// completion scripts: what a user can type, and nothing else.
pub fn public_command() -> clap::Command {
    use clap::CommandFactory;
    let full = Cli::command();
    let visible: Vec<clap::Command> = full
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect();
    let mut public = clap::Command::new("kubectl-pacto")
        .bin_name("kubectl-pacto")
        .version(env!("CARGO_PKG_VERSION"))
        .propagate_version(true)
        .subcommands(visible);
    if let Some(about) = full.get_about() {
        public = public.about(about.clone());
    }
    public
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
    /// List Pactos with their verdict and what the Argo CD and Flux gates decide; or delivery
    /// Stages with their computed conditions; or Operations with where they stand.
    ///
    /// Reads the cluster (kubeconfig or in-cluster) with one list per kind, in pages of
    /// --chunk-size objects (500, as kubectl), or files with -f. RESOURCE is pactos (the
    /// default), stages or operations (singular, plural, group-qualified, or TYPE/NAME for one
    /// object). Stages are judged on what they name, read only in the namespaces needed (every
    /// namespace with -A).
    ///
    /// Pactos: STATUS is status.contractStatus as written (unknown values shown, read as
    /// pending); ERRORS and WARNINGS the summary counts (legacy operator: failed checks that make
    /// it NonCompliant, and the others); GATE what the gates do with the next rollout step: pass,
    /// hold, fail, none (no gate reads the verdict), or argo:X flux:Y when they differ; FRESH yes,
    /// no (generation not observed), late (no reconcile for two check intervals) or - (never
    /// evaluated); AGE since creation; FINDING the first error finding (for an Unknown verdict the
    /// first unknown one). -o wide adds ARGO, FLUX, RECONCILED, INTERVAL (checkIntervalSeconds,
    /// default 300) and SCHEMA (current, legacy, none: no status, undetermined: a status with
    /// neither shape's fields). The gates are the cluster's own (argocd-cm, and the Flux
    /// Kustomizations whose inventory holds the Pacto) when readable, else the recommended gate;
    /// a note on stderr says when.
    ///
    /// Stages: READY and MEDIATED are the Ready and Mediated conditions as computed here from
    /// the Stage, its OCIRepositories and its appliers (Flux Kustomizations, Argo CD
    /// Applications), True, False or Unknown; REASON the computed reason of the first that is not
    /// True; POINTER status.pointer (the digest cut to 12 hex digits); LEVEL status.level. -o wide
    /// adds SERVICE, ENVIRONMENT, APPLY (spec.applyRef.name) and WRITTEN (same: the conditions
    /// written on the Stage say what is computed; differs). A kind that is not installed or
    /// cannot be read is a note on stderr.
    ///
    /// Operations: TYPE spec.type, STAGE spec.stageRef.name, PHASE status.phase, WAITING-ON the
    /// gates a Held operation waits on a person for (- in other phases). -o wide adds VERSION,
    /// DIGEST and ACTOR.
    ///
    /// KUBECTL_PACTO_NOW (RFC 3339) fixes the clock for reproducible output.
    Get(GetArgs),
    /// Explain one Pacto's verdict, one delivery Stage's conditions or one Operation's place, or
    /// why an Application, a Kustomization or a HelmRelease is held.
    ///
    /// A Pacto: findings, conditions, freshness, what Argo CD and Flux decide and why, and when
    /// it will change. A Stage: its conditions as written and as computed, every rule with its
    /// verdict, and for each failure the object, the field and the fix. An Operation: what its
    /// phase means, each gate's verdict, who may act next, and the Approvals that count.
    ///
    /// Takes pacto/NAME, codertemplatetest/NAME, stage/NAME, operation/NAME, application/NAME,
    /// kustomization/NAME or helmrelease/NAME from the cluster, or the objects of -f files (all of them, or the one KIND/NAME names; the files also hold
    /// what a Stage or Operation depends on). -o json|yaml prints the explanation as data.
    /// KUBECTL_PACTO_NOW (RFC 3339) fixes the clock for reproducible output.
    Explain(ExplainArgs),
    /// Show an Argo CD Application, a Flux Kustomization or a HelmRelease as a tree of the
    /// objects below it (its status.resources, its inventory, or its latest Helm release), each
    /// with its health through the gate that judges it, the rule that decided and its message.
    /// Child Applications, Kustomizations and HelmReleases are nested below their own entry. The
    /// same as `explain KIND/NAME --tree`.
    ///
    /// Takes application/NAME, kustomization/NAME or helmrelease/NAME from the cluster, or from
    /// -f files that hold it and the live objects (for a HelmRelease, its Helm storage Secret
    /// too). -o json|yaml prints the tree as data.
    Tree(TreeArgs),
    /// Check that the gates are configured, not only look configured.
    ///
    /// Reads argocd-cm, argocd-cmd-params-cm, Kustomizations, HelmReleases, Pactos,
    /// CoderTemplateTests, Stages with their OCIRepositories and Applications, from -f files
    /// and directories (suite files skipped) or with --cluster from the cluster (one list per
    /// kind, in pages of --chunk-size objects), and checks that each gate does what the Pacto
    /// documents set it up to do (docs/upstream.md names them: the GitOps promotion gates, the
    /// template gate, the delivery setup): Flux (F checks), Argo CD (A), the Pacto operator and its
    /// objects (O), CoderTemplateTests (C) and delivery Stages (S). Each finding has an ID, a
    /// severity, the object, the evidence and the fix. Some checks run the configured Argo CD
    /// scripts and Flux expressions on probe objects (no status, a stale generation, every
    /// contractStatus, every CoderTemplateTest phase). With --cluster it also compares the Argo
    /// CD application controller's start time with the time the Pacto key was written. Exit 0
    /// when no finding is a warning or an error, 1 otherwise, 2 when it could not run.
    Doctor(DoctorArgs),
    /// Compute the Ready and Mediated conditions of every Stage once and write them to its
    /// status, for clusters where no long-running controller may run (a CronJob).
    ///
    /// Reads the Stages (in -n, or every namespace with -A; -l selects) and their appliers (Flux
    /// OCIRepositories and Kustomizations, Argo CD Applications) with paged lists, computes the
    /// conditions, and writes each Stage whose status does not already say them: server-side
    /// apply under the field manager kubectl-pacto when the CRD schema merges conditions by
    /// type, else a merge patch guarded by resourceVersion that keeps every other condition.
    /// Writes --concurrent at a time (8 by default). A 409 re-reads that Stage and retries,
    /// unless the re-read is another object (another namespace, name or uid); 429 and 5xx are
    /// retried with Retry-After; a 403 skips the Stage naming the permission. --timeout (3m by
    /// default) bounds the whole run: past it nothing more is written and the Stages left are
    /// reported. --dry-run prints the planned patches and writes nothing. Exit 0 when
    /// everything is written or unchanged, 1 when something is left unwritten, 2 when it could
    /// not run.
    Reconcile(ReconcileArgs),
    /// Wait until Pactos, Stages or Operations reach a state, for CI and scripts (kubectl wait's
    /// habits).
    ///
    /// KIND/NAME waits for one object (pacto/NAME, stage/NAME, operation/NAME); KIND with -l
    /// for every object the selector matches. --for gate=pass|hold|fail|none (what the Argo CD
    /// and Flux gates together do with the next rollout step: the stricter side decides, a side
    /// that gates nothing does not count; the cluster's gates, else the recommended one),
    /// verdict=STATUS (status.contractStatus, written for the object's generation),
    /// condition=TYPE[=STATUS] (the conditions written on the object, as kubectl wait reads
    /// them: STATUS True by default, not counted while observed at an older generation), jsonpath={PATH}[=VALUE], or delete. Reads the objects once, then follows a
    /// watch. Exit 0 when every object has reached it ("condition met"); 1 on --timeout (default
    /// 30s), saying for each object why it is not there (the explain report), or when a watched
    /// object is deleted (unless --for delete).
    Wait(WaitArgs),
    /// Print the recommended gate configuration: the argocd-cm merge patch (argocd) or the
    /// Flux healthCheckExprs entries (flux), with the comments that explain their knobs.
    Snippet(SnippetArgs),
    /// Print the version of kubectl-pacto (-o json|yaml as data).
    Version {
        /// Output format: `kubectl-pacto VERSION` by default.
        #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
        output: Option<Output>,
        /// Accepted as kubectl version takes it (the plugin has only a client version).
        #[arg(long)]
        client: bool,
    },
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
    /// How long one Lua script or CEL expression may run on one object (Argo CD's 1 s; Flux has
    /// no bound). Past it the object is Unknown, saying so.
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    pub eval_timeout: String,
    /// How much memory one Lua script or CEL expression may use on one object (e.g. 64Mi,
    /// 1Gi; neither Argo CD nor Flux has a bound). Past it the object is Unknown, saying so.
    #[arg(long, value_name = "SIZE", default_value = "64Mi")]
    pub eval_memory: String,
    /// Output format: a table by default (on a terminal, long messages wrapped to its width);
    /// wide adds the rule that decided (argocd-cm key or glob, built-in script) and the rules it
    /// shadows, and keeps messages whole.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<TableOutput>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Files or directories to check (YAML or JSON, - for stdin). Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub files: Vec<PathBuf>,
    /// Read the objects from the cluster (also with -f: both are checked together).
    #[arg(long)]
    pub cluster: bool,
    /// With --cluster: check every context of the kubeconfig, eight at a time, into one table with a
    /// CONTEXT column (as --context a,b does for the contexts named); the files, if any, are
    /// checked with each. One exit code for the run: the worst of the contexts'.
    #[arg(long, requires = "cluster", conflicts_with = "context")]
    pub all_contexts: bool,
    /// The namespace of Argo CD (argocd-cm, argocd-cmd-params-cm, the application controller).
    #[arg(long, value_name = "NAMESPACE", default_value = "argocd")]
    pub argocd_namespace: String,
    /// The Pacto operator's --stabilization-window, for the Flux timeout floor.
    #[arg(long, value_name = "DURATION", default_value = "2m")]
    pub stabilization_window: String,
    /// The deadline of the whole command against a cluster (connecting, discovery, every page
    /// of every list, the gates), e.g. 30s, 5m; 0: none. Past it the command ends with an error
    /// naming the request it was waiting on. --request-timeout bounds each request within it.
    #[arg(long, value_name = "DURATION", default_value = "1m")]
    pub timeout: String,
    /// Output format: a table grouped by object by default; wide adds the EVIDENCE column.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<TableOutput>,
    #[command(flatten)]
    pub cluster_args: ClusterArgs,
}

#[derive(Debug, Args)]
pub struct ReconcileArgs {
    /// Run once and exit (the only mode: a CronJob runs it on a schedule).
    #[arg(long, required = true)]
    pub once: bool,
    /// Print the planned patches (YAML) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Reconcile the Stages of every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only the Stages with these labels (e.g. team=payments).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Output format of the run report: a table by default.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<Output>,
    /// The deadline of the whole run (connecting, reading, writing), e.g. 90s, 3m; 0: none. Past
    /// it nothing more is written: writes in flight are cancelled, the report lists every Stage
    /// left unwritten, and the run exits 1 (2 when it passed before the Stages were read). Keep it
    /// below the Job's activeDeadlineSeconds, so that the report is printed.
    #[arg(long, value_name = "DURATION", default_value = "3m")]
    pub timeout: String,
    /// How many Stage writes are in flight at once (at least 1). Each waits on the API server
    /// (and etcd) rather than on this process, so a handful at once shortens a run without
    /// loading the server more than a controller with as many workers would.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrent: u16,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Debug, Args)]
pub struct WaitArgs {
    /// pacto/NAME, stage/NAME or operation/NAME; or pactos, stages or operations with -l.
    #[arg(value_name = "KIND[/NAME]", add = ArgValueCandidates::new(crate::candidates::targets))]
    pub target: String,
    /// What to wait for: gate=WORD, verdict=STATUS, condition=TYPE[=STATUS],
    /// jsonpath={PATH}[=VALUE] or delete.
    #[arg(long = "for", value_name = "CONDITION", required = true)]
    pub condition: String,
    /// Wait for every object with these labels (e.g. team=payments).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// How long to wait, from the start: connecting, discovery, the gates, the list and every
    /// watch event (e.g. 30s, 5m; 0: check once). After it, the reports of the objects not
    /// there read again within 10s (--request-timeout sets another).
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub timeout: String,
    /// The Pacto operator's --stabilization-window, for the timing in the explanation.
    #[arg(long, value_name = "DURATION", default_value = "2m")]
    pub stabilization_window: String,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub gates: GateArgs,
}

#[derive(Debug, Args)]
pub struct SnippetArgs {
    /// argocd (an argocd-cm merge patch) or flux (healthCheckExprs entries).
    #[arg(value_enum)]
    pub tool: SnippetTool,
    /// Only the gate for this kind (default: both).
    #[arg(long = "for", value_enum, value_name = "KIND")]
    pub target: Option<SnippetTarget>,
    /// Make contract warnings block (Argo CD Degraded, Flux failed) instead of pass.
    #[arg(long)]
    pub warning_blocks: bool,
    /// flux: print a whole Kustomization of this name with the entries (what doctor -f and
    /// health --kustomization read) instead of the entries alone.
    #[arg(long, value_name = "NAME")]
    pub kustomization: Option<String>,
    /// With --kustomization: its namespace.
    #[arg(
        long,
        value_name = "NS",
        default_value = "flux-system",
        requires = "kustomization"
    )]
    pub namespace: String,
    /// With --kustomization: its sourceRef (GitRepository, OCIRepository or Bucket).
    #[arg(
        long,
        value_name = "KIND/NAME",
        default_value = "GitRepository/flux-system",
        requires = "kustomization"
    )]
    pub source: String,
    /// With --kustomization: its path in the source.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "./",
        requires = "kustomization"
    )]
    pub path: String,
}

/// Output formats of the commands whose default is a table (`doctor`, `health`): `wide` keeps
/// every text whole and adds the columns of evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableOutput {
    Wide,
    Json,
    Yaml,
}

/// What `snippet` prints for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SnippetTool {
    Argocd,
    Flux,
}

/// Which recommended gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SnippetTarget {
    Pacto,
    Codertemplatetest,
}

/// How to reach the cluster: the flags kubectl users expect (kubectl passes none to plugins).
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Path to the kubeconfig file (default: KUBECONFIG, several files merged, else
    /// ~/.kube/config, else the in-cluster service account).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (`get` also reads several at once: a,b).
    #[arg(long, value_name = "NAME", add = ArgValueCandidates::new(crate::candidates::contexts))]
    pub context: Option<String>,
    /// The namespace (default: the context's namespace, else "default").
    #[arg(short = 'n', long, value_name = "NAMESPACE", add = ArgValueCandidates::new(crate::candidates::namespaces))]
    pub namespace: Option<String>,
    /// How long to wait for each answer of the API server (e.g. 1s, 2m, 3h; 0 or a bare number
    /// of seconds as in kubectl). Default: no limit.
    #[arg(long, value_name = "DURATION", default_value = "0")]
    pub request_timeout: String,
    /// Read lists in pages of this many objects, as kubectl does (0: one request per list).
    #[arg(long, value_name = "N", default_value_t = 500)]
    pub chunk_size: u32,
    /// The address of the API server (overrides the kubeconfig's; works without a kubeconfig).
    #[arg(short = 's', long, value_name = "URL")]
    pub server: Option<String>,
    /// A bearer token for the API server (replaces the kubeconfig user's credentials).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// A PEM file of the certificate authorities that sign the server's certificate.
    #[arg(long, value_name = "FILE")]
    pub certificate_authority: Option<PathBuf>,
    /// Do not check the server's certificate (insecure).
    #[arg(long)]
    pub insecure_skip_tls_verify: bool,
    /// The user to impersonate for the requests.
    #[arg(long = "as", value_name = "USER")]
    pub impersonate: Option<String>,
    /// A group to impersonate (repeatable; needs --as).
    #[arg(long = "as-group", value_name = "GROUP")]
    pub impersonate_groups: Vec<String>,
    /// The most bytes read from one answer of the API server (e.g. 256Mi, 1Gi), and from the
    /// answers read at once together. Once parsed, what the command holds of the answers (its
    /// lists, and the objects a watch reported) may take 4 times this in memory, counted as it
    /// sits there (Kubernetes objects take 3 to 10 times their bytes; an answer of tiny values
    /// such as [0,0,...] about 40 times). Past either bound the read is refused with an error.
    #[arg(long, value_name = "SIZE", default_value = "256Mi")]
    pub max_response_bytes: String,
    /// The most objects one list may bring, all its pages together; past it (or past the
    /// pages that many objects fill in pages of --chunk-size, and one more) the list is refused
    /// with an error, and a watch ends once it reported more objects alive at once.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub max_list_items: u64,
}

/// Which gates judge the Pactos.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// The namespace of Argo CD's argocd-cm ConfigMap.
    #[arg(long, value_name = "NAMESPACE", default_value = "argocd")]
    pub argocd_namespace: String,
    /// Judge by this argocd-cm file instead of the cluster's.
    #[arg(long, value_name = "FILE")]
    pub argocd_cm: Option<PathBuf>,
    /// A directory laid out like argo-cd's resource_customizations/ (<group>/<Kind>/health.lua):
    /// Argo CD's built-in scripts, consulted after argocd-cm as Argo CD consults them.
    #[arg(long, value_name = "DIR")]
    pub customizations_dir: Option<PathBuf>,
    /// Judge by this Flux Kustomization file instead of the cluster's Kustomizations (it is taken
    /// to apply every object given).
    #[arg(long, value_name = "FILE")]
    pub kustomization: Option<PathBuf>,
    /// Where the recommended gate is used: make Warning block (Argo CD Degraded, Flux failed)
    /// instead of pass.
    #[arg(long)]
    pub warning_blocks: bool,
}

#[derive(Debug, Args)]
pub struct GetArgs {
    /// What to list: pactos, stages or operations (also singular, group-qualified, or TYPE/NAME).
    #[arg(value_name = "RESOURCE", default_value = "pactos", add = ArgValueCandidates::new(crate::candidates::resources))]
    pub resource: String,
    /// One object by name.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// List across all namespaces (adds a NAMESPACE column).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector (e.g. team=shop,tier!=batch).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Output format: wide adds the wide columns of the kind; name prints TYPE/NAME
    /// (pacto.pacto.trianalab.io/NAME); json and yaml print a kubectl List of the objects (the
    /// object itself when one is named); jsonpath=TEMPLATE and custom-columns=HEADER:PATH,...
    /// as in kubectl.
    #[arg(short = 'o', long, value_name = "FORMAT", add = ArgValueCandidates::new(crate::candidates::output_formats))]
    pub output: Option<String>,
    /// Print tables and custom columns without their header line.
    #[arg(long)]
    pub no_headers: bool,
    /// Add a LABELS column to the table (key=value,...).
    #[arg(long)]
    pub show_labels: bool,
    /// If true, keep the managedFields when printing objects in JSON or YAML format (kubectl's
    /// flag: -o json and -o yaml leave metadata.managedFields out by default).
    #[arg(long)]
    pub show_managed_fields: bool,
    /// After listing, print a row for each change as it happens, until --request-timeout
    /// (kubectl's bound on a watch) or until interrupted. --timeout bounds the listing; after
    /// it, a server that answers nothing at all (no list, no watch, no event) for --timeout
    /// ends the watch with an error.
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// The deadline of the whole command against a cluster (connecting, discovery, every page
    /// of every list, the gates), e.g. 30s, 5m; 0: none. Past it the command ends with an error
    /// naming the request it was waiting on. --request-timeout bounds each request within it.
    #[arg(long, value_name = "DURATION", default_value = "1m")]
    pub timeout: String,
    /// Order the objects by a field (a JSONPath such as .metadata.name or
    /// .status.lastReconciledAt; objects without it come first).
    #[arg(long, value_name = "PATH")]
    pub sort_by: Option<String>,
    /// Read the objects from files (YAML or JSON, directories, - for stdin) instead of the
    /// cluster; for Stages, the files also hold what they depend on.
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub files: Vec<PathBuf>,
    /// Read every context of the kubeconfig, eight at a time, into one table with a CONTEXT column
    /// (as --context a,b does for the contexts named). One exit code for the run: 1 when any
    /// context could not be read (the others are still printed).
    #[arg(long, conflicts_with_all = ["context", "files", "watch", "name"])]
    pub all_contexts: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub gates: GateArgs,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// pacto/NAME, codertemplatetest/NAME, stage/NAME or operation/NAME (with -f: pick that
    /// object of the files); also application/NAME (its health from its resources),
    /// kustomization/NAME (its wait) or helmrelease/NAME (the wait of its latest Helm release,
    /// read from its storage Secret), with the live objects it names from the cluster or the
    /// files.
    #[arg(
        value_name = "KIND/NAME",
        required_unless_present = "files",
        add = ArgValueCandidates::new(crate::candidates::explain_targets)
    )]
    pub target: Option<String>,
    /// Explain the objects of files instead (YAML or JSON, directories, - for stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub files: Vec<PathBuf>,
    /// The Pacto operator's --stabilization-window, for the timing of absences.
    #[arg(long, value_name = "DURATION", default_value = "2m")]
    pub stabilization_window: String,
    /// The deadline of the whole command against a cluster (connecting, discovery, every page
    /// of every list, the gates), e.g. 30s, 5m; 0: none. Past it the command ends with an error
    /// naming the request it was waiting on. --request-timeout bounds each request within it.
    #[arg(long, value_name = "DURATION", default_value = "1m")]
    pub timeout: String,
    /// Output format: the report by default; json and yaml print it as data (a kubectl List
    /// when several objects are explained).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<Output>,
    /// For application/NAME, kustomization/NAME and helmrelease/NAME: the objects below it as a
    /// tree (`kubectl pacto tree`).
    #[arg(long)]
    pub tree: bool,
    /// Explain KIND/NAME in every context of the kubeconfig, eight at a time: a report per
    /// context, each headed by its context (as --context a,b does for the contexts named).
    /// Exit 1 when any context could not be read (the others are still printed).
    #[arg(long, conflicts_with_all = ["context", "files", "tree"])]
    pub all_contexts: bool,
    /// With --tree: how many levels below the object are shown (1: its own resources only;
    /// 1000 by default).
    #[arg(long, value_name = "N", requires = "tree",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub depth: Option<u32>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub gates: GateArgs,
}

/// `kubectl pacto tree`.
#[derive(Debug, Args)]
pub struct TreeArgs {
    /// application/NAME, kustomization/NAME or helmrelease/NAME.
    #[arg(value_name = "KIND/NAME", add = ArgValueCandidates::new(crate::candidates::gate_kinds))]
    pub target: String,
    /// Read the Application or Kustomization and the live objects from files instead (YAML or
    /// JSON, directories, - for stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub files: Vec<PathBuf>,
    /// How many levels below the object are shown (1: its own resources only; 1000 by default:
    /// a tree's text grows with the square of its depth).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub depth: Option<u32>,
    /// The deadline of the whole command against a cluster, e.g. 30s, 5m; 0: none.
    #[arg(long, value_name = "DURATION", default_value = "1m")]
    pub timeout: String,
    /// Output format: the tree by default; json and yaml print it as data.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<Output>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub gates: GateArgs,
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
        /// Output format for CI: junit (JUnit XML, one testsuite per engine) or json; the
        /// report by default. The exit code is the same in every format.
        #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
        output: Option<TestOutput>,
    },
}

/// Output formats of `health test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TestOutput {
    Junit,
    Json,
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

#[cfg(test)]
mod tests {
    use super::other_kinds_hint;
    use serde_json::json;

    /// `get` of files without Pactos names the delivery objects they hold and the listings
    /// that show them; files with a Pacto, or with neither kind, get no hint.
    #[test]
    fn files_without_pactos_point_at_their_listing() {
        let stage = json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage"});
        let op = json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Operation"});
        let pacto = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto"});
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        assert_eq!(
            other_kinds_hint(&[stage.clone(), stage.clone(), op.clone()]).as_deref(),
            Some("no Pactos in the files given; they hold 2 Stages and 1 Operation: kubectl pacto get stages -f ..., kubectl pacto get operations -f ...")
        );
        assert_eq!(
            other_kinds_hint(std::slice::from_ref(&op)).as_deref(),
            Some("no Pactos in the files given; they hold 1 Operation: kubectl pacto get operations -f ...")
        );
        assert_eq!(other_kinds_hint(&[stage, pacto]), None);
        assert_eq!(other_kinds_hint(&[cm]), None);
    }
}
