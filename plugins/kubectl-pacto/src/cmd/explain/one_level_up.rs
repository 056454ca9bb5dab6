//! `explain application/NAME` and `explain kustomization/NAME`: the gate one level up. From
//! files, they hold the Application (or Kustomization) and the live objects, and for an
//! Application optionally its argocd-cm; from the cluster, the object is read, then every
//! object its `status.resources` (or inventory) names, and the cluster's argocd-cm. The library
//! computes the health (`argo::app_health`) or the wait (`flux::wait_set`) and the report
//! (`pacto::explain`).

use crate::io::connect::{block_on, block_on_within, connect, namespace};
use crate::io::gates::load_gates;
use crate::io::live::{read_referenced, Reference};
use crate::io::select::in_namespace;
use anyhow::{anyhow, bail, Result};
use kubectl_pacto::cli::GateArgs;
use kubectl_pacto::options::ClusterOptions;
use kubectl_pacto::resource::{Explained, Target};
use pacto_gates::argo::app_health::{app_health, resources};
use pacto_gates::argo::health::{ArgoHealth, BuiltinScripts};
use pacto_gates::flux::wait_set::{explain_wait, references};
use pacto_gates::kinds;
use pacto_gates::pacto::explain::application::application_report;
use pacto_gates::pacto::explain::kustomization::kustomization_report;
use pacto_gates::pacto::explain::Report;
use pacto_gates::pacto::gate::ArgoGate;
use serde_json::Value;

/// The one object of the files `t` names (in `namespace` when given). Errors: none, or several
/// in different namespaces.
pub(super) fn the_one<'a>(
    all: &'a [Value],
    t: &Target,
    namespace: Option<&str>,
) -> Result<&'a Value> {
    let found: Vec<&Value> = all
        .iter()
        .filter(|x| in_namespace(x, namespace) && t.is(x))
        .collect();
    let (_, kind) = t.group_kind();
    let ns = |x: &Value| {
        x.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    match found.as_slice() {
        [] => bail!(
            "{}/{} is not in the files given",
            kind.to_ascii_lowercase(),
            t.name
        ),
        [one] => Ok(one),
        // One object given twice (a file named twice): the same object.
        [first, rest @ ..] if rest.iter().all(|x| *x == *first) => Ok(first),
        [first, rest @ ..] if rest.iter().all(|x| ns(x) == ns(first)) => bail!(
            "{} different {kind}s {}/{} in the files given: give each object once",
            found.len(),
            ns(first),
            t.name
        ),
        _ => bail!(
            "{} {kind}s named {} in the files given: pick one with -n NAMESPACE",
            found.len(),
            t.name
        ),
    }
}

/// Whether `x` is an argocd-cm ConfigMap.
fn is_argocd_cm(x: &Value) -> bool {
    x.get("apiVersion").and_then(Value::as_str) == Some("v1")
        && x.get("kind").and_then(Value::as_str) == Some("ConfigMap")
        && x.pointer("/metadata/name").and_then(Value::as_str) == Some("argocd-cm")
}

/// The report of the Application or Kustomization `t` names among the objects `all` of the
/// files.
pub(super) fn report(
    all: &[Value],
    t: &Target,
    namespace: Option<&str>,
    gates: &GateArgs,
    now: jiff::Timestamp,
) -> Result<Report> {
    let obj = the_one(all, t, namespace)?;
    let live: Vec<Value> = all
        .iter()
        .filter(|x| !std::ptr::eq(*x, obj))
        .cloned()
        .collect();
    match t.kind {
        Explained::Application => {
            let argo = argo_gate_of_files(all, gates, now)?;
            application(obj, &live, &argo, t, false)
        }
        Explained::Kustomization => {
            let w = explain_wait(obj, &live, now.as_second())
                .map_err(|e| anyhow!("kustomization/{}: {e}", t.name))?;
            Ok(kustomization_report(obj, &w))
        }
        _ => unreachable!("only an Application or a Kustomization is explained here"),
    }
}

