//! `kubectl pacto reconcile --once`: read the Stages and the kinds they depend on, plan with the
//! library (`reconcile::plan`), write each planned status (`--concurrent` at a time), report
//! (`render::reconcile`). The whole run is bounded by `--timeout`: past it nothing more is
//! written, writes in flight are cancelled and every Stage left is reported. Exit 0 all written
//! or unchanged, 1 something left unwritten, 2 could not run.

use crate::io::connect::{block_on, connect, namespace, scope};
use crate::io::delivery::read_appliers;
use crate::io::output::{exit_on_error, json_for, note, text_for, write_stdout};
use anyhow::{anyhow, bail, Context, Result};
use futures_util::stream::{self, StreamExt};
use kubectl_pacto::cli::{Output, ReconcileArgs};
use kubectl_pacto::options::{duration_flag, ClusterOptions, Global};
use pacto_gates::cluster::{is_conflict, Cluster, ClusterError, ServedKind};
use pacto_gates::delivery::view::Snapshot;
use pacto_gates::delivery::{World, GROUP, VERSION};
use pacto_gates::k8s::duration::go_duration;
use pacto_gates::reconcile::report::{self, Failure, StageResult};
use pacto_gates::reconcile::{self, conditions_list_type, reread, Change, ListType};
use pacto_gates::render;
use serde_json::Value;
use std::collections::HashSet;
use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;
use tokio::time::Instant;

/// `kubectl pacto reconcile --once`.
pub(crate) fn run(args: &ReconcileArgs, global: &Global) -> ExitCode {
    exit_on_error(reconcile_once(args, global), 2)
}

fn now_rfc3339(global: &Global) -> String {
    pacto_gates::k8s::time::format_rfc3339_utc(global.now_unix())
}

/// The run's deadline (`--timeout`, from the start of the run; None: `0`, no deadline) and the
/// flag's value as messages give it (`3m0s`).
#[derive(Clone, Copy)]
struct Deadline {
    at: Option<Instant>,
    given: Duration,
}

impl Deadline {
    fn words(&self) -> String {
        go_duration(self.given)
    }

    /// `fut` within the deadline; None when it passed first (`fut` is dropped: a request in
    /// flight is cancelled).
    async fn within<T>(&self, fut: impl Future<Output = T>) -> Option<T> {
        match self.at {
            None => Some(fut.await),
            Some(at) => tokio::time::timeout_at(at, fut).await.ok(),
        }
    }

    fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }
}

/// The Stages a run covers, every Stage an upstream reference needs, the appliers, the Stage
/// kind and how its conditions merge.
struct RunInputs {
    /// How many of `snapshot.stages`, the first, the run covers (the upstream Stages outside
    /// it follow them).
    listed: usize,
    snapshot: Snapshot,
    kind: ServedKind,
    list_type: ListType,
    notes: Vec<String>,
}

/// The Stages of the run and every upstream Stage outside them (one GET each, `concurrent` at
/// a time), with notes on upstream Stages that could not be read.
async fn read_stages(
    cluster: &Cluster,
    args: &ReconcileArgs,
    namespace: &str,
) -> Result<(ServedKind, Vec<Value>, Vec<Value>, Vec<String>)> {
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
    let listed: HashSet<(&str, &str)> = stages
        .iter()
        .map(|s| {
            (
                text_at(s, "/metadata/namespace"),
                text_at(s, "/metadata/name"),
            )
        })
        .collect();
    let mut wanted: Vec<(String, String)> = Vec::new();
    let mut asked: HashSet<(&str, &str)> = HashSet::new();
    for s in &stages {
        if let Some(up) = pacto_gates::delivery::StageView::new(s).upstream_stage {
            let key = (up.namespace, up.name);
            if !listed.contains(&key) && asked.insert(key) {
                wanted.push((up.namespace.to_string(), up.name.to_string()));
            }
        }
    }
    let kind_ref = &kind;
    let reads = stream::iter(wanted.into_iter().map(|up| async move {
        let got = cluster.get(kind_ref, &up.0, &up.1).await;
        (up, got)
    }))
    .buffered(usize::from(args.concurrent))
    .collect::<Vec<_>>()
    .await;
    let (mut upstream, mut notes) = (Vec::new(), Vec::new());
    for (up, got) in reads {
        match got {
            Ok(o) => upstream.push(o),
            Err(ClusterError::NotFound { .. }) => {}
            Err(e) => notes.push(format!(
                "upstream Stage {}/{} could not be read: {e}",
                up.0, up.1
            )),
        }
    }
    Ok((kind, stages, upstream, notes))
}

