//! `kubectl pacto doctor`: read the configuration (files, the cluster, or both), hand it to the
//! library's checks, print the report. Exit codes: 0 clean, 1 findings, 2 could not run.

use crate::io::connect::{block_on_within, connect};
use crate::io::output::{exit_on_error, json_for, note, text_for, write_stdout};
use anyhow::{bail, Context, Result};
use futures_util::future::join_all;
use kubectl_pacto::cli::{DoctorArgs, TableOutput};
use kubectl_pacto::options::{duration_flag, ClusterOptions, Global};
use pacto_gates::cluster::{Cluster, Scope, ServedKind};
use pacto_gates::doctor::cluster::ReadOutcome;
use pacto_gates::doctor::{self, ClusterFacts, Input};
use pacto_gates::kinds::{POD, STAGE};
use pacto_gates::{object, render};
use serde_json::Value;
use std::process::ExitCode;

/// What a cluster holds for doctor: the objects, the facts, kinds not checked (with why), and
/// what each read came to ([`doctor::cluster::could_not_run`] decides from it).
struct ClusterRead {
    objects: Vec<Value>,
    facts: ClusterFacts,
    not_checked: Vec<(String, String)>,
    notes: Vec<String>,
    outcomes: Vec<ReadOutcome>,
}

/// Reads what doctor checks, every read at once (the ConfigMaps, the discovery of every group
/// version, then every kind's list, then the Stage schema), so that the whole read takes about
/// as long as its slowest request, all of them within the command's --timeout.
async fn read_cluster(cluster: &Cluster, argocd_ns: &str) -> ClusterRead {
    let mut read = ClusterRead {
        objects: Vec::new(),
        facts: ClusterFacts::default(),
        not_checked: Vec::new(),
        notes: Vec::new(),
        outcomes: Vec::new(),
    };
    let gvks = doctor::cluster::KINDS.map(|k| k.gvk());
    let cm_kind = ServedKind::configmap();
    let (mut configmaps, mut kinds) = tokio::join!(
        join_all(
            doctor::cluster::ARGOCD_CONFIGMAPS
                .iter()
                .map(|name| cluster.get(&cm_kind, argocd_ns, name))
        ),
        cluster.discover_each(&gvks),
    );
    // A read refused only because the others were being read at the same time is made again
    // alone, once they are done (here and for the lists below): which kinds are checked must
    // not depend on timing.
    for (name, got) in doctor::cluster::ARGOCD_CONFIGMAPS
        .iter()
        .zip(&mut configmaps)
    {
        if got.as_ref().is_err_and(|e| e.is_crowded()) {
            *got = cluster.get(&cm_kind, argocd_ns, name).await;
        }
    }
    for ((group, version, kind), found) in gvks.iter().zip(&mut kinds) {
        if found.as_ref().is_err_and(|e| e.is_crowded()) {
            *found = cluster.discover(group, version, kind).await;
        }
    }
    let mut argocd_cm = None;
    for (name, got) in doctor::cluster::ARGOCD_CONFIGMAPS.iter().zip(configmaps) {
        match got {
            Ok(cm) => {
                read.outcomes.push(ReadOutcome::Read);
                if *name == "argocd-cm" {
                    argocd_cm = Some(cm.clone());
                }
                read.objects.push(cm);
            }
            Err(pacto_gates::cluster::ClusterError::NotFound { .. }) => {
                read.outcomes.push(ReadOutcome::Absent);
                if *name == "argocd-cm" {
                    read.notes.push(format!("no ConfigMap {argocd_ns}/argocd-cm: Argo CD is not installed there (--argocd-namespace)"));
                }
            }
            Err(e) => {
                read.outcomes.push(outcome_of(&e));
                read.not_checked
                    .push((format!("ConfigMap {argocd_ns}/{name}"), e.to_string()))
            }
        }
    }
    let stage_served = doctor::cluster::KINDS
        .iter()
        .zip(&kinds)
        .any(|(k, found)| *k == STAGE && found.is_ok());
    let list = |wanted: &'static pacto_gates::kinds::ApiKind, k: ServedKind| async move {
        if *wanted == POD {
            cluster
                .list(
                    &k,
                    Scope::Namespace(argocd_ns),
                    Some(doctor::cluster::CONTROLLER_POD_SELECTOR),
                )
                .await
                .map(|l| l.items)
        } else {
            cluster.list(&k, Scope::All, None).await.map(|l| l.items)
        }
    };
    let lists = join_all(doctor::cluster::KINDS.iter().zip(&kinds).map(
        |(wanted, found)| async move {
            match found {
                Ok(k) => list(wanted, k.clone()).await,
                Err(e) => Err(e.clone()),
            }
        },
    ));
    let schema = async {
        if stage_served {
            // How the served Stage schema merges status.conditions (S05).
            Some(cluster.openapi_v3(STAGE.group, STAGE.version).await)
        } else {
            None
        }
    };
    let (mut lists, mut schema) = tokio::join!(lists, schema);
    if schema
        .as_ref()
        .is_some_and(|s| s.as_ref().is_err_and(|e| e.is_crowded()))
    {
        schema = Some(cluster.openapi_v3(STAGE.group, STAGE.version).await);
    }
    for ((wanted, found), listed) in doctor::cluster::KINDS.iter().zip(&kinds).zip(&mut lists) {
        if let (Ok(k), Err(e)) = (found, &listed) {
            if e.is_crowded() {
                *listed = list(wanted, k.clone()).await;
            }
        }
    }
    let mut pods = Vec::new();
    for (wanted, listed) in doctor::cluster::KINDS.iter().zip(lists) {
        let what = wanted.describe();
        match listed {
            Ok(items) => {
                read.outcomes.push(ReadOutcome::Read);
                if *wanted == POD {
                    pods = items;
                } else {
                    read.objects.extend(items);
                }
            }
            Err(pacto_gates::cluster::ClusterError::NotInstalled { .. }) => {
                read.outcomes.push(ReadOutcome::Absent);
                read.notes
                    .push(format!("{what}: not installed in this cluster"));
            }
            Err(e) => {
                read.outcomes.push(outcome_of(&e));
                read.not_checked.push((what, e.to_string()))
            }
        }
    }
    read.facts = doctor::cluster_facts(argocd_cm.as_ref(), &pods);
    match schema {
        Some(Ok(doc)) => read.facts.stage_schema = Some(doc),
        Some(Err(e)) => {
            read.outcomes.push(outcome_of(&e));
            read.not_checked.push((
                format!("the Stage schema ({}/{})", STAGE.group, STAGE.version),
                e.to_string(),
            ))
        }
        None => {}
    }
    read
}

