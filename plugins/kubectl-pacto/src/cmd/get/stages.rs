//! `kubectl pacto get stages`: the Stages of the namespace are listed once (every Stage with
//! `-A`; the one named is read on its own), and the shown ones are picked here by name and
//! selector; what they are judged on (their upstream Stages, and the kinds they depend on in
//! the namespaces they and their references name) is read only for a table, and each Stage's
//! conditions are computed against it.

use super::listing::{self, Listing, Rows};
use super::options::Options;
use crate::io::connect::{block_on_within, connect, namespace};
use crate::io::delivery::{read_stages, Objects, StageScope};
use crate::io::select::{not_found, shown, shown_in};
use anyhow::Result;
use kubectl_pacto::resource::ResourceType;
use pacto_gates::delivery::{compute, Computed, StageView, World};
use pacto_gates::object;
use pacto_gates::render::{self, StageRow, TableOptions};
use serde_json::Value;
use std::borrow::Cow;
use std::process::ExitCode;

pub(super) fn run(o: &Options<'_>) -> Result<ExitCode> {
    let args = o.args;
    let name = o.name.as_deref();
    let table = o.print.format.is_table();
    let (objects, namespace) = if !args.files.is_empty() {
        let all: Vec<Value> = object::read_values(&args.files)?;
        let ns = o.cluster.namespace.clone().filter(|_| !args.all_namespaces);
        (Objects::from_files(all), ns)
    } else {
        block_on_within(o.cluster.connect.deadline, async {
            let c = connect(&o.cluster).await?;
            let ns = (!args.all_namespaces).then_some(namespace(&o.cluster, &c));
            let scope = match (ns.as_deref(), name) {
                (None, _) => StageScope::All,
                (Some(ns), Some(n)) => StageScope::Named(ns, n),
                (Some(ns), None) => StageScope::Namespace(ns),
            };
            let mut objects = read_stages(&c, scope).await?;
            let picked = shown(objects.stages(), ns.as_deref(), name, &o.selector);
            if table && !picked.is_empty() {
                objects
                    .read_for(&c, &picked, &args.gates.argocd_namespace)
                    .await;
            }
            Ok::<_, anyhow::Error>((objects, ns))
        })?
    };
    let picked = shown_in(objects.stages(), namespace.as_deref(), name, &o.selector);
    // Every Stage read is shown (files, or -A): the listing borrows them, as the world does.
    let stages: Cow<[Value]> = if picked.len() == objects.stages().len() {
        Cow::Borrowed(objects.stages())
    } else {
        Cow::Owned(picked.into_iter().cloned().collect())
    };
    if let (Some(n), true) = (name, stages.is_empty()) {
        let ns = namespace.as_deref().filter(|_| args.files.is_empty());
        return Err(not_found(ResourceType::Stages, n, ns));
    }
    // Every Stage was listed, more than the watch covers: `-w` lists what it watches first.
    let listing = Listing {
        objects: stages,
        namespace,
        resource_version: None,
    };
    // The kinds they depend on are those read with the listing, into a world only for a table
    // (once: every row, and with -w each change, is judged against it).
    let world = std::cell::OnceCell::new();
    let printed = listing::print(o, listing, |stages| {
        Ok(StageRows::new(
            world.get_or_init(|| objects.world()),
            stages,
        ))
    });
    // The process ends with the listing: what was read is left to it rather than freed object
    // by object (a tenth of a second for ten thousand Stages and what they depend on).
    std::mem::forget(world);
    std::mem::forget(objects);
    printed
}

/// The Stages' table: each with its conditions as computed here (the views are read from the
/// listing's objects again when the table is laid out: they borrow from them).
struct StageRows<'w, 'a> {
    world: &'w World<'a>,
    mixed: bool,
    computed: Vec<Computed>,
}

/// The world's view of `o` when the world read this very object (a listing of every Stage
/// read borrows the world's objects), else a view of its own.
fn view_of<'v>(world: &'v World<'v>, o: &'v Value) -> Cow<'v, StageView<'v>> {
    let this = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("");
    match world.stage(this("/metadata/namespace"), this("/metadata/name")) {
        Some(v) if std::ptr::eq(v.object, o) => Cow::Borrowed(v),
        _ => Cow::Owned(StageView::new(o)),
    }
}

impl<'w, 'a> StageRows<'w, 'a> {
    fn new(world: &'w World<'a>, stages: &[Value]) -> StageRows<'w, 'a> {
        let views: Vec<_> = stages.iter().map(|o| view_of(world, o)).collect();
        let computed = views.iter().map(|v| compute(v, world)).collect();
        StageRows {
            world,
            mixed: listing::mixed(views.iter().map(|v| v.this.namespace)),
            computed,
        }
    }
}

impl Rows for StageRows<'_, '_> {
    fn notes(&self) -> Vec<String> {
        let mut notes = self.world.notes.clone();
        for c in &self.computed {
            notes.extend(c.unreadable.iter().cloned());
        }
        notes
    }

    fn mixed_namespaces(&self) -> bool {
        self.mixed
    }

    fn table(&self, objects: &[Value], options: TableOptions<'_>) -> String {
        let views: Vec<_> = objects.iter().map(|o| view_of(self.world, o)).collect();
        let rows: Vec<StageRow> = views
            .iter()
            .zip(&self.computed)
            .map(|(view, computed)| StageRow { view, computed })
            .collect();
        render::stage_table(&rows, options)
    }

    fn row(&self, o: &Value, options: TableOptions<'_>) -> String {
        let view = StageView::new(o);
        let computed = compute(&view, self.world);
        render::stage_table(
            &[StageRow {
                view: &view,
                computed: &computed,
            }],
            options,
        )
    }
}
