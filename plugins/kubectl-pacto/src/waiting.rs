//! `kubectl pacto wait`: read the objects once, then follow a watch until every one has reached
//! what `--for` asks ([`kubectl_pacto::wait`] decides), the timeout passes, or one is deleted.
//! On a timeout, the explain report of each object not there says why.

use crate::explain::gated_report;
use crate::live::{block_on, connect, load_gates};
use crate::write_stdout;
use anyhow::{anyhow, bail, Result};
use kubectl_pacto::cli::WaitArgs;
use kubectl_pacto::options::{duration_flag, ClusterOptions, Global};
use kubectl_pacto::resource::{get_resource, Listed, DELIVERY_GROUP, DELIVERY_VERSION};
use kubectl_pacto::wait::WaitFor;
use pacto_gates::cluster::{newest_resource_version, ClusterError, Scope};
use pacto_gates::pacto::explain::Options;
use pacto_gates::pacto::gate::{self, ArgoGate, FluxGate};
use pacto_gates::render;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

enum Outcome {
    Met(Vec<String>),
    Deleted(String),
    TimedOut {
        pending: Vec<Value>,
        gates: Option<Box<(ArgoGate, FluxGate)>>,
    },
}

fn name_of(o: &Value) -> String {
    o.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// `kubectl pacto wait`.
pub fn wait(args: &WaitArgs, global: &Global) -> Result<ExitCode> {
    let cluster_opts = ClusterOptions::new(&args.cluster)?;
    let (listed, name) = get_resource(&args.target, None)?;
    match (&name, &args.selector) {
        (None, None) => bail!(
            "give KIND/NAME, or KIND with -l SELECTOR (e.g. kubectl pacto wait pacto/orders --for gate=pass)"
        ),
        (Some(_), Some(_)) => bail!("name cannot be provided when a selector is specified"),
        _ => {}
    }
    let wait_for = WaitFor::parse(&args.condition, listed == Listed::Pactos)?;
    let timeout = duration_flag("--timeout", &args.timeout, "30s or 5m")?;
    let window = duration_flag(
        "--stabilization-window",
        &args.stabilization_window,
        "2m or 90 (seconds)",
    )?;
    let prefix = listed.name_prefix();
    let outcome = block_on(follow(
        args,
        &cluster_opts,
        listed,
        name.as_deref(),
        &wait_for,
        timeout,
        global,
    ))?;
    match outcome {
        Outcome::Met(names) => {
            let lines: String = names
                .iter()
                .map(|n| format!("{prefix}/{} condition met\n", render::one_line(n)))
                .collect();
            write_stdout(&lines)?;
            Ok(ExitCode::SUCCESS)
        }
        Outcome::Deleted(n) => bail!(
            "{prefix}/{n} was deleted while waiting for {}",
            wait_for.describe()
        ),
        Outcome::TimedOut { pending, gates } => {
            let opts = Options {
                stabilization_window_seconds: window.as_secs() as i64,
            };
            let mut blocks = Vec::new();
            for o in &pending {
                let n = name_of(o);
                let report = match (listed, &gates) {
                    (Listed::Stages, _) => crate::delivery::explain_stage(&cluster_opts, &n)?,
                    (Listed::Operations, _) => {
                        crate::delivery::explain_operation(&cluster_opts, &n)?
                    }
                    (Listed::Pactos, Some(g)) => gated_report(o, &g.0, &g.1, global, opts),
                    (Listed::Pactos, None) => {
                        let (argo, flux) = block_on(load_gates(&args.gates, None, global.now))?;
                        gated_report(o, &argo, &flux, global, opts)
                    }
                };
                blocks.push(render::explain_text(&report.rows, global.colour));
            }
            write_stdout(&blocks.join("\n"))?;
            let names: Vec<String> = pending
                .iter()
                .map(|o| format!("{prefix}/{}", render::one_line(&name_of(o))))
                .collect();
            Err(anyhow!(
                "timed out after {} waiting for {} on {}",
                pacto_gates::k8s::duration::go_duration(timeout),
                wait_for.describe(),
                names.join(", ")
            ))
        }
    }
}

async fn follow(
    args: &WaitArgs,
    cluster_opts: &ClusterOptions,
    listed: Listed,
    name: Option<&str>,
    wait_for: &WaitFor,
    timeout: Duration,
    global: &Global,
) -> Result<Outcome> {
    let deadline = Instant::now() + timeout;
    let cluster = connect(cluster_opts).await?;
    let (group, version) = match listed {
        Listed::Pactos => (pacto_gates::pacto::GROUP, pacto_gates::pacto::VERSION),
        _ => (DELIVERY_GROUP, DELIVERY_VERSION),
    };
    let kind = cluster.discover(group, version, listed.kind()).await?;
    let ns = cluster_opts
        .namespace
        .clone()
        .unwrap_or_else(|| cluster.default_namespace.clone());
    let gates = match wait_for {
        WaitFor::Gate(_) => Some(load_gates(&args.gates, Some(&cluster), global.now).await?),
        _ => None,
    };
    let gate_word = |o: &Value| match &gates {
        Some((argo, flux)) => gate::decide(argo, flux, o).overall().as_str().to_string(),
        None => String::new(),
    };
    let deleting = matches!(wait_for, WaitFor::Delete);
    // The objects waited on, by name, as last seen.
    let mut watched: BTreeMap<String, Value> = BTreeMap::new();
    match name {
        Some(n) => match cluster.get(&kind, &ns, n).await {
            Ok(o) => {
                watched.insert(n.to_string(), o);
            }
            Err(ClusterError::NotFound { .. }) if deleting => {
                return Ok(Outcome::Met(vec![n.to_string()]))
            }
            Err(e) => return Err(e.into()),
        },
        None => {
            let found = cluster
                .list(&kind, Scope::Namespace(&ns), args.selector.as_deref())
                .await?;
            if found.is_empty() {
                if deleting {
                    return Ok(Outcome::Met(Vec::new()));
                }
                bail!("no matching resources found");
            }
            for o in found {
                watched.insert(name_of(&o), o);
            }
        }
    }
    let names: Vec<String> = watched.keys().cloned().collect();
    let reached = |watched: &BTreeMap<String, Value>| {
        if deleting {
            watched.is_empty()
        } else {
            watched.values().all(|o| wait_for.reached(o, gate_word))
        }
    };
    if reached(&watched) {
        return Ok(Outcome::Met(names));
    }
    let since = newest_resource_version(&watched.values().cloned().collect::<Vec<_>>());
    let mut follow = cluster.follow(
        &kind,
        Scope::Namespace(&ns),
        args.selector.as_deref(),
        since,
        Some(deadline),
    );
    while let Some(event) = follow.next().await {
        let event = event?;
        let n = name_of(&event.object);
        if !watched.contains_key(&n) {
            continue;
        }
        if event.kind == "DELETED" {
            if !deleting {
                return Ok(Outcome::Deleted(n));
            }
            watched.remove(&n);
        } else {
            watched.insert(n, event.object);
        }
        if reached(&watched) {
            return Ok(Outcome::Met(names));
        }
    }
    let pending = watched
        .into_values()
        .filter(|o| !wait_for.reached(o, gate_word))
        .collect();
    Ok(Outcome::TimedOut {
        pending,
        gates: gates.map(Box::new),
    })
}
