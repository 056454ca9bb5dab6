//! `kubectl pacto get operations`: one GET for a name, else one paged list (the selector goes
//! to the API server, as for Pactos); or the Operations of files.

use super::listing::{self, Listing, Rows};
use super::options::Options;
use crate::io::connect::{block_on_within, connect, namespace, scope};
use crate::io::select::{not_found, shown};
use anyhow::Result;
use kubectl_pacto::resource::ResourceType;
use pacto_gates::delivery::view::OperationView;
use pacto_gates::kinds::OPERATION;
use pacto_gates::object;
use pacto_gates::render::{self, TableOptions};
use serde_json::Value;
use std::process::ExitCode;

pub(super) fn run(o: &Options<'_>) -> Result<ExitCode> {
    let args = o.args;
    let name = o.name.as_deref();
    let (objects, namespace, resource_version) = if !args.files.is_empty() {
        let all: Vec<Value> = object::read_values(&args.files)?;
        let ns = o.cluster.namespace.clone().filter(|_| !args.all_namespaces);
        let ops = shown(&OPERATION.select(&all), ns.as_deref(), name, &o.selector);
        if let (Some(n), true) = (name, ops.is_empty()) {
            return Err(not_found(ResourceType::Operations, n, None));
        }
        (ops, ns, None)
    } else {
        block_on_within(o.cluster.connect.deadline, async {
            let c = connect(&o.cluster).await?;
            let kind = c
                .discover(OPERATION.group, OPERATION.version, OPERATION.kind)
                .await?;
            let ns = namespace(&o.cluster, &c);
            let (ops, rv) = match name {
                Some(n) => (vec![c.get(&kind, &ns, n).await?], None),
                None => {
                    let list = c
                        .list(
                            &kind,
                            scope(args.all_namespaces, &ns),
                            args.selector.as_deref(),
                        )
                        .await?;
                    (list.items, Some(list.resource_version))
                }
            };
            Ok::<_, anyhow::Error>((ops, (!args.all_namespaces).then_some(ns), rv))
        })?
    };
    let listing = Listing {
        objects: objects.into(),
        namespace,
        resource_version,
    };
    listing::print(o, listing, |ops| {
        Ok(OperationRows {
            mixed: listing::mixed(ops.iter().map(|o| OperationView::new(o).this.namespace)),
        })
    })
}

/// The Operations' table (its views are read from the listing's objects again when it is
/// laid out: they borrow from them).
struct OperationRows {
    mixed: bool,
}

impl Rows for OperationRows {
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    fn mixed_namespaces(&self) -> bool {
        self.mixed
    }

    fn table(&self, objects: &[Value], options: TableOptions<'_>) -> String {
        let views: Vec<OperationView> = objects.iter().map(OperationView::new).collect();
        render::operation_table(&views, options)
    }

    fn row(&self, o: &Value, options: TableOptions<'_>) -> String {
        render::operation_table(&[OperationView::new(o)], options)
    }
}
