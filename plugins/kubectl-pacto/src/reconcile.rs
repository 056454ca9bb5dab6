//! `kubectl pacto reconcile --once`: read the Stages and their appliers, plan with the library
//! (`reconcile::plan`), write each planned status, report. Exit 0 all written or unchanged, 1
//! something left unwritten, 2 could not run.

use crate::delivery::read_appliers;
use crate::live::{block_on, connect};
use crate::write_stdout;
use anyhow::{bail, Context, Result};
use kubectl_pacto::cli::{Output, ReconcileArgs};
use kubectl_pacto::options::{ClusterOptions, Global};
use pacto_gates::cluster::{is_conflict, Cluster, ClusterError, Kind, Scope, StatusPatch};
use pacto_gates::delivery::view::Snapshot;
use pacto_gates::delivery::{World, GROUP, VERSION};
use pacto_gates::reconcile::{self, conditions_list_type, Change, ListType, Write};
use pacto_gates::render;
use serde_json::{json, Value};
use std::process::ExitCode;

/// How many times a Stage that changed under the write (409) is re-read and written again.
const CONFLICT_RETRIES: u32 = 3;

/// What happened to one Stage.
struct Outcome {
    namespace: String,
    name: String,
    /// `unchanged`, `updated`, `failed` (or `planned` with --dry-run).
    result: &'static str,
    detail: String,
}

/// `kubectl pacto reconcile --once`.
pub fn reconcile(args: &ReconcileArgs, global: &Global) -> ExitCode {
    crate::exit_on_error(run(args, global), 2)
}

fn now_rfc3339(global: &Global) -> String {
    pacto_gates::k8s::time::format_rfc3339_utc(global.now_unix())
}

/// The Stages a run covers, every Stage an upstream reference needs, the appliers, the Stage
/// kind and how its conditions merge.
struct Read {
    stages: Vec<Value>,
    snapshot: Snapshot,
    kind: Kind,
    list_type: ListType,
    notes: Vec<String>,
}

async fn read(cluster: &Cluster, args: &ReconcileArgs, namespace: &str) -> Result<Read> {
    let scope = if args.all_namespaces {
        Scope::All
    } else {
        Scope::Namespace(namespace)
    };
    let kind = cluster
        .discover(GROUP, VERSION, "Stage")
        .await
        .context("cannot find the Stage kind")?;
    let stages = cluster
        .list(&kind, scope, args.selector.as_deref())
        .await
        .context("cannot list the Stages")?;
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
    Ok(Read {
        stages,
        snapshot,
        kind,
        list_type,
        notes,
    })
}

/// Writes one change; on a conflict re-reads the Stage and plans it again.
async fn write(
    cluster: &Cluster,
    read: &Read,
    world: &World,
    change: Change,
    now: &str,
) -> Outcome {
    let mut change = change;
    let mut attempt = 0;
    loop {
        let Some(w) = &change.write else {
            return Outcome {
                namespace: change.namespace,
                name: change.name,
                result: "unchanged",
                detail: String::new(),
            };
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
        let why = change.why.join("; ");
        match cluster
            .patch_status(&read.kind, &change.namespace, &change.name, patch)
            .await
        {
            Ok(_) => {
                return Outcome {
                    namespace: change.namespace,
                    name: change.name,
                    result: "updated",
                    detail: why,
                }
            }
            Err(e) if is_conflict(&e) && attempt < CONFLICT_RETRIES => {
                attempt += 1;
                match cluster
                    .get(&read.kind, &change.namespace, &change.name)
                    .await
                {
                    Ok(fresh) => change = reconcile::plan_stage(&fresh, world, read.list_type, now),
                    Err(e) => {
                        return Outcome {
                            namespace: change.namespace,
                            name: change.name,
                            result: "failed",
                            detail: format!(
                                "changed while being written, and could not be read again: {e}"
                            ),
                        }
                    }
                }
            }
            Err(e) => {
                let detail = match &e {
                    ClusterError::Forbidden { .. } => {
                        format!("skipped: {e} (the ServiceAccount needs patch on stages/status)")
                    }
                    _ if is_conflict(&e) => format!(
                        "changed under every one of {} attempts: {e}",
                        CONFLICT_RETRIES + 1
                    ),
                    _ => e.to_string(),
                };
                return Outcome {
                    namespace: change.namespace,
                    name: change.name,
                    result: "failed",
                    detail,
                };
            }
        }
    }
}

fn run(args: &ReconcileArgs, global: &Global) -> Result<ExitCode> {
    if !args.once {
        bail!("only --once is supported: run it from a CronJob");
    }
    let opts = ClusterOptions::new(&args.cluster)?;
    let now = now_rfc3339(global);
    let (notes, changes, outcomes) = block_on(async {
        let cluster = connect(&opts).await?;
        let namespace = opts
            .namespace
            .clone()
            .unwrap_or_else(|| cluster.default_namespace.clone());
        let read = read(&cluster, args, &namespace).await?;
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
        eprintln!("note: {}", render::one_line(n));
    }
    if args.dry_run {
        let mut out = String::new();
        for c in changes.iter().filter(|c| c.write.is_some()) {
            let w = c.write.as_ref().expect("filtered");
            let how = match w {
                Write::Apply(_) => {
                    "server-side apply of stages/status, field manager kubectl-pacto"
                }
                Write::GuardedMerge(_) => {
                    "merge patch of stages/status, guarded by resourceVersion"
                }
            };
            out.push_str(&format!(
                "---\n# Stage {}/{}: {how}\n# why: {}\n",
                render::one_line(&c.namespace),
                render::one_line(&c.name),
                render::one_line(&c.why.join("; "))
            ));
            out.push_str(&serde_saphyr::to_string(w.body()).context("rendering YAML")?);
        }
        let unchanged = changes.iter().filter(|c| c.write.is_none()).count();
        eprintln!("note: dry run: {} of {} Stages would be written, {unchanged} unchanged; nothing was written", changes.len() - unchanged, changes.len());
        write_stdout(&out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let report = json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "ReconcileReport",
        "stages": outcomes.iter().map(|o| json!({"namespace": o.namespace, "name": o.name, "result": o.result, "detail": o.detail})).collect::<Vec<_>>(),
    });
    let out = match args.output {
        Some(Output::Json) => serde_json::to_string_pretty(&report)? + "\n",
        Some(Output::Yaml) => serde_saphyr::to_string(&report).context("rendering YAML")?,
        None => {
            if outcomes.is_empty() {
                let ns = opts.namespace.as_deref().filter(|_| !args.all_namespaces);
                eprint!("{}", render::no_resources(ns));
                String::new()
            } else {
                render::table(
                    &["NAMESPACE", "NAME", "RESULT", "DETAIL"],
                    outcomes
                        .iter()
                        .map(|o| {
                            vec![
                                render::one_line(&o.namespace),
                                render::one_line(&o.name),
                                o.result.to_string(),
                                render::one_line(&o.detail),
                            ]
                        })
                        .collect(),
                )
            }
        }
    };
    write_stdout(&out)?;
    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| o.result == "failed")
        .map(|o| format!("{}/{}", o.namespace, o.name))
        .collect();
    if !failed.is_empty() {
        eprintln!(
            "error: {} Stage(s) left unwritten: {}",
            failed.len(),
            render::one_line(&failed.join(", "))
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
