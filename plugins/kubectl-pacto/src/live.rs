//! `get`: gather the objects (cluster or files) and, for Pactos, the gates, then hand them to the
//! library's pure views and renderers. Stages and Operations are listed by [`crate::delivery`];
//! `explain` is [`crate::explain`]. The I/O both share lives here: the runtime, the connection,
//! the gates.

use crate::watching::{follow, list_then_follow, newest, Watched};
use crate::write_stdout;
use anyhow::{anyhow, bail, Context, Result};
use jiff::Timestamp;
use kubectl_pacto::cli::{GateArgs, GetArgs};
use kubectl_pacto::options::{ClusterOptions, Global};
use kubectl_pacto::printer::{OutputFormat, PrintOptions};
use kubectl_pacto::resource::{get_resource, Listed};
use pacto_gates::cluster::{Cluster, Scope};
use pacto_gates::object;
use pacto_gates::pacto::gate::{self, sources, ArgoGate, FluxGate};
use pacto_gates::pacto::view::PactoView;
use pacto_gates::pacto::{GROUP, KIND, VERSION};
use pacto_gates::render::{self, PactoRow, TableOptions};
use serde_json::Value;
use std::process::ExitCode;

/// Runs the I/O of one command. The runtime is then shut down without waiting for blocking
/// work that may still run (a stuck kubeconfig exec plugin after a timeout).
pub(crate) fn block_on<T>(fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the I/O runtime")?;
    let out = rt.block_on(fut);
    rt.shutdown_background();
    out
}

pub(crate) async fn connect(c: &ClusterOptions) -> Result<Cluster> {
    Ok(Cluster::connect(&c.connect).await?)
}

/// The gates ([`sources::choose`]: files given win; else the cluster's, when one is given;
/// else the recommended gate, with the reason), with `--customizations-dir`'s scripts on the
/// Argo CD side. The cluster is read only for a side without a file.
pub(crate) async fn load_gates(
    g: &GateArgs,
    cluster: Option<&Cluster>,
    now: Timestamp,
) -> Result<(ArgoGate, FluxGate)> {
    let now_unix = now.as_second();
    let note = sources::warning_blocks_note(
        g.argocd_cm.is_some(),
        g.kustomization.is_some(),
        g.warning_blocks,
    );
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    let argocd_cm = match &g.argocd_cm {
        Some(path) => Some((
            crate::read_one(path, "argocd-cm ConfigMap")?.value,
            path.display().to_string(),
        )),
        None => None,
    };
    let kustomization = match &g.kustomization {
        Some(path) => Some((
            crate::read_one(path, "Kustomization")?.value,
            path.display().to_string(),
        )),
        None => None,
    };
    let files = sources::Files {
        argocd_cm: argocd_cm.as_ref().map(|(v, p)| (v, p.as_str())),
        kustomization: kustomization.as_ref().map(|(v, p)| (v, p.as_str())),
    };
    let read = match cluster {
        Some(c) if files.need_cluster() => Some(c.gate_objects(&g.argocd_namespace).await),
        _ => None,
    };
    let cluster_gates = read.map(|r| sources::ClusterGates {
        argocd_cm: r.argocd_cm.map_err(|e| e.to_string()),
        argocd_namespace: &g.argocd_namespace,
        kustomizations: r.kustomizations.map_err(|e| e.to_string()),
    });
    let (mut argo, flux) = sources::choose(&files, cluster_gates, g.warning_blocks, now_unix)
        .map_err(|e| anyhow!(e))?;
    if let Some(dir) = &g.customizations_dir {
        let scripts = pacto_gates::argo::health::BuiltinScripts::load(dir)
            .map_err(|e| anyhow!("--customizations-dir: {e}"))?;
        if let Some(engine) = argo.engine.as_mut() {
            engine.builtins = Some(scripts);
        }
    }
    Ok((argo, flux))
}

