//! `get stages|operations`, and the Stage and Operation reports of `explain`: read the delivery
//! objects (from the cluster with one list per kind, or from files), hand them to the library's
//! views and computation, print the notes on stderr and the tables or reports on stdout.

use crate::live::{block_on, connect, in_namespace};
use crate::watching::{follow, list_then_follow, newest, Watched};
use crate::write_stdout;
use anyhow::{bail, Result};
use kubectl_pacto::cli::GetArgs;
use kubectl_pacto::options::{ClusterOptions, Global};
use kubectl_pacto::printer::{OutputFormat, PrintOptions};
use kubectl_pacto::resource::{Listed, DELIVERY_GROUP, DELIVERY_VERSION};
use pacto_gates::cluster::{self, Cluster, ClusterError, DeliveryQuery, Scope};
use pacto_gates::delivery::explain;
use pacto_gates::delivery::view::{ApprovalView, OperationView, Snapshot, StageView};
use pacto_gates::delivery::{compute, World};
use pacto_gates::k8s::selector::Selector;
use pacto_gates::kinds;
use pacto_gates::object;
use pacto_gates::pacto::explain::Report;
use pacto_gates::render::{self, StageRow, TableOptions};
use serde_json::Value;
use std::process::ExitCode;

/// The delivery objects a command works on, each kind as read.
#[derive(Debug, Default)]
pub(crate) struct Objects {
    /// Every Stage read (the upstream chain may lead to any of them).
    pub stages: Vec<Value>,
    pub operations: Vec<Value>,
    pub approvals: Vec<Value>,
    /// The kinds a Stage's conditions read, for [`World`].
    pub snapshot: Snapshot,
    /// Why Stages or Approvals that an Operation report reads are not known.
    pub notes: Vec<String>,
    /// The views of the snapshot, built once for every report.
    pub world: std::cell::OnceCell<World>,
}

impl Objects {
    /// The objects of files: a kind absent from them counts as read and empty.
    pub(crate) fn from_files(all: &[Value]) -> Objects {
        let snapshot = Snapshot::from_objects(all);
        Objects {
            stages: snapshot.stages.clone(),
            operations: kinds::OPERATION.select(all),
            approvals: kinds::APPROVAL.select(all),
            snapshot,
            notes: Vec::new(),
            world: Default::default(),
        }
    }

    fn world(&self) -> &World {
        self.world.get_or_init(|| World::new(&self.snapshot))
    }
}

/// A kind the command lists or explains: it must be read (a kind not installed is the error
/// that says so).
fn primary(read: cluster::Read) -> Result<Vec<Value>> {
    Ok(read.transpose()?.unwrap_or_default())
}

/// A kind a Stage depends on, as [`Snapshot`] takes it: None when not installed.
fn listed(read: cluster::Read) -> pacto_gates::delivery::view::Listed {
    match read {
        None => Some(Ok(Vec::new())),
        Some(Ok(items)) => Some(Ok(items)),
        Some(Err(ClusterError::NotInstalled { .. })) => None,
        Some(Err(e)) => Some(Err(e.to_string())),
    }
}

/// A kind an Operation report reads: the objects, or none and a note saying why.
fn or_note(read: cluster::Read, what: &str, notes: &mut Vec<String>) -> Vec<Value> {
    match read {
        None => Vec::new(),
        Some(Ok(items)) => items,
        Some(Err(ClusterError::NotInstalled { .. })) => {
            notes.push(format!(
                "{what} are not installed in this cluster: none apply"
            ));
            Vec::new()
        }
        Some(Err(e)) => {
            notes.push(format!("{what} could not be read: {e}"));
            Vec::new()
        }
    }
}

/// The appliers' kinds of a cluster, for the snapshot.
pub(crate) async fn read_appliers(c: &Cluster, snapshot: &mut Snapshot) {
    let read = c
        .delivery_objects(&DeliveryQuery {
            appliers: true,
            ..Default::default()
        })
        .await;
    snapshot.oci_repositories = listed(read.oci_repositories);
    snapshot.kustomizations = listed(read.kustomizations);
    snapshot.applications = listed(read.applications);
}

fn print_notes(notes: &[String]) {
    let mut seen: Vec<&String> = Vec::new();
    for n in notes {
        if !seen.contains(&n) {
            eprintln!("note: {}", render::one_line(n));
            seen.push(n);
        }
    }
}

fn name_of(o: &Value) -> Option<&str> {
    o.pointer("/metadata/name").and_then(Value::as_str)
}