/// The string at `pointer` in `o`, empty when absent or not a string.
fn text_at<'v>(o: &'v Value, pointer: &str) -> &'v str {
    o.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// Reads what a run needs, the three reads at once: the Stages (then their upstream Stages),
/// the appliers, and the Stage schema.
async fn read(cluster: &Cluster, args: &ReconcileArgs, namespace: &str) -> Result<RunInputs> {
    let mut appliers = Snapshot::default();
    let (stages, (), schema) = tokio::join!(
        read_stages(cluster, args, namespace),
        read_appliers(cluster, &mut appliers),
        cluster.openapi_v3(GROUP, VERSION),
    );
    let (kind, mut stages, upstream, mut notes) = stages?;
    let listed = stages.len();
    stages.extend(upstream);
    let snapshot = Snapshot { stages, ..appliers };
    let list_type = match schema {
        Ok(doc) => conditions_list_type(&doc, GROUP, VERSION, "Stage"),
        Err(e) => {
            notes.push(format!("the Stage schema could not be read ({e}): conditions are written whole, guarded by resourceVersion"));
            ListType::Atomic
        }
    };
    Ok(RunInputs {
        listed,
        snapshot,
        kind,
        list_type,
        notes,
    })
}

/// Writes one change; on a conflict re-reads the Stage and, when the re-read is the Stage that
/// was listed ([`reread::same_stage`]), plans it again ([`report::CONFLICT_RETRIES`] times at
/// most).
async fn write(
    cluster: &Cluster,
    read: &RunInputs,
    world: &World<'_>,
    listed: &Change,
    now: &str,
) -> StageResult {
    let mut change = listed.clone();
    let mut attempt = 0;
    loop {
        if change.refused.is_some() {
            return StageResult::done(&change);
        }
        let Some(w) = &change.write else {
            return StageResult::done(&change);
        };
        match cluster
            .patch_status(
                &read.kind,
                &change.namespace,
                &change.name,
                w.status_patch(),
            )
            .await
        {
            Ok(_) => return StageResult::done(&change),
            Err(e) if is_conflict(&e) && attempt < report::CONFLICT_RETRIES => {
                attempt += 1;
                match cluster
                    .get(&read.kind, &listed.namespace, &listed.name)
                    .await
                {
                    Ok(fresh) => {
                        if let Err(why) = reread::same_stage(listed, &fresh) {
                            return StageResult::failed(listed, Failure::Replaced(&why));
                        }
                        change = reconcile::plan_stage(&fresh, world, read.list_type, now);
                    }
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

/// Writes every planned change, `concurrent` at a time, within `deadline`: a write not started
/// when it passes is not started, one in flight is cancelled. The results come back in the
/// order of `changes`.
async fn write_all(
    cluster: &Cluster,
    read: &RunInputs,
    world: &World<'_>,
    changes: &[Change],
    now: &str,
    concurrent: usize,
    deadline: Deadline,
) -> Vec<StageResult> {
    let jobs = changes.iter().enumerate().map(|(i, c)| async move {
        let result = if c.write.is_none() {
            StageResult::done(c)
        } else if deadline.passed() {
            StageResult::failed(c, Failure::NotStarted(&deadline.words()))
        } else {
            match deadline.within(write(cluster, read, world, c, now)).await {
                Some(r) => r,
                None => StageResult::failed(c, Failure::Cancelled(&deadline.words())),
            }
        };
        (i, result)
    });
    let mut done: Vec<(usize, StageResult)> = stream::iter(jobs)
        .buffer_unordered(concurrent)
        .collect()
        .await;
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The one mode there is: `--once` (a CronJob runs it on a schedule); `--timeout` a duration.
fn validate(args: &ReconcileArgs) -> Result<Duration> {
    if !args.once {
        bail!("only --once is supported: run it from a CronJob");
    }
    duration_flag("--timeout", &args.timeout, "90s or 3m (0: no deadline)")
}

fn reconcile_once(args: &ReconcileArgs, global: &Global) -> Result<ExitCode> {
    let timeout = validate(args)?;
    let deadline = Deadline {
        at: (!timeout.is_zero()).then(|| Instant::now() + timeout),
        given: timeout,
    };
    let opts = ClusterOptions::new(&args.cluster)?;
    let now = now_rfc3339(global);
    let (notes, changes, outcomes) = block_on(async {
        let reading = async {
            let cluster = connect(&opts).await?;
            let read = read(&cluster, args, &namespace(&opts, &cluster)).await?;
            Ok::<_, anyhow::Error>((cluster, read))
        };
        let Some(reading) = deadline.within(reading).await else {
            bail!(
                "the run's --timeout of {} passed before the Stages and their appliers were read: nothing was written",
                deadline.words()
            );
        };
        let (cluster, read) = reading?;
        let world = World::new(&read.snapshot)
            .with_max_upstream_depth(crate::io::delivery::max_upstream_depth());
        let changes = reconcile::plan(
            &read.snapshot.stages[..read.listed],
            &world,
            read.list_type,
            &now,
        );
        let outcomes = if args.dry_run {
            Vec::new()
        } else {
            let concurrent = usize::from(args.concurrent);
            write_all(
                &cluster, &read, &world, &changes, &now, concurrent, deadline,
            )
            .await
        };
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
        Some(Output::Json) => json_for(
            serde_json::to_string_pretty(&report)? + "\n",
            global.terminal,
        ),
        Some(Output::Yaml) => text_for(
            serde_saphyr::to_string(&report).context("rendering YAML")?,
            global.terminal,
        ),
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

#[cfg(test)]
mod tests {
    use super::validate;
    use clap::Parser;
    use kubectl_pacto::cli::{Cli, Command, ReconcileArgs};
    use std::time::Duration;

    fn args(words: &[&str]) -> Result<ReconcileArgs, clap::Error> {
        let cli = Cli::try_parse_from([&["kubectl-pacto", "reconcile"], words].concat())?;
        let Command::Reconcile(a) = cli.command else {
            unreachable!("parsed as reconcile")
        };
        Ok(a)
    }

    /// `--timeout` is 3 minutes unless given (a Go duration or seconds; 0: none) and
    /// `--concurrent` 8, at least 1.
    #[test]
    fn the_deadline_and_the_writes_in_flight() {
        let a = args(&["--once"]).unwrap();
        assert_eq!(validate(&a).unwrap(), Duration::from_secs(180));
        assert_eq!(a.concurrent, 8);
        let a = args(&["--once", "--timeout", "90", "--concurrent", "2"]).unwrap();
        assert_eq!(validate(&a).unwrap(), Duration::from_secs(90));
        assert_eq!(a.concurrent, 2);
        assert_eq!(
            validate(&args(&["--once", "--timeout", "0"]).unwrap()).unwrap(),
            Duration::ZERO
        );
        assert_eq!(
            validate(&args(&["--once", "--timeout", "soon"]).unwrap())
                .unwrap_err()
                .to_string(),
            "--timeout \"soon\": expected a duration such as 90s or 3m (0: no deadline)"
        );
        assert!(args(&["--once", "--concurrent", "0"]).is_err());
    }
}
