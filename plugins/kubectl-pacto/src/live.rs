//! `get` and `explain`: gather the objects and the gates (cluster or files), then hand them to
//! the library's pure views and renderers.

use crate::write_stdout;
use anyhow::{anyhow, bail, Context, Result};
use jiff::Timestamp;
use kubectl_pacto::cli::{ExplainArgs, GateArgs, GetArgs, GetOutput};
use kubectl_pacto::options::{check_name, duration_flag, ClusterOptions, Global};
use pacto_gates::cluster::{Cluster, Scope};
use pacto_gates::object;
use pacto_gates::pacto::explain::{self, Options};
use pacto_gates::pacto::gate::{self, ArgoGate, FluxGate, FluxKustomization};
use pacto_gates::pacto::view::PactoView;
use pacto_gates::pacto::{GROUP, KIND, VERSION};
use pacto_gates::render::{self, PactoRow, TableOptions};
use serde_json::Value;
use std::process::ExitCode;

/// Runs the I/O of one command. The runtime is then shut down without waiting for blocking
/// work that may still run (a stuck kubeconfig exec plugin after a timeout).
fn block_on<T>(fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the I/O runtime")?;
    let out = rt.block_on(fut);
    rt.shutdown_background();
    out
}

async fn connect(c: &ClusterOptions) -> Result<Cluster> {
    Ok(Cluster::connect(&c.connect).await?)
}

/// The gates: files given win; else the cluster's (when one is given and readable); else the
/// recommended gate, with the reason.
async fn load_gates(
    g: &GateArgs,
    cluster: Option<&Cluster>,
    now: Timestamp,
) -> Result<(ArgoGate, FluxGate)> {
    let now_unix = now.as_second();
    if g.warning_blocks && g.argocd_cm.is_some() && g.kustomization.is_some() {
        eprintln!("note: --warning-blocks changes only the recommended gate; --argocd-cm and --kustomization decide here");
    }
    let (cluster_argo, cluster_flux) = match cluster {
        Some(c) if g.argocd_cm.is_none() || g.kustomization.is_none() => {
            let (a, f) = cluster_gates(c, &g.argocd_namespace, g.warning_blocks, now_unix).await;
            (Some(a), Some(f))
        }
        _ => (None, None),
    };
    let argo = if let Some(path) = &g.argocd_cm {
        let cm = crate::read_one(path, "argocd-cm ConfigMap")?.value;
        ArgoGate::from_configmap(&cm, format!("argocd-cm file {}", path.display()), now_unix)
    } else {
        cluster_argo.unwrap_or_else(|| {
            ArgoGate::recommended("no --argocd-cm given", g.warning_blocks, now_unix)
        })
    };
    let flux = if let Some(path) = &g.kustomization {
        let k = crate::read_one(path, "Kustomization")?.value;
        let fk = FluxKustomization::new(&k, false, now_unix)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        FluxGate {
            kustomizations: vec![fk],
            ..FluxGate::recommended("unused", g.warning_blocks, now_unix)
        }
    } else {
        cluster_flux.unwrap_or_else(|| {
            FluxGate::recommended("no --kustomization given", g.warning_blocks, now_unix)
        })
    };
    Ok((argo, flux))
}

/// The cluster's gates: its argocd-cm and Kustomizations ([`Cluster::gate_objects`]) made into
/// gates ([`gate::from_cluster`]).
async fn cluster_gates(
    cluster: &Cluster,
    argocd_namespace: &str,
    warning_blocks: bool,
    now_unix: i64,
) -> (ArgoGate, FluxGate) {
    let read = cluster.gate_objects(argocd_namespace).await;
    gate::from_cluster(
        read.argocd_cm.map_err(|e| e.to_string()),
        argocd_namespace,
        read.kustomizations.map_err(|e| e.to_string()),
        warning_blocks,
        now_unix,
    )
}

