//! `kubectl pacto wait`: list the objects once (one by name with
//! `fieldSelector=metadata.name=NAME`, several by `-l`, as kubectl wait lists and watches
//! them), then follow the library's resumable watch from that list's resourceVersion (bookmarks
//! followed, a `410 Gone` listed again, a restarting server waited for) until every one has
//! reached what `--for` asks ([`kubectl_pacto::wait`] decides), the timeout passes, or one is
//! deleted (kubectl's `wait`). On a timeout, the explain report of each object not there says
//! why.

use crate::io::connect::{block_on, block_on_within, connect, namespace};
use crate::io::delivery;
use crate::io::gates::load_gates;
use crate::io::output::{note, write_stdout};
use anyhow::{anyhow, bail, Result};
use kubectl_pacto::cli::WaitArgs;
use kubectl_pacto::options::{duration_flag, ClusterOptions, Global};
use kubectl_pacto::resource::{get_resource, ResourceType};
use kubectl_pacto::wait::WaitFor;
use pacto_gates::cluster::{ClusterError, Deadline, Scope, Selection};
use pacto_gates::pacto::explain::{Options as ExplainOptions, Report};
use pacto_gates::pacto::gate::{self, ArgoGate, FluxGate};
use pacto_gates::render;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The checked flags of one `wait`.
struct Options<'a> {
    args: &'a WaitArgs,
    global: &'a Global,
    cluster: ClusterOptions,
    listed: ResourceType,
    name: Option<String>,
    wait_for: WaitFor,
    timeout: Duration,
    /// The operator's stabilization window, for the reports of a timeout.
    report: ExplainOptions,
}

impl<'a> Options<'a> {
    /// The cluster flags, the target, what goes together ([`validate`]), `--for`,
    /// `--timeout` and `--stabilization-window`, checked in that order.
    fn complete(args: &'a WaitArgs, global: &'a Global) -> Result<Options<'a>> {
        let mut cluster = ClusterOptions::new(&args.cluster)?;
        kubectl_pacto::options::argocd_namespace(&args.gates.argocd_namespace)?;
        let (listed, name) = get_resource(&args.target, None)?;
        validate(name.is_some(), args.selector.is_some())?;
        let wait_for = WaitFor::parse(&args.condition, listed == ResourceType::Pactos)?;
        let timeout = duration_flag("--timeout", &args.timeout, "30s or 5m")?;
        // One deadline from the start: connecting, discovery, the gates, the list and every
        // watch event (0: check once, each request bounded by --request-timeout alone).
        cluster.connect.deadline =
            (!timeout.is_zero()).then(|| Deadline::after(timeout, "--timeout"));
        let window = duration_flag(
            "--stabilization-window",
            &args.stabilization_window,
            "2m or 90 (seconds)",
        )?;
        Ok(Options {
            args,
            global,
            cluster,
            listed,
            name,
            wait_for,
            timeout,
            report: ExplainOptions {
                stabilization_window_seconds: window.as_secs() as i64,
            },
        })
    }
}

/// One object by name, or every object a selector matches: one of the two.
fn validate(named: bool, selector: bool) -> Result<()> {
    match (named, selector) {
        (false, false) => bail!(
            "give KIND/NAME, or KIND with -l SELECTOR (e.g. kubectl pacto wait pacto/orders --for gate=pass)"
        ),
        (true, true) => bail!("name cannot be provided when a selector is specified"),
        _ => Ok(()),
    }
}

