//! `kubectl pacto explain`: one report per object, from the cluster (`KIND/NAME`) or from files.
//! Pactos and other gated kinds are judged with the gates (the cluster's, files given, or the
//! recommended gate); Stages and Operations by [`crate::delivery`]. The reports print as text, or
//! as data with `-o json|yaml` (a kubectl List when there are several).

use crate::delivery::{self, Objects};
use crate::live::{block_on, connect, in_namespace, load_gates};
use crate::write_stdout;
use anyhow::{Context, Result};
use kubectl_pacto::cli::{ExplainArgs, Output};
use kubectl_pacto::options::{duration_flag, ClusterOptions, Global};
use kubectl_pacto::resource::{explain_target, Explained, Listed, Target};
use pacto_gates::object;
use pacto_gates::pacto::explain::{Options, Report};
use pacto_gates::pacto::gate::{self, ArgoGate, FluxGate};
use pacto_gates::render;
use serde_json::Value;
use std::process::ExitCode;

/// The report of a gated object (a Pacto, a CoderTemplateTest, another kind).
pub(crate) fn gated_report(
    o: &Value,
    argo: &ArgoGate,
    flux: &FluxGate,
    global: &Global,
    opts: Options,
) -> Report {
    Report::gated(o, &gate::decide(argo, flux, o), global.now, opts)
}

/// `kubectl pacto explain`.
pub fn explain(args: &ExplainArgs, global: &Global) -> Result<ExitCode> {
    let now = global.now;
    let cluster_opts = ClusterOptions::new(&args.cluster)?;
    let window = duration_flag(
        "--stabilization-window",
        &args.stabilization_window,
        "2m or 90 (seconds)",
    )?;
    let opts = Options {
        stabilization_window_seconds: window.as_secs() as i64,
    };
    let target = args.target.as_deref().map(explain_target).transpose()?;
    let reports = match (&target, args.files.is_empty()) {
        (_, false) => from_files(args, target.as_ref(), &cluster_opts, global, opts)?,
        (None, true) => unreachable!("clap requires KIND/NAME without -f"),
        (Some(t), true) => match t.kind {
            Explained::Stage => vec![delivery::explain_stage(&cluster_opts, &t.name)?],
            Explained::Operation => vec![delivery::explain_operation(&cluster_opts, &t.name)?],
            Explained::Gated(group, version, kind) => {
                let (obj, (argo, flux)) = block_on(async {
                    let cluster = connect(&cluster_opts).await?;
                    let kind = cluster.discover(group, version, kind).await?;
                    let ns = cluster_opts
                        .namespace
                        .clone()
                        .unwrap_or_else(|| cluster.default_namespace.clone());
                    let obj = cluster.get(&kind, &ns, &t.name).await?;
                    let gates = load_gates(&args.gates, Some(&cluster), now).await?;
                    Ok::<_, anyhow::Error>((obj, gates))
                })?;
                vec![gated_report(&obj, &argo, &flux, global, opts)]
            }
        },
    };
    for r in &reports {
        for n in &r.notes {
            eprintln!("note: {}", render::one_line(n));
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
                Output::Json => serde_json::to_string_pretty(&doc)? + "\n",
                Output::Yaml => serde_saphyr::to_string(&doc).context("rendering YAML")?,
            }
        }
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The reports of the objects of `-f` files: the one KIND/NAME names, or every object (the
/// kinds Stages and Operations depend on only when the files hold neither). What a Stage or an
/// Operation depends on is taken from all the files, whatever `-n` says.
fn from_files(
    args: &ExplainArgs,
    target: Option<&Target>,
    cluster_opts: &ClusterOptions,
    global: &Global,
    opts: Options,
) -> Result<Vec<Report>> {
    let all: Vec<Value> = object::read_values(&args.files)?;
    let namespace = cluster_opts.namespace.as_deref();
    let chosen: Vec<Value> = all
        .iter()
        .filter(|o| in_namespace(o, namespace))
        .filter(|o| target.is_none_or(|t| t.is(o)))
        .cloned()
        .collect();
    let chosen = match target {
        Some(_) => chosen,
        None => delivery::explained_objects(chosen),
    };
    delivery::require_some(&chosen, args.target.as_deref())?;
    let is_delivery = |o: &Value| Listed::Stages.is(o) || Listed::Operations.is(o);
    let gates = if chosen.iter().all(is_delivery) {
        None
    } else {
        Some(block_on(load_gates(&args.gates, None, global.now))?)
    };
    let objects = Objects::from_files(&all);
    Ok(chosen
        .iter()
        .map(|o| {
            if Listed::Stages.is(o) {
                delivery::stage_report(&objects, o)
            } else if Listed::Operations.is(o) {
                delivery::operation_report(&objects, o)
            } else {
                let (argo, flux) = gates.as_ref().expect("gates are loaded for gated objects");
                gated_report(o, argo, flux, global, opts)
            }
        })
        .collect())
}