/// What a read that erred came to: refused by the credentials, or failed.
fn outcome_of(e: &pacto_gates::cluster::ClusterError) -> ReadOutcome {
    if e.is_refusal() {
        ReadOutcome::Unreadable
    } else {
        ReadOutcome::Failed
    }
}

/// `kubectl pacto doctor`: the report, and the exit code (2 when it could not run).
pub(crate) fn run(args: &DoctorArgs, global: &Global) -> ExitCode {
    exit_on_error(check(args, global), 2)
}

/// What is checked and where from: files, the cluster, or both; never one namespace (the
/// findings name each object's namespace).
fn validate(args: &DoctorArgs) -> Result<()> {
    if args.files.is_empty() && !args.cluster {
        bail!("nothing to check: give -f FILE|DIR, or --cluster");
    }
    if args.cluster_args.namespace.is_some() {
        bail!("doctor reads every namespace: -n is not supported (the findings name each object's namespace)");
    }
    Ok(())
}

/// One check: the report, what each cluster read came to, and the notes of the reads.
struct Checked {
    report: doctor::Report,
    outcomes: Vec<ReadOutcome>,
    notes: Vec<String>,
}

fn check(args: &DoctorArgs, global: &Global) -> Result<ExitCode> {
    validate(args)?;
    let window = duration_flag(
        "--stabilization-window",
        &args.stabilization_window,
        "2m or 90 (seconds)",
    )?;
    let files = object::read_values(&args.files)?;
    let input = Input {
        stabilization_window: window.as_secs() as i64,
        now_unix: global.now_unix(),
        live: args.cluster,
        max_upstream_depth: Some(crate::io::delivery::max_upstream_depth()),
        ..Input::default()
    };
    if !args.cluster {
        let checked = one(args, None, files, input)?;
        return print(args, global, &checked, None);
    }
    let mut opts = ClusterOptions::new(&args.cluster_args)?;
    kubectl_pacto::options::argocd_namespace(&args.argocd_namespace)?;
    opts.connect.deadline = kubectl_pacto::options::deadline(&args.timeout, "30s or 5m (0: none)")?;
    let Some(contexts) = crate::io::contexts::named(&args.cluster_args, args.all_contexts)? else {
        let checked = one(args, Some(&opts), files, input)?;
        return print(args, global, &checked, None);
    };
    // Several clusters: each checked at once with the files, the findings in one table under
    // their context; a context that could not be checked is an error line after it, and the
    // run exits with the worst code.
    let each = crate::io::contexts::each(&contexts, &opts, |c| {
        one(args, Some(c), files.clone(), input.clone())
    });
    let mut all = Checked {
        report: doctor::Report::default(),
        outcomes: Vec::new(),
        notes: Vec::new(),
    };
    let mut cells: Vec<String> = Vec::new();
    let mut failed: Vec<(String, anyhow::Error)> = Vec::new();
    let mut code = 0u8;
    for (ctx, r) in each {
        match r {
            Ok(c) => {
                code = code.max(doctor::cluster::exit_code(
                    &c.outcomes,
                    c.report.exit_code(),
                ));
                cells.extend(std::iter::repeat_n(ctx.clone(), c.report.findings.len()));
                all.report.findings.extend(c.report.findings);
                all.notes.extend(
                    c.notes
                        .iter()
                        .chain(&c.report.notes)
                        .map(|n| format!("context {ctx:?}: {n}")),
                );
            }
            Err(e) => failed.push((ctx, e)),
        }
    }
    print(args, global, &all, Some(&cells))?;
    for (ctx, e) in &failed {
        crate::io::output::error_line(&format!("context {ctx:?}: {e:#}"));
        code = 2;
    }
    Ok(ExitCode::from(code))
}