/// The Argo CD gate for an Application of the files: the argocd-cm among them (with
/// `--customizations-dir`), unless `--argocd-cm` names one; else the recommended gate.
pub(super) fn argo_gate_of_files(
    all: &[Value],
    gates: &GateArgs,
    now: jiff::Timestamp,
) -> Result<ArgoGate> {
    Ok(match all.iter().find(|x| is_argocd_cm(x)) {
        Some(cm) if gates.argocd_cm.is_none() => {
            let ns = cm
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or("default");
            let mut a = ArgoGate::from_configmap(
                cm,
                format!("argocd-cm {ns}/argocd-cm (in the files given)"),
                now.as_second(),
            );
            if let (Some(dir), Some(engine)) = (&gates.customizations_dir, a.engine.as_mut()) {
                engine.builtins = Some(
                    BuiltinScripts::load(dir).map_err(|e| anyhow!("--customizations-dir: {e}"))?,
                );
            }
            a
        }
        _ => block_on(load_gates(gates, None, now))?.0,
    })
}

/// The engine of `argo`. Errors: an argocd-cm Argo CD refuses as a whole.
pub(super) fn engine_of(argo: &ArgoGate) -> Result<&ArgoHealth> {
    argo.engine.as_ref().ok_or_else(|| {
        anyhow!(
            "{}: {} (Argo CD refuses the whole configuration: every Application's health is Unknown)",
            argo.source.describe(),
            argo.load_error.as_deref().unwrap_or("not loaded")
        )
    })
}

/// The report of the Application or Kustomization `t` names, read from the cluster with the
/// objects it names and (for an Application) the cluster's argocd-cm, unless `--argocd-cm`
/// names a file.
pub(super) fn from_cluster(
    c: &ClusterOptions,
    t: &Target,
    gates: &GateArgs,
    now: jiff::Timestamp,
) -> Result<Report> {
    let api = match t.kind {
        Explained::Application => kinds::APPLICATION,
        _ => kinds::KUSTOMIZATION,
    };
    block_on_within(c.connect.deadline, async {
        let cluster = connect(c).await?;
        let kind = cluster.discover(api.group, api.version, api.kind).await?;
        let ns = namespace(c, &cluster);
        let obj = cluster.get(&kind, &ns, &t.name).await?;
        let what = format!("{}/{}", api.kind.to_ascii_lowercase(), t.name);
        let refs: Vec<Reference> = match t.kind {
            Explained::Application => resources(&obj, &[])
                .map_err(|e| anyhow!("{what}: {e}"))?
                .into_iter()
                .map(|r| (r.group, r.version, r.kind, r.namespace, r.name))
                .collect(),
            _ => references(&obj)
                .map_err(|e| anyhow!("{what}: {e}"))?
                .into_iter()
                .map(|r| (r.group, r.version, r.kind, r.namespace, r.name))
                .collect(),
        };
        let live = read_referenced(&cluster, &refs).await?;
        match t.kind {
            Explained::Application => {
                let (argo, _) = load_gates(gates, Some(&cluster), now).await?;
                application(&obj, &live, &argo, t, true)
            }
            _ => {
                let w = explain_wait(&obj, &live, now.as_second())
                    .map_err(|e| anyhow!("{what}: {e}"))?;
                Ok(kustomization_report(&obj, &w))
            }
        }
    })
}

/// The Application's report under `argo`. With `every_live` (read from the cluster), a resource
/// whose object is not among `live` is not live, whatever `status.resources` recorded; from
/// files, its recorded health stands for it. Errors: argocd-cm that Argo CD refuses, a
/// malformed `status.resources`.
fn application(
    obj: &Value,
    live: &[Value],
    argo: &ArgoGate,
    t: &Target,
    every_live: bool,
) -> Result<Report> {
    let engine = engine_of(argo)?;
    let mut rs = resources(obj, live).map_err(|e| anyhow!("application/{}: {e}", t.name))?;
    if every_live {
        for r in rs.iter_mut().filter(|r| r.live.is_none()) {
            r.recorded = None;
        }
    }
    let h = app_health(obj, &rs, engine);
    Ok(application_report(obj, &h, &argo.source.describe()))
}
