//! `kubectl pacto get pactos`: the Pactos of the cluster (one GET for a name, else one paged
//! list, the selector applied by the API server) or of files, judged by the gates (files given,
//! else the cluster's, else the recommended gate), which are read only for a table.

use super::listing::{self, Listing, Rows};
use super::options::Options;
use crate::io::connect::{block_on_within, connect, namespace, scope};
use crate::io::gates::load_gates;
use crate::io::select::{in_namespace, name_of};
use anyhow::{bail, Result};
use kubectl_pacto::options::ClusterOptions;
use pacto_gates::kinds::PACTO;
use pacto_gates::object;
use pacto_gates::pacto::gate::{self, ArgoGate, Decision, FluxGate};
use pacto_gates::pacto::view::PactoView;
use pacto_gates::render::{self, PactoRow, TableOptions};
use serde_json::Value;
use std::process::ExitCode;

pub(super) fn run(o: &Options<'_>) -> Result<ExitCode> {
    let (listing, gates) = read(o, &o.cluster)?;
    listing::print(o, listing, |objects| {
        let (argo, flux) = match gates {
            Some(g) => g,
            None => block_on_within(o.cluster.connect.deadline, async {
                let cluster = connect(&o.cluster).await?;
                load_gates(&o.args.gates, Some(&cluster), o.global.now).await
            })?,
        };
        if let Some(engine) = &argo.engine {
            let pacto = format!("{}/{}", PACTO.group, PACTO.kind);
            crate::io::gates::warn_mistyped_keys(engine, &[pacto]);
        }
        Ok(PactoRows::new(argo, flux, objects))
    })
}

/// The Pactos of the cluster `c` (or of the files), and the gates when a table will need them
/// (read on the same connection).
fn read(
    o: &Options<'_>,
    c: &ClusterOptions,
) -> Result<(Listing<'static>, Option<(ArgoGate, FluxGate)>)> {
    let args = o.args;
    let name = o.name.as_deref();
    let machine = !o.print.format.is_table();
    block_on_within(c.connect.deadline, async {
        let (objects, cluster, namespace) = if !args.files.is_empty() {
            let all = object::read_values(&args.files)?;
            if let Some(hint) = kubectl_pacto::cli::other_kinds_hint(&all) {
                crate::io::output::note(&hint);
            }
            let objs: Vec<Value> = all
                .into_iter()
                .filter(|p| PACTO.is(p))
                .filter(|p| in_namespace(p, c.namespace.as_deref()))
                .filter(|p| o.selector.matches(p))
                .filter(|p| name.is_none_or(|n| name_of(p) == Some(n)))
                .collect();
            if let (Some(n), true) = (name, objs.is_empty()) {
                bail!("pacto \"{n}\" not found in the files given");
            }
            (objs, None, None)
        } else {
            let cluster = connect(c).await?;
            let kind = cluster
                .discover(PACTO.group, PACTO.version, PACTO.kind)
                .await?;
            let ns = namespace(c, &cluster);
            let (objs, rv) = match name {
                Some(n) => (vec![cluster.get(&kind, &ns, n).await?], None),
                None => {
                    let list = cluster
                        .list(
                            &kind,
                            scope(args.all_namespaces, &ns),
                            args.selector.as_deref(),
                        )
                        .await?;
                    (list.items, Some(list.resource_version))
                }
            };
            (objs, Some((cluster, rv)), Some(ns))
        };
        let (cluster, resource_version) = cluster.unzip();
        let resource_version = resource_version.flatten();
        let gates = if machine || objects.is_empty() {
            None
        } else {
            Some(load_gates(&args.gates, cluster.as_ref(), o.global.now).await?)
        };
        let namespace = namespace.filter(|_| !args.all_namespaces);
        Ok((
            Listing {
                objects: objects.into(),
                namespace,
                resource_version,
            },
            gates,
        ))
    })
}

/// One context's Pactos for a table across contexts ([`super::contexts`]): the objects, sorted
/// as `--sort-by` asks, each with its view and what that cluster's gates decide. Errors: as
/// `get pactos` against that cluster alone.
pub(super) fn judged(
    o: &Options<'_>,
    c: &ClusterOptions,
) -> Result<(Vec<Value>, Vec<PactoView>, Vec<Decision>)> {
    let (listing, gates) = read(o, c)?;
    let mut objects = listing.objects.into_owned();
    o.print.sort(&mut objects)?;
    let Some((argo, flux)) = gates else {
        return Ok((objects, Vec::new(), Vec::new()));
    };
    let rows = PactoRows::new(argo, flux, &objects);
    Ok((objects, rows.views, rows.decisions))
}

/// The Pactos' table: each judged by the gates.
struct PactoRows {
    argo: ArgoGate,
    flux: FluxGate,
    views: Vec<PactoView>,
    decisions: Vec<Decision>,
}

impl PactoRows {
    fn new(argo: ArgoGate, flux: FluxGate, objects: &[Value]) -> PactoRows {
        let views = objects.iter().map(PactoView::new).collect();
        let decisions = objects
            .iter()
            .map(|p| gate::decide(&argo, &flux, p))
            .collect();
        PactoRows {
            argo,
            flux,
            views,
            decisions,
        }
    }
}

impl Rows for PactoRows {
    fn notes(&self) -> Vec<String> {
        gate::notes(&self.decisions)
    }

    fn mixed_namespaces(&self) -> bool {
        listing::mixed(self.views.iter().map(|v| v.namespace.as_str()))
    }

    fn table(&self, _: &[Value], options: TableOptions<'_>) -> String {
        let rows: Vec<PactoRow> = self
            .views
            .iter()
            .zip(&self.decisions)
            .map(|(view, decision)| PactoRow { view, decision })
            .collect();
        render::pacto_table(&rows, options)
    }

    fn row(&self, o: &Value, options: TableOptions<'_>) -> String {
        let view = PactoView::new(o);
        let decision = gate::decide(&self.argo, &self.flux, o);
        render::pacto_table(
            &[PactoRow {
                view: &view,
                decision: &decision,
            }],
            options,
        )
    }
}