/// The objects of a listing that are shown: in the namespace (None: all), with the name, matching
/// the selector.
fn shown(
    all: &[Value],
    namespace: Option<&str>,
    name: Option<&str>,
    selector: &Selector,
) -> Vec<Value> {
    all.iter()
        .filter(|o| in_namespace(o, namespace))
        .filter(|o| name.is_none_or(|n| name_of(o) == Some(n)))
        .filter(|o| selector.matches(o))
        .cloned()
        .collect()
}

/// The error for a named object that was not read.
fn not_found(listed: Listed, name: &str, namespace: Option<&str>) -> anyhow::Error {
    match namespace {
        Some(ns) => ClusterError::NotFound {
            resource: listed.resource(),
            name: name.to_string(),
            scope: format!(" in namespace \"{ns}\""),
        }
        .into(),
        None => anyhow::anyhow!(
            "{} \"{name}\" not found in the files given",
            listed.kind().to_ascii_lowercase()
        ),
    }
}

/// Machine output of a listing (`-o name|json|yaml`), or None for a table.
fn table_options<'a>(
    args: &GetArgs,
    print: &PrintOptions,
    global: &Global,
    namespaces: Vec<&str>,
    labels: Option<&'a [String]>,
) -> TableOptions<'a> {
    TableOptions {
        // Files may mix namespaces: then the column is needed to tell rows apart.
        all_namespaces: args.all_namespaces || namespaces.windows(2).any(|w| w[0] != w[1]),
        wide: matches!(print.format, OutputFormat::Wide),
        headers: !print.no_headers,
        labels,
        min_widths: None,
        colour: global.colour,
        now: global.now,
    }
}

/// `-l` read before anything is asked of the cluster: Stages are matched here, after the one
/// list of every Stage the upstream chains need.
fn selector(args: &GetArgs) -> Result<Selector> {
    match args.selector.as_deref() {
        None => Ok(Selector::default()),
        Some(s) => Selector::parse(s).map_err(|e| anyhow::anyhow!("-l/--selector {e}")),
    }
}

/// `kubectl pacto get stages`: every Stage is listed once (the upstream chain of a shown Stage
/// may lead to another namespace), and the shown ones are picked here by namespace, name and
/// selector; their appliers' kinds are read only for a table.
pub fn get_stages(
    args: &GetArgs,
    name: Option<String>,
    print: &PrintOptions,
    global: &Global,
) -> Result<ExitCode> {
    let cluster_opts = ClusterOptions::new(&args.cluster)?;
    let selector = selector(args)?;
    let listed = Listed::Stages;
    let table = print.format.is_table();
    let (objects, namespace) = if !args.files.is_empty() {
        let all: Vec<Value> = object::read_values(&args.files)?;
        let ns = cluster_opts
            .namespace
            .clone()
            .filter(|_| !args.all_namespaces);
        (Objects::from_files(&all), ns)
    } else {
        block_on(async {
            let c = connect(&cluster_opts).await?;
            let read = c
                .delivery_objects(&DeliveryQuery {
                    stages: Some(Scope::All),
                    ..Default::default()
                })
                .await;
            let stages = primary(read.stages)?;
            let ns = cluster_opts
                .namespace
                .clone()
                .unwrap_or_else(|| c.default_namespace.clone());
            let ns = (!args.all_namespaces).then_some(ns);
            let any_shown = !shown(&stages, ns.as_deref(), name.as_deref(), &selector).is_empty();
            let mut objects = Objects {
                snapshot: Snapshot {
                    stages: stages.clone(),
                    ..Default::default()
                },
                stages,
                ..Default::default()
            };
            if table && any_shown {
                read_appliers(&c, &mut objects.snapshot).await;
            }
            Ok::<_, anyhow::Error>((objects, ns))
        })?
    };
    let mut stages = shown(
        &objects.stages,
        namespace.as_deref(),
        name.as_deref(),
        &selector,
    );
    print.sort(&mut stages)?;
    if let (Some(n), true) = (&name, stages.is_empty()) {
        let ns = namespace.as_deref().filter(|_| args.files.is_empty());
        return Err(not_found(listed, n, ns));
    }
    let watched = watched(args, listed, name.as_deref(), newest(&stages));
    let shown = Shown {
        listed,
        objects: &stages,
        named: name.is_some(),
        namespace: namespace.as_deref(),
    };
    if machine_or_empty(args, print, global, &cluster_opts, &watched, &shown)? {
        return Ok(ExitCode::SUCCESS);
    }
    let world = objects.world();
    let views: Vec<StageView> = stages.iter().map(StageView::new).collect();
    let computed: Vec<_> = views.iter().map(|v| compute(v, world)).collect();
    let mut notes = world.notes.clone();
    for c in &computed {
        notes.extend(c.unreadable.iter().cloned());
    }
    print_notes(&notes);
    let rows: Vec<StageRow> = views
        .iter()
        .zip(&computed)
        .map(|(view, computed)| StageRow { view, computed })
        .collect();
    let namespaces = views.iter().map(|v| v.this.namespace.as_str()).collect();
    let labels = print.labels(&stages.iter().collect::<Vec<_>>());
    let options = table_options(args, print, global, namespaces, labels.as_deref());
    let listing = if stages.is_empty() {
        String::new()
    } else {
        render::stage_table(&rows, options)
    };
    // Appliers are those read with the listing; each change is judged against them.
    list_then_follow(
        &cluster_opts,
        &watched,
        args.watch,
        print,
        &listing,
        options,
        |o, opts| {
            let view = StageView::new(o);
            let computed = compute(&view, world);
            render::stage_table(
                &[StageRow {
                    view: &view,
                    computed: &computed,
                }],
                opts,
            )
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What `-w` follows for a delivery kind.
fn watched<'a>(
    args: &'a GetArgs,
    listed: Listed,
    name: Option<&'a str>,
    since: u64,
) -> Watched<'a> {
    Watched {
        group: DELIVERY_GROUP,
        version: DELIVERY_VERSION,
        kind: listed.kind(),
        all_namespaces: args.all_namespaces,
        selector: args.selector.as_deref(),
        name,
        since,
    }
}

/// What a listing shows, for [`machine_or_empty`].
struct Shown<'a> {
    listed: Listed,
    objects: &'a [Value],
    named: bool,
    namespace: Option<&'a str>,
}