/// Checks the files with what the cluster of `opts` holds (None: the files alone). Errors: bad
/// files, a cluster from which nothing could be read when no files are given.
fn one(
    args: &DoctorArgs,
    opts: Option<&ClusterOptions>,
    mut objects: Vec<Value>,
    mut input: Input,
) -> Result<Checked> {
    let mut notes = Vec::new();
    let mut outcomes = Vec::new();
    if let Some(opts) = opts {
        let read = block_on_within(opts.connect.deadline, async {
            let cluster = connect(opts).await?;
            Ok(read_cluster(&cluster, &args.argocd_namespace).await)
        })?;
        if doctor::cluster::could_not_run(&read.outcomes) && args.files.is_empty() {
            let why: Vec<String> = read
                .not_checked
                .iter()
                .map(|(k, e)| format!("{k}: {e}"))
                .collect();
            bail!(
                "nothing could be read from the cluster:\n{}",
                why.join("\n")
            );
        }
        objects.extend(read.objects);
        outcomes = read.outcomes;
        input.cluster = read.facts;
        input.unreadable = read.not_checked;
        notes = read.notes;
    }
    input.objects = objects;
    let report = doctor::run(&input);
    Ok(Checked {
        report,
        outcomes,
        notes,
    })
}

/// Prints the notes and the report (`contexts`: the context of each finding, for a CONTEXT
/// column), and gives the exit code of one check.
fn print(
    args: &DoctorArgs,
    global: &Global,
    c: &Checked,
    contexts: Option<&[String]>,
) -> Result<ExitCode> {
    let report = &c.report;
    if contexts.is_some() {
        for n in &c.notes {
            note(n);
        }
    } else {
        for n in c.notes.iter().chain(&report.notes) {
            note(n);
        }
    }
    let data = || {
        let mut v = render::doctor::doctor_json(report);
        if let (Some(cells), Some(list)) = (contexts, v["findings"].as_array_mut()) {
            for (f, ctx) in list.iter_mut().zip(cells) {
                f["context"] = Value::from(ctx.as_str());
            }
        }
        v
    };
    let out = match args.output {
        Some(TableOutput::Json) => json_for(
            serde_json::to_string_pretty(&data())? + "\n",
            global.terminal,
        ),
        Some(TableOutput::Yaml) => text_for(
            serde_saphyr::to_string(&data()).context("rendering YAML")?,
            global.terminal,
        ),
        None | Some(TableOutput::Wide) => {
            let wide = args.output == Some(TableOutput::Wide);
            let width = crate::io::output::terminal_width(global.terminal);
            let mut t = render::doctor::doctor_table(report, global.colour, wide, width, contexts);
            if !t.is_empty() {
                t.push('\n');
            }
            t.push_str(&render::doctor::doctor_summary(report));
            t
        }
    };
    write_stdout(&out)?;
    Ok(ExitCode::from(doctor::cluster::exit_code(
        &c.outcomes,
        report.exit_code(),
    )))
}

#[cfg(test)]
mod tests {
    use super::validate;
    use clap::Parser;
    use kubectl_pacto::cli::{Cli, Command, DoctorArgs};

    fn args(words: &[&str]) -> DoctorArgs {
        let cli = Cli::try_parse_from([&["kubectl-pacto", "doctor"], words].concat()).unwrap();
        let Command::Doctor(a) = cli.command else {
            unreachable!("parsed as doctor")
        };
        a
    }

    /// Something to check, from files or the cluster, and never one namespace.
    #[test]
    fn doctor_checks_files_or_the_cluster_across_namespaces() {
        assert!(validate(&args(&["-f", "x.yaml"])).is_ok());
        assert!(validate(&args(&["--cluster"])).is_ok());
        assert_eq!(
            validate(&args(&[])).unwrap_err().to_string(),
            "nothing to check: give -f FILE|DIR, or --cluster"
        );
        assert!(validate(&args(&["--cluster", "-n", "shop"]))
            .unwrap_err()
            .to_string()
            .starts_with("doctor reads every namespace"));
    }
}
