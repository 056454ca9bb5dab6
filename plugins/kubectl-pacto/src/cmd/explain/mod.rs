//! `kubectl pacto explain`: one report per object, from the cluster (`KIND/NAME`) or from files.
//! Pactos and other gated kinds are judged with the gates (the cluster's, files given, or the
//! recommended gate); Stages and Operations against what they depend on. The reports print as
//! text, or as data with `-o json|yaml` (a kubectl List when there are several).

mod helm_release;
mod one_level_up;
pub(crate) mod tree;

use crate::io::connect::{block_on, block_on_within, connect, namespace};
use crate::io::delivery::{self, Objects};
use crate::io::gates::load_gates;
use crate::io::output::{json_for, note, text_for, write_stdout};
use crate::io::select::in_namespace;
use anyhow::{bail, Context, Result};
use kubectl_pacto::cli::{ExplainArgs, Output};
use kubectl_pacto::options::{duration_flag, ClusterOptions, Global};
use kubectl_pacto::resource::{explain_target, Explained, Target};
use pacto_gates::delivery::explain::{explained, stage_report};
use pacto_gates::delivery::StageView;
use pacto_gates::kinds::{OPERATION, STAGE};
use pacto_gates::object;
use pacto_gates::pacto::explain::{Options as ExplainOptions, Report};
use pacto_gates::pacto::gate;
use pacto_gates::render;
use serde_json::Value;
use std::process::ExitCode;

/// The checked flags of one `explain`.
struct Options<'a> {
    args: &'a ExplainArgs,
    global: &'a Global,
    cluster: ClusterOptions,
    /// The operator's stabilization window, for the timing of absences.
    report: ExplainOptions,
    target: Option<Target>,
}

impl<'a> Options<'a> {
    /// The cluster flags, `--stabilization-window` and `KIND/NAME`, checked in that order.
    fn complete(args: &'a ExplainArgs, global: &'a Global) -> Result<Options<'a>> {
        let mut cluster = ClusterOptions::new(&args.cluster)?;
        kubectl_pacto::options::argocd_namespace(&args.gates.argocd_namespace)?;
        cluster.connect.deadline =
            kubectl_pacto::options::deadline(&args.timeout, "30s or 5m (0: none)")?;
        let window = duration_flag(
            "--stabilization-window",
            &args.stabilization_window,
            "2m or 90 (seconds)",
        )?;
        let report = ExplainOptions {
            stabilization_window_seconds: window.as_secs() as i64,
        };
        let target = args.target.as_deref().map(explain_target).transpose()?;
        Ok(Options {
            args,
            global,
            cluster,
            report,
            target,
        })
    }
}

