//! `kubectl pacto reconcile --once`: read the Stages and the kinds they depend on, plan with the
//! library (`reconcile::plan`), write each planned status, report (`render::reconcile`). Exit 0 all written or unchanged, 1
//! something left unwritten, 2 could not run.

use crate::io::connect::{block_on, connect, namespace, scope};
use crate::io::delivery::read_appliers;
use crate::io::output::{exit_on_error, note, write_stdout};
use anyhow::{anyhow, bail, Context, Result};
use kubectl_pacto::cli::{Output, ReconcileArgs};
use kubectl_pacto::options::{ClusterOptions, Global};
use pacto_gates::cluster::{is_conflict, Cluster, ClusterError, ServedKind, StatusPatch};
use pacto_gates::delivery::view::Snapshot;
use pacto_gates::delivery::{World, GROUP, VERSION};
use pacto_gates::reconcile::report::{self, Failure, StageResult};
use pacto_gates::reconcile::{self, conditions_list_type, Change, ListType, Write};
use pacto_gates::render;
use serde_json::Value;
use std::process::ExitCode;

/// `kubectl pacto reconcile --once`.
pub(crate) fn run(args: &ReconcileArgs, global: &Global) -> ExitCode {
    exit_on_error(reconcile_once(args, global), 2)
}

fn now_rfc3339(global: &Global) -> String {
    pacto_gates::k8s::time::format_rfc3339_utc(global.now_unix())
}

/// The Stages a run covers, every Stage an upstream reference needs, the appliers, the Stage
/// kind and how its conditions merge.
struct RunInputs {
    stages: Vec<Value>,
    snapshot: Snapshot,
    kind: ServedKind,
    list_type: ListType,
    notes: Vec<String>,
}

async fn read(cluster: &Cluster, args: &ReconcileArgs, namespace: &str) -> Result<RunInputs> {
    let scope = scope(args.all_namespaces, namespace);
    let kind = cluster
        .discover(GROUP, VERSION, "Stage")
        .await
        .context("cannot find the Stage kind")?;
    let stages = cluster
        .list(&kind, scope, args.selector.as_deref())
        .await
        .context("cannot list the Stages")?
        .items;
    let mut snapshot = Snapshot {
        stages: stages.clone(),
        ..Snapshot::default()
    };
    // Upstream Stages outside the listed scope: one GET each.
    let mut notes = Vec::new();
    let listed_here = |ns: &str, name: &str, all: &[Value]| {
        all.iter().any(|s| {
            s.pointer("/metadata/namespace").and_then(Value::as_str) == Some(ns)
                && s.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
        })
    };
    for s in &stages {
        let view = pacto_gates::delivery::StageView::new(s);
        if let Some(up) = view.upstream_stage {
            if !listed_here(&up.namespace, &up.name, &snapshot.stages) {
                match cluster.get(&kind, &up.namespace, &up.name).await {
                    Ok(o) => snapshot.stages.push(o),
                    Err(ClusterError::NotFound { .. }) => {}
                    Err(e) => notes.push(format!(
                        "upstream Stage {}/{} could not be read: {e}",
                        up.namespace, up.name
                    )),
                }
            }
        }
    }
    read_appliers(cluster, &mut snapshot).await;
    let list_type = match cluster.openapi_v3(GROUP, VERSION).await {
        Ok(doc) => conditions_list_type(&doc, GROUP, VERSION, "Stage"),
        Err(e) => {
            notes.push(format!("the Stage schema could not be read ({e}): conditions are written whole, guarded by resourceVersion"));
            ListType::Atomic
        }
    };
    Ok(RunInputs {
        stages,
        snapshot,
        kind,
        list_type,
        notes,
    })
}

/// Writes one change; on a conflict re-reads the Stage and plans it again
/// ([`report::CONFLICT_RETRIES`] times at most).
async fn write(
    cluster: &Cluster,
    read: &RunInputs,
    world: &World,
    change: Change,
    now: &str,
) -> StageResult {
    let mut change = change;
    let mut attempt = 0;
    loop {
        let Some(w) = &change.write else {
            return StageResult::done(&change);
        };
        let patch = match w {
            Write::Apply(body) => StatusPatch::Apply {
                body,
                manager: reconcile::FIELD_MANAGER,
            },
            Write::GuardedMerge(body) => StatusPatch::Merge {
                body,
                manager: reconcile::FIELD_MANAGER,
            },
        };
        match cluster
            .patch_status(&read.kind, &change.namespace, &change.name, patch)
            .await
        {
            Ok(_) => return StageResult::done(&change),
            Err(e) if is_conflict(&e) && attempt < report::CONFLICT_RETRIES => {
                attempt += 1;
                match cluster
                    .get(&read.kind, &change.namespace, &change.name)
                    .await
                {
                    Ok(fresh) => change = reconcile::plan_stage(&fresh, world, read.list_type, now),
                    Err(e) => {
                        return StageResult::failed(&change, Failure::Unreadable(&e.to_string()))
                    }
                }
            }
            Err(e) => {
                let text = e.to_string();
                let failure = match &e {
                    ClusterError::Forbidden { .. } => Failure::Forbidden(&text),
                    _ if is_conflict(&e) => Failure::Conflicts(&text),
                    _ => Failure::Other(&text),
                };
                return StageResult::failed(&change, failure);
            }
        }
    }
}

/// The one mode there is: `--once` (a CronJob runs it on a schedule).
fn validate(args: &ReconcileArgs) -> Result<()> {
    if !args.once {
        bail!("only --once is supported: run it from a CronJob");
    }
    Ok(())
}

fn reconcile_once(args: &ReconcileArgs, global: &Global) -> Result<ExitCode> {
    validate(args)?;
    let opts = ClusterOptions::new(&args.cluster)?;
    let now = now_rfc3339(global);
    let (notes, changes, outcomes) = block_on(async {
        let cluster = connect(&opts).await?;
        let read = read(&cluster, args, &namespace(&opts, &cluster)).await?;
        let world = World::new(&read.snapshot);
        let changes = reconcile::plan(&read.stages, &world, read.list_type, &now);
        let mut outcomes = Vec::new();
        if !args.dry_run {
            for c in changes.clone() {
                outcomes.push(write(&cluster, &read, &world, c, &now).await);
            }
        }
        let mut notes = read.notes.clone();
        notes.extend(world.notes.iter().cloned());
        Ok::<_, anyhow::Error>((notes, changes, outcomes))
    })?;
    for n in &notes {
        note(n);
    }
    if args.dry_run {
        let out = render::reconcile::dry_run(&changes).map_err(|e| anyhow!(e))?;
        note(&render::reconcile::dry_run_note(&changes));
        write_stdout(&out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let report = render::reconcile::report_json(&outcomes);
    let out = match args.output {
        Some(Output::Json) => serde_json::to_string_pretty(&report)? + "\n",
        Some(Output::Yaml) => serde_saphyr::to_string(&report).context("rendering YAML")?,
        None => {
            if outcomes.is_empty() {
                let ns = opts.namespace.as_deref().filter(|_| !args.all_namespaces);
                eprint!("{}", render::no_resources(ns));
            }
            render::reconcile::report_table(&outcomes)
        }
    };
    write_stdout(&out)?;
    if let Some(e) = render::reconcile::unwritten_error(&outcomes) {
        eprintln!("error: {e}");
    }
    Ok(ExitCode::from(report::exit_code(&outcomes)))
}