/// The output of a listing that needs no table: a machine format (then `-w` follows it), or
/// kubectl's "No resources found" (then, without `-w`, the listing is done). True when nothing
/// is left to print.
fn machine_or_empty(
    args: &GetArgs,
    print: &PrintOptions,
    global: &Global,
    c: &ClusterOptions,
    watched: &Watched<'_>,
    shown: &Shown<'_>,
) -> Result<bool> {
    if let Some(out) = print.machine(&shown.listed.name_prefix(), shown.objects, shown.named)? {
        write_stdout(&print.for_stdout(out, global.terminal))?;
        if args.watch {
            follow_machine(c, watched, print, shown.listed, global.terminal)?;
        }
        return Ok(true);
    }
    if shown.objects.is_empty() {
        eprint!("{}", render::no_resources(shown.namespace));
        return Ok(!args.watch);
    }
    Ok(false)
}

/// `-w` with a machine format: each changed object printed alone in that format.
fn follow_machine(
    c: &ClusterOptions,
    watched: &Watched<'_>,
    print: &PrintOptions,
    listed: Listed,
    terminal: bool,
) -> Result<()> {
    let prefix = listed.name_prefix();
    follow(c, watched, |o| {
        print
            .machine(&prefix, std::slice::from_ref(o), true)
            .ok()
            .flatten()
            .map(|out| print.for_stdout(out, terminal))
            .unwrap_or_default()
    })
}