/// `kubectl pacto explain`.
pub(crate) fn run(args: &ExplainArgs, global: &Global) -> Result<ExitCode> {
    if args.tree {
        return tree::from_explain(args, global);
    }
    let o = Options::complete(args, global)?;
    let mut failed: Vec<(String, anyhow::Error)> = Vec::new();
    let reports = match (&o.target, args.files.is_empty()) {
        (_, false) => from_files(&o)?,
        (None, true) => bail!("give KIND/NAME, or -f FILE"),
        (Some(t), true) => match crate::io::contexts::named(&args.cluster, args.all_contexts)? {
            None => vec![from_cluster(&o, &o.cluster, t)?],
            // Several clusters: a report per context, each read at once; a context that could
            // not be read is an error line after the others, and the run exits 1.
            Some(contexts) => {
                let mut reports = Vec::new();
                for (ctx, r) in
                    crate::io::contexts::each(&contexts, &o.cluster, |c| from_cluster(&o, c, t))
                {
                    match r {
                        Ok(report) => reports.push(report.in_context(&ctx)),
                        Err(e) => failed.push((ctx, e)),
                    }
                }
                reports
            }
        },
    };
    for r in &reports {
        for n in &r.notes {
            note(n);
        }
    }
    let out = match args.output {
        None => {
            let blocks: Vec<String> = reports
                .iter()
                .map(|r| render::explain_text(&r.rows, global.colour))
                .collect();
            blocks.join("\n")
        }
        Some(format) => {
            let mut data: Vec<Value> = reports.into_iter().map(|r| r.data).collect();
            let doc = if data.len() == 1 {
                data.remove(0)
            } else {
                render::kube_list(data)
            };
            match format {
                Output::Json => {
                    json_for(serde_json::to_string_pretty(&doc)? + "\n", global.terminal)
                }
                Output::Yaml => text_for(
                    serde_saphyr::to_string(&doc).context("rendering YAML")?,
                    global.terminal,
                ),
            }
        }
    };
    write_stdout(&out)?;
    for (ctx, e) in &failed {
        crate::io::output::error_line(&format!("context {ctx:?}: {e:#}"));
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The report of the one object `KIND/NAME` names in the cluster `c`.
fn from_cluster(o: &Options<'_>, c: &ClusterOptions, t: &Target) -> Result<Report> {
    match t.kind {
        Explained::Stage => delivery::stage_report(c, &t.name, &o.args.gates.argocd_namespace),
        Explained::Operation => delivery::operation_report(c, &t.name),
        Explained::Application | Explained::Kustomization => {
            one_level_up::from_cluster(c, t, &o.args.gates, o.global.now)
        }
        Explained::HelmRelease => helm_release::from_cluster(c, t, o.global.now),
        Explained::Gated(group, version, kind) => {
            let (obj, (argo, flux)) = block_on_within(c.connect.deadline, async {
                let cluster = connect(c).await?;
                let kind = cluster.discover(group, version, kind).await?;
                let ns = namespace(c, &cluster);
                let obj = cluster.get(&kind, &ns, &t.name).await?;
                let gates = load_gates(&o.args.gates, Some(&cluster), o.global.now).await?;
                Ok::<_, anyhow::Error>((obj, gates))
            })?;
            let d = gate::decide(&argo, &flux, &obj);
            Ok(Report::gated(&obj, &d, o.global.now, o.report))
        }
    }
}

/// The reports of the objects of `-f` files: the one KIND/NAME names, or every object (the
/// kinds Stages and Operations depend on only when the files hold neither). What a Stage or an
/// Operation depends on is taken from all the files, whatever `-n` says.
fn from_files(o: &Options<'_>) -> Result<Vec<Report>> {
    let all: Vec<Value> = object::read_values(&o.args.files)?;
    let namespace = o.cluster.namespace.as_deref();
    let target = o.target.as_ref();
    if let Some(t) = target.filter(|t| t.kind == Explained::HelmRelease) {
        return Ok(vec![helm_release::report(
            &all,
            t,
            namespace,
            o.global.now,
        )?]);
    }
    if let Some(t) =
        target.filter(|t| matches!(t.kind, Explained::Application | Explained::Kustomization))
    {
        return Ok(vec![one_level_up::report(
            &all,
            t,
            namespace,
            &o.args.gates,
            o.global.now,
        )?]);
    }
    let chosen: Vec<Value> = all
        .iter()
        .filter(|x| in_namespace(x, namespace))
        .filter(|x| target.is_none_or(|t| t.is(x)))
        .cloned()
        .collect();
    let chosen = match target {
        Some(_) => chosen,
        None => explained(chosen),
    };
    if chosen.is_empty() {
        match o.args.target.as_deref() {
            Some(t) => bail!("{t} is not in the files given"),
            None => bail!("no objects in the files given"),
        }
    }
    let is_delivery = |x: &Value| STAGE.is(x) || OPERATION.is(x);
    let gates = if chosen.iter().all(is_delivery) {
        None
    } else {
        Some(block_on(load_gates(&o.args.gates, None, o.global.now))?)
    };
    let objects = Objects::from_files(all);
    // Every Stage is judged against one world, read once.
    let world = chosen.iter().any(|x| STAGE.is(x)).then(|| objects.world());
    Ok(chosen
        .iter()
        .map(|x| {
            if let (true, Some(world)) = (STAGE.is(x), &world) {
                stage_report(&StageView::new(x), world)
            } else if OPERATION.is(x) {
                objects.operation_report(x)
            } else {
                let (argo, flux) = gates.as_ref().expect("gates are loaded for gated objects");
                Report::gated(x, &gate::decide(argo, flux, x), o.global.now, o.report)
            }
        })
        .collect())
}
