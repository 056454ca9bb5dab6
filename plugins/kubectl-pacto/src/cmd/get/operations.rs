//! `kubectl pacto get operations`: one GET for a name, else one paged list (the selector goes
//! to the API server, as for Pactos); or the Operations of files. A table with a Held
//! operation reads the Approvals too (of the files, or one list in the namespace), so that
//! WAITING-ON says when an Approval counts and the promoter takes it.

use super::listing::{self, Listing, Rows};
use super::options::Options;
use crate::io::connect::{block_on_within, connect, namespace, scope};
use crate::io::select::{not_found, shown};
use anyhow::Result;
use kubectl_pacto::options::ClusterOptions;
use kubectl_pacto::resource::ResourceType;
use pacto_gates::delivery::operation::approved;
use pacto_gates::delivery::view::{ApprovalView, OperationView};
use pacto_gates::kinds::{APPROVAL, OPERATION};
use pacto_gates::object;
use pacto_gates::render::{self, TableOptions};
use serde_json::Value;
use std::process::ExitCode;

pub(super) fn run(o: &Options<'_>) -> Result<ExitCode> {
    let args = o.args;
    let name = o.name.as_deref();
    let mut file_approvals = None;
    let (objects, namespace, resource_version) = if !args.files.is_empty() {
        let all: Vec<Value> = object::read_values(&args.files)?;
        let ns = o.cluster.namespace.clone().filter(|_| !args.all_namespaces);
        let ops = shown(&OPERATION.select(&all), ns.as_deref(), name, &o.selector);
        if let (Some(n), true) = (name, ops.is_empty()) {
            return Err(not_found(ResourceType::Operations, n, None));
        }
        file_approvals = Some(APPROVAL.select(&all));
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
        let held = ops.iter().any(|o| OperationView::new(o).phase == "Held");
        let (approvals, notes) = match file_approvals {
            Some(a) => (a, Vec::new()),
            None if held => approvals_of(&o.cluster, args.all_namespaces)?,
            None => (Vec::new(), Vec::new()),
        };
        Ok(OperationRows {
            mixed: listing::mixed(ops.iter().map(|o| OperationView::new(o).this.namespace)),
            approvals,
            notes,
        })
    })
}

/// The Approvals of the namespace (of every namespace with `-A`) from the cluster, one list;
/// when they cannot be read, a note saying WAITING-ON cannot tell an approved operation.
fn approvals_of(c: &ClusterOptions, all_namespaces: bool) -> Result<(Vec<Value>, Vec<String>)> {
    block_on_within(c.connect.deadline, async {
        let cluster = connect(c).await?;
        let ns = namespace(c, &cluster);
        let read = async {
            let kind = cluster
                .discover(APPROVAL.group, APPROVAL.version, APPROVAL.kind)
                .await?;
            cluster
                .list(&kind, scope(all_namespaces, &ns), None)
                .await
                .map(|l| l.items)
        };
        Ok(match read.await {
            Ok(items) => (items, Vec::new()),
            Err(pacto_gates::cluster::ClusterError::NotInstalled { .. }) => (Vec::new(), Vec::new()),
            Err(e) => (
                Vec::new(),
                vec![format!("Approvals could not be read ({e}): WAITING-ON names the gates of a Held operation even if an Approval counts for it")],
            ),
        })
    })
}

/// The Operations' table (its views are read from the listing's objects again when it is
/// laid out: they borrow from them).
struct OperationRows {
    mixed: bool,
    /// The Approvals read (those of the files, or of the namespace when an operation is Held).
    approvals: Vec<Value>,
    notes: Vec<String>,
}

impl OperationRows {
    /// Whether an Approval counts for each operation.
    fn approved(&self, views: &[OperationView]) -> Vec<bool> {
        let approvals: Vec<ApprovalView> = self.approvals.iter().map(ApprovalView::new).collect();
        views.iter().map(|op| approved(op, &approvals)).collect()
    }
}

impl Rows for OperationRows {
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn mixed_namespaces(&self) -> bool {
        self.mixed
    }

    fn table(&self, objects: &[Value], options: TableOptions<'_>) -> String {
        let views: Vec<OperationView> = objects.iter().map(OperationView::new).collect();
        render::operation_table(&views, &self.approved(&views), options)
    }

    fn row(&self, o: &Value, options: TableOptions<'_>) -> String {
        let views = [OperationView::new(o)];
        render::operation_table(&views, &self.approved(&views), options)
    }
}