/// `kubectl pacto get operations`: one GET for a name, else one list (the selector goes to the
/// API server, as for Pactos).
pub fn get_operations(
    args: &GetArgs,
    name: Option<String>,
    print: &PrintOptions,
    global: &Global,
) -> Result<ExitCode> {
    let cluster_opts = ClusterOptions::new(&args.cluster)?;
    let selector = selector(args)?;
    let listed = Listed::Operations;
    let (ops, namespace) = if !args.files.is_empty() {
        let all: Vec<Value> = object::read_values(&args.files)?;
        let ns = cluster_opts
            .namespace
            .clone()
            .filter(|_| !args.all_namespaces);
        let ops = shown(
            &Objects::from_files(&all).operations,
            ns.as_deref(),
            name.as_deref(),
            &selector,
        );
        if let (Some(n), true) = (&name, ops.is_empty()) {
            return Err(not_found(listed, n, None));
        }
        (ops, ns)
    } else {
        block_on(async {
            let c = connect(&cluster_opts).await?;
            let kind = c
                .discover(DELIVERY_GROUP, DELIVERY_VERSION, listed.kind())
                .await?;
            let ns = cluster_opts
                .namespace
                .clone()
                .unwrap_or_else(|| c.default_namespace.clone());
            let ops = match &name {
                Some(n) => vec![c.get(&kind, &ns, n).await?],
                None => {
                    let scope = if args.all_namespaces {
                        Scope::All
                    } else {
                        Scope::Namespace(&ns)
                    };
                    c.list(&kind, scope, args.selector.as_deref()).await?
                }
            };
            Ok::<_, anyhow::Error>((ops, (!args.all_namespaces).then_some(ns)))
        })?
    };
    let mut ops = ops;
    print.sort(&mut ops)?;
    let watched = watched(args, listed, name.as_deref(), newest(&ops));
    let shown = Shown {
        listed,
        objects: &ops,
        named: name.is_some(),
        namespace: namespace.as_deref(),
    };
    if machine_or_empty(args, print, global, &cluster_opts, &watched, &shown)? {
        return Ok(ExitCode::SUCCESS);
    }
    let views: Vec<OperationView> = ops.iter().map(OperationView::new).collect();
    let namespaces = views.iter().map(|v| v.this.namespace.as_str()).collect();
    let labels = print.labels(&ops.iter().collect::<Vec<_>>());
    let options = table_options(args, print, global, namespaces, labels.as_deref());
    let listing = if ops.is_empty() {
        String::new()
    } else {
        render::operation_table(&views, options)
    };
    list_then_follow(
        &cluster_opts,
        &watched,
        args.watch,
        print,
        &listing,
        options,
        |o, opts| render::operation_table(&[OperationView::new(o)], opts),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The report of one Stage ([`explain::stage_report`]).
pub(crate) fn stage_report(objects: &Objects, stage: &Value) -> Report {
    explain::stage_report(&StageView::new(stage), objects.world())
}

/// The report of one Operation ([`explain::operation_report`]).
pub(crate) fn operation_report(objects: &Objects, op: &Value) -> Report {
    let stages: Vec<StageView> = objects.stages.iter().map(StageView::new).collect();
    let approvals: Vec<ApprovalView> = objects.approvals.iter().map(ApprovalView::new).collect();
    explain::operation_report(&OperationView::new(op), &stages, &approvals, &objects.notes)
}

/// `explain stage/NAME` from the cluster: every Stage (for the upstream chain), then the
/// appliers' kinds.
pub(crate) fn explain_stage(c: &ClusterOptions, name: &str) -> Result<Report> {
    block_on(async {
        let cluster = connect(c).await?;
        let ns = c
            .namespace
            .clone()
            .unwrap_or_else(|| cluster.default_namespace.clone());
        let read = cluster
            .delivery_objects(&DeliveryQuery {
                stages: Some(Scope::All),
                ..Default::default()
            })
            .await;
        let stages = primary(read.stages)?;
        let Some(stage) = shown(&stages, Some(&ns), Some(name), &Selector::default()).pop() else {
            return Err(not_found(Listed::Stages, name, Some(&ns)));
        };
        let mut objects = Objects {
            snapshot: Snapshot {
                stages: stages.clone(),
                ..Default::default()
            },
            stages,
            ..Default::default()
        };
        read_appliers(&cluster, &mut objects.snapshot).await;
        Ok(stage_report(&objects, &stage))
    })
}

/// `explain operation/NAME` from the cluster: the Operations, Stages and Approvals of its
/// namespace, one list each.
pub(crate) fn explain_operation(c: &ClusterOptions, name: &str) -> Result<Report> {
    block_on(async {
        let cluster = connect(c).await?;
        let ns = c
            .namespace
            .clone()
            .unwrap_or_else(|| cluster.default_namespace.clone());
        let here = Some(Scope::Namespace(&ns));
        let read = cluster
            .delivery_objects(&DeliveryQuery {
                stages: here,
                operations: here,
                approvals: here,
                appliers: false,
            })
            .await;
        let ops = primary(read.operations)?;
        let Some(op) = ops.into_iter().find(|o| name_of(o) == Some(name)) else {
            return Err(not_found(Listed::Operations, name, Some(&ns)));
        };
        let mut notes = Vec::new();
        let stages = or_note(
            read.stages,
            "Stages (delivery.pacto.trianalab.io)",
            &mut notes,
        );
        let approvals = or_note(
            read.approvals,
            "Approvals (delivery.pacto.trianalab.io)",
            &mut notes,
        );
        let objects = Objects {
            stages,
            approvals,
            notes,
            ..Default::default()
        };
        Ok(operation_report(&objects, &op))
    })
}

/// With `-f` and no KIND/NAME, which objects are explained: every object, but the kinds Stages
/// and Operations depend on only when the files hold neither.
pub(crate) fn explained_objects(objects: Vec<Value>) -> Vec<Value> {
    let delivery = objects
        .iter()
        .any(|o| Listed::Stages.is(o) || Listed::Operations.is(o));
    if !delivery {
        return objects;
    }
    objects
        .into_iter()
        .filter(|o| !kinds::is_dependency(o))
        .collect()
}

/// Refuses a KIND/NAME that names nothing of the files.
pub(crate) fn require_some(objects: &[Value], what: Option<&str>) -> Result<()> {
    if objects.is_empty() {
        match what {
            Some(t) => bail!("{t} is not in the files given"),
            None => bail!("no objects in the files given"),
        }
    }
    Ok(())
}