/// With `-n`, only the objects of that namespace (kubectl would refuse the others).
pub(crate) fn in_namespace(o: &Value, namespace: Option<&str>) -> bool {
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

/// `kubectl pacto get`: Pactos here, Stages and Operations in [`crate::delivery`].
pub fn get(args: &GetArgs, global: &Global) -> Result<ExitCode> {
    let (listed, name) = get_resource(&args.resource, args.name.as_deref())?;
    if name.is_some() {
        if args.selector.is_some() {
            bail!("name cannot be provided when a selector is specified");
        }
        if args.all_namespaces {
            bail!("a resource cannot be retrieved by name across all namespaces");
        }
    }
    if !args.files.is_empty() && args.watch {
        bail!("-w/--watch follows the cluster: it cannot be used with -f");
    }
    // With -f the selector is matched here, as the API server matches it (kubectl filters
    // file objects by -l too).
    let file_selector = match (&args.selector, args.files.is_empty()) {
        (Some(s), false) => Some(
            pacto_gates::k8s::selector::Selector::parse(s)
                .map_err(|e| anyhow!("-l/--selector {e}"))?,
        ),
        _ => None,
    };
    let print = PrintOptions::new(
        args.output.as_deref(),
        args.no_headers,
        args.show_labels,
        args.sort_by.as_deref(),
    )?;
    match listed {
        Listed::Pactos => get_pactos(args, name, file_selector.as_ref(), &print, global),
        Listed::Stages => crate::delivery::get_stages(args, name, &print, global),
        Listed::Operations => crate::delivery::get_operations(args, name, &print, global),
    }
}

/// `kubectl pacto get pactos`.
fn get_pactos(
    args: &GetArgs,
    name: Option<String>,
    file_selector: Option<&pacto_gates::k8s::selector::Selector>,
    print: &PrintOptions,
    global: &Global,
) -> Result<ExitCode> {
    let now = global.now;
    let cluster_opts = ClusterOptions::new(&args.cluster)?;
    let namespace_given = cluster_opts.namespace.clone();
    let machine = !print.format.is_table();
    let (objects, gates, namespace) = block_on(async {
        let (objects, cluster, namespace) = if !args.files.is_empty() {
            let objs: Vec<Value> = object::read_values(&args.files)?
                .into_iter()
                .filter(is_pacto)
                .filter(|o| in_namespace(o, namespace_given.as_deref()))
                .filter(|o| file_selector.is_none_or(|sel| sel.matches(o)))
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
    let mut objects = objects;
    print.sort(&mut objects)?;
    let watched = Watched {
        group: GROUP,
        version: VERSION,
        kind: KIND,
        all_namespaces: args.all_namespaces,
        selector: args.selector.as_deref(),
        name: name.as_deref(),
        since: newest(&objects),
    };
    const PREFIX: &str = "pacto.pacto.trianalab.io";
    if let Some(out) = print.machine(PREFIX, &objects, name.is_some())? {
        write_stdout(&print.for_stdout(out, global.terminal))?;
        if args.watch {
            follow(&cluster_opts, &watched, |o| {
                print
                    .machine(PREFIX, std::slice::from_ref(o), true)
                    .ok()
                    .flatten()
                    .map(|out| print.for_stdout(out, global.terminal))
                    .unwrap_or_default()
            })?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if objects.is_empty() {
        let ns = namespace.as_deref().filter(|_| !args.all_namespaces);
        eprint!("{}", render::no_resources(ns));
        if !args.watch {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let (argo, flux) = match gates {
        Some(g) => g,
        None => block_on(async {
            let cluster = connect(&cluster_opts).await?;
            load_gates(&args.gates, Some(&cluster), now).await
        })?,
    };
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
    let labels = print.labels(&objects.iter().collect::<Vec<_>>());
    let options = TableOptions {
        // Files may mix namespaces: then the column is needed to tell rows apart.
        all_namespaces: args.all_namespaces
            || views.iter().any(|v| v.namespace != views[0].namespace),
        wide: matches!(print.format, OutputFormat::Wide),
        headers: !print.no_headers,
        labels: labels.as_deref(),
        min_widths: None,
        colour: global.colour,
        now,
    };
    let listing = if objects.is_empty() {
        String::new()
    } else {
        render::pacto_table(&rows, options)
    };
    list_then_follow(
        &cluster_opts,
        &watched,
        args.watch,
        print,
        &listing,
        options,
        |o, opts| {
            let view = PactoView::new(o);
            let decision = gate::decide(&argo, &flux, o);
            render::pacto_table(
                &[PactoRow {
                    view: &view,
                    decision: &decision,
                }],
                opts,
            )
        },
    )?;
    Ok(ExitCode::SUCCESS)
}