/// `pactos`, `pacto`, `pacto.pacto.trianalab.io` (and `/NAME` forms) → the name, if any.
fn pacto_resource(arg: &str) -> Result<Option<String>> {
    let (res, name) = match arg.split_once('/') {
        Some((r, n)) => (r, Some(n.to_string())),
        None => (arg, None),
    };
    let known = [
        "pactos",
        "pacto",
        "pactos.pacto.trianalab.io",
        "pacto.pacto.trianalab.io",
    ];
    if !known.contains(&res.to_ascii_lowercase().as_str()) {
        bail!("\"{res}\" is not a resource type kubectl pacto get knows: it lists pactos (for one Pacto: kubectl pacto get pactos {res})");
    }
    if name.as_deref() == Some("") {
        bail!("{arg}: a name is needed after the slash");
    }
    Ok(name)
}

/// With `-n`, only the objects of that namespace (kubectl would refuse the others).
fn in_namespace(o: &Value, namespace: Option<&str>) -> bool {
    namespace.is_none_or(|ns| {
        o.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default")
            == ns
    })
}

fn is_pacto(o: &Value) -> bool {
    let gvk = pacto_gates::k8s::gvk_of(o);
    gvk.group == GROUP && gvk.kind == KIND
}

/// `kubectl pacto get`.
pub fn get(args: &GetArgs, global: &Global) -> Result<ExitCode> {
    let now = global.now;
    let cluster_opts = ClusterOptions::new(&args.cluster)?;
    let name = match (pacto_resource(&args.resource)?, &args.name) {
        (Some(_), Some(_)) => bail!("give the name once: pacto/NAME or pactos NAME"),
        (a, b) => a.or(b.clone()),
    };
    if let Some(n) = &name {
        check_name(n, "Pacto name")?;
        if args.selector.is_some() {
            bail!("name cannot be provided when a selector is specified");
        }
        if args.all_namespaces {
            bail!("a resource cannot be retrieved by name across all namespaces");
        }
    }
    let namespace_given = cluster_opts.namespace.clone();
    let machine = matches!(
        args.output,
        Some(GetOutput::Json | GetOutput::Yaml | GetOutput::Name)
    );
    let (objects, gates, namespace) = block_on(async {
        let (objects, cluster, namespace) = if !args.files.is_empty() {
            if args.selector.is_some() {
                bail!("-l/--selector selects on the API server: it cannot be used with -f");
            }
            let objs: Vec<Value> = object::read_paths(&args.files)?
                .into_iter()
                .map(|o| o.value)
                .filter(is_pacto)
                .filter(|o| in_namespace(o, namespace_given.as_deref()))
                .filter(|o| {
                    name.as_deref().is_none_or(|n| {
                        o.pointer("/metadata/name").and_then(Value::as_str) == Some(n)
                    })
                })
                .collect();
            if let (Some(n), true) = (&name, objs.is_empty()) {
                bail!("pacto \"{n}\" not found in the files given");
            }
            (objs, None, None)
        } else {
            let cluster = connect(&cluster_opts).await?;
            let kind = cluster.discover(GROUP, VERSION, KIND).await?;
            let ns = namespace_given
                .clone()
                .unwrap_or_else(|| cluster.default_namespace.clone());
            let objs = match &name {
                Some(n) => vec![cluster.get(&kind, &ns, n).await?],
                None => {
                    let scope = if args.all_namespaces {
                        Scope::All
                    } else {
                        Scope::Namespace(&ns)
                    };
                    cluster.list(&kind, scope, args.selector.as_deref()).await?
                }
            };
            (objs, Some(cluster), Some(ns))
        };
        let gates = if machine || objects.is_empty() {
            None
        } else {
            Some(load_gates(&args.gates, cluster.as_ref(), now).await?)
        };
        Ok::<_, anyhow::Error>((objects, gates, namespace))
    })?;
    let out = match args.output {
        Some(GetOutput::Json) => serde_json::to_string_pretty(&render::kube_list(objects))? + "\n",
        Some(GetOutput::Yaml) => {
            serde_saphyr::to_string(&render::kube_list(objects)).context("rendering YAML")?
        }
        Some(GetOutput::Name) => {
            let names: Vec<String> = objects.iter().map(|o| PactoView::new(o).name).collect();
            render::names("pacto.pacto.trianalab.io", &names)
        }
        None | Some(GetOutput::Wide) => {
            if objects.is_empty() {
                let ns = namespace.as_deref().filter(|_| !args.all_namespaces);
                eprint!("{}", render::no_resources(ns));
                return Ok(ExitCode::SUCCESS);
            }
            let (argo, flux) = gates.expect("gates are loaded for tables");
            let views: Vec<PactoView> = objects.iter().map(PactoView::new).collect();
            let decisions: Vec<_> = objects
                .iter()
                .map(|o| gate::decide(&argo, &flux, o))
                .collect();
            for n in gate::notes(&decisions) {
                eprintln!("note: {}", render::one_line(&n));
            }
            let rows: Vec<PactoRow> = views
                .iter()
                .zip(&decisions)
                .map(|(view, decision)| PactoRow { view, decision })
                .collect();
            render::pacto_table(
                &rows,
                TableOptions {
                    // Files may mix namespaces: then the column is needed to tell rows apart.
                    all_namespaces: args.all_namespaces
                        || views.iter().any(|v| v.namespace != views[0].namespace),
                    wide: args.output == Some(GetOutput::Wide),
                    colour: global.colour,
                    now,
                },
            )
        }
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// `pacto/NAME`, `codertemplatetest/NAME` (plural and group-qualified forms too).
fn explain_target(t: &str) -> Result<((&'static str, &'static str, &'static str), String)> {
    let Some((kind, name)) = t.split_once('/') else {
        bail!("{t}: expected KIND/NAME, for example pacto/orders");
    };
    if name.is_empty() {
        bail!("{t}: a name is needed after the slash");
    }
    check_name(name, "name")?;
    let k = kind.to_ascii_lowercase();
    let gvk = match k.as_str() {
        "pacto" | "pactos" | "pacto.pacto.trianalab.io" | "pactos.pacto.trianalab.io" => {
            (GROUP, VERSION, KIND)
        }
        "codertemplatetest"
        | "codertemplatetests"
        | "codertemplatetest.coder.com"
        | "codertemplatetests.coder.com" => ("coder.com", "v1alpha1", "CoderTemplateTest"),
        _ => bail!("{t}: kubectl pacto explain knows pacto/NAME and codertemplatetest/NAME"),
    };
    Ok((gvk, name.to_string()))
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
    let namespace = cluster_opts.namespace.clone();
    let (objects, (argo, flux)) = block_on(async {
        if !args.files.is_empty() {
            let wanted = args.target.as_deref().map(explain_target).transpose()?;
            let objs: Vec<Value> = object::read_paths(&args.files)?
                .into_iter()
                .map(|o| o.value)
                .filter(|o| in_namespace(o, namespace.as_deref()))
                .filter(|o| {
                    wanted.as_ref().is_none_or(|((group, _, kind), name)| {
                        let gvk = pacto_gates::k8s::gvk_of(o);
                        gvk.group == *group
                            && gvk.kind == *kind
                            && o.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
                    })
                })
                .collect();
            if objs.is_empty() {
                match &args.target {
                    Some(t) => bail!("{t} is not in the files given"),
                    None => bail!("no objects in the files given"),
                }
            }
            let gates = load_gates(&args.gates, None, now).await?;
            return Ok((objs, gates));
        }
        let target = args.target.as_deref().unwrap_or_default();
        let ((group, version, kind), name) = explain_target(target)?;
        let cluster = connect(&cluster_opts).await?;
        let kind = cluster.discover(group, version, kind).await?;
        let ns = namespace
            .clone()
            .unwrap_or_else(|| cluster.default_namespace.clone());
        let obj = cluster.get(&kind, &ns, &name).await?;
        let gates = load_gates(&args.gates, Some(&cluster), now).await?;
        Ok::<_, anyhow::Error>((vec![obj], gates))
    })?;
    let colour = global.colour;
    let mut out = String::new();
    for (i, o) in objects.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let d = gate::decide(&argo, &flux, o);
        out.push_str(&render::explain_text(
            &explain::explain(o, &d, now, opts),
            colour,
        ));
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}