/// How a wait ended.
enum Waited {
    /// Every object reached it (their names).
    Met(Vec<String>),
    /// This object was deleted while waited for.
    Deleted(String),
    /// The timeout passed: the objects not there yet, and the gates they were judged by.
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
pub(crate) fn run(args: &WaitArgs, global: &Global) -> Result<ExitCode> {
    let o = Options::complete(args, global)?;
    let prefix = o.listed.name_prefix();
    match block_on_within(o.cluster.connect.deadline, follow(&o))? {
        Waited::Met(names) => {
            let lines: String = names
                .iter()
                .map(|n| format!("{prefix}/{} condition met\n", render::one_line(n)))
                .collect();
            write_stdout(&lines)?;
            Ok(ExitCode::SUCCESS)
        }
        Waited::Deleted(n) => bail!(
            "{prefix}/{n} was deleted while waiting for {}",
            o.wait_for.describe()
        ),
        Waited::TimedOut { pending, gates } => {
            // The reports read Stages and Operations again: within a bound of their own, as the
            // --timeout has passed; one that cannot be read is said so, and the wait still
            // ends as timed out.
            let mut reporting = o.cluster.clone();
            reporting.connect.deadline = Some(Deadline::after(
                o.cluster.connect.request_timeout.unwrap_or(REPORT_TIMEOUT),
                "the bound of the report after --timeout: 10s, or --request-timeout",
            ));
            let mut blocks = Vec::new();
            for p in &pending {
                match why_not(&o, &reporting, p, gates.as_deref()) {
                    Ok(report) => blocks.push(render::explain_text(&report.rows, global.colour)),
                    Err(e) => note(&format!(
                        "why {prefix}/{} is not there could not be read: {e:#}",
                        render::one_line(&name_of(p))
                    )),
                }
            }
            write_stdout(&blocks.join("\n"))?;
            let names: Vec<String> = pending
                .iter()
                .map(|p| format!("{prefix}/{}", render::one_line(&name_of(p))))
                .collect();
            Err(anyhow!(
                "timed out after {} waiting for {} on {}",
                pacto_gates::k8s::duration::go_duration(o.timeout),
                o.wait_for.describe(),
                names.join(", ")
            ))
        }
    }
}

/// How long the reports after a timeout may take to read, without `--request-timeout`.
const REPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why an object is not there yet: its explain report (Stages and Operations read again, with
/// `cluster`'s bound).
fn why_not(
    o: &Options<'_>,
    cluster: &ClusterOptions,
    p: &Value,
    gates: Option<&(ArgoGate, FluxGate)>,
) -> Result<Report> {
    let n = name_of(p);
    Ok(match (o.listed, gates) {
        (ResourceType::Stages, _) => {
            delivery::stage_report(cluster, &n, &o.args.gates.argocd_namespace)?
        }
        (ResourceType::Operations, _) => delivery::operation_report(cluster, &n)?,
        (ResourceType::Pactos, Some((argo, flux))) => {
            Report::gated(p, &gate::decide(argo, flux, p), o.global.now, o.report)
        }
        (ResourceType::Pactos, None) => {
            let (argo, flux) = block_on(load_gates(&o.args.gates, None, o.global.now))?;
            Report::gated(p, &gate::decide(&argo, &flux, p), o.global.now, o.report)
        }
    })
}

/// Reads the objects, then follows the watch until they are all there, one is deleted, or
/// the timeout passes.
async fn follow(o: &Options<'_>) -> Result<Waited> {
    let args = o.args;
    let wait_for = &o.wait_for;
    let deadline = o
        .cluster
        .connect
        .deadline
        .map_or_else(|| Instant::now() + o.timeout, |d| d.at);
    let mut cluster = connect(&o.cluster).await?;
    let (group, version, kind) = o.listed.api_kind().gvk();
    let kind = cluster.discover(group, version, kind).await?;
    let ns = namespace(&o.cluster, &cluster);
    let gates = match wait_for {
        WaitFor::Gate(_) => Some(load_gates(&args.gates, Some(&cluster), o.global.now).await?),
        _ => None,
    };
    let gate_word = |p: &Value| match &gates {
        Some((argo, flux)) => gate::decide(argo, flux, p).overall().as_str().to_string(),
        None => String::new(),
    };
    let deleting = matches!(wait_for, WaitFor::Delete);
    // One object is listed and watched by name (kubectl wait's
    // `fieldSelector=metadata.name=NAME`), several by the label selector.
    let by_name = o.name.as_ref().map(|n| format!("metadata.name={n}"));
    let selection = Selection::new(Scope::Namespace(&ns))
        .labels(args.selector.as_deref())
        .fields(by_name.as_deref());
    let mut found = cluster.list_selected(&kind, &selection).await?;
    if let Some(n) = &o.name {
        found.items.retain(|p| name_of(p) == *n);
    }
    if found.items.is_empty() {
        match &o.name {
            _ if deleting => return Ok(Waited::Met(o.name.iter().cloned().collect())),
            Some(n) => {
                return Err(ClusterError::NotFound {
                    resource: kind.resource(),
                    name: n.clone(),
                    scope: format!(" in namespace \"{ns}\""),
                }
                .into())
            }
            None => bail!("no matching resources found"),
        }
    }
    // The objects waited on, by name, as last seen.
    let mut watched: BTreeMap<String, Value> =
        found.items.into_iter().map(|p| (name_of(&p), p)).collect();
    let names: Vec<String> = watched.keys().cloned().collect();
    // A jsonpath that fails on an object ends the wait at once, as kubectl's does.
    let reached = |watched: &BTreeMap<String, Value>| -> Result<bool> {
        if deleting {
            return Ok(watched.is_empty());
        }
        for p in watched.values() {
            if !wait_for.reached(p, gate_word).map_err(anyhow::Error::msg)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    if reached(&watched)? {
        return Ok(Waited::Met(names));
    }
    // From here the follow bounds each list and watch by the deadline itself, and ends as
    // timed out when it passes.
    cluster.set_deadline(None);
    let mut follow = cluster.follow(
        &kind,
        selection,
        watched.values().cloned().collect(),
        Some(&found.resource_version),
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
                return Ok(Waited::Deleted(n));
            }
            watched.remove(&n);
        } else {
            watched.insert(n, event.object);
        }
        if reached(&watched)? {
            return Ok(Waited::Met(names));
        }
    }
    let pending = watched
        .into_values()
        .filter(|p| !wait_for.reached(p, gate_word).unwrap_or(false))
        .collect();
    Ok(Waited::TimedOut {
        pending,
        gates: gates.map(Box::new),
    })
}

#[cfg(test)]
mod tests {
    use super::validate;

    /// kubectl wait's rule: a name, or a selector, not both and not neither.
    #[test]
    fn a_name_or_a_selector() {
        assert!(validate(true, false).is_ok());
        assert!(validate(false, true).is_ok());
        assert_eq!(
            validate(true, true).unwrap_err().to_string(),
            "name cannot be provided when a selector is specified"
        );
        assert!(validate(false, false)
            .unwrap_err()
            .to_string()
            .starts_with("give KIND/NAME"));
    }
}
