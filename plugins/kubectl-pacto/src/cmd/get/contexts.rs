//! `kubectl pacto get pactos` across contexts (`--context a,b`, `--all-contexts`): each context
//! read at once on a thread of its own (its own connection and deadline), as `get pactos` reads
//! one cluster and judged by that cluster's gates (its argocd-cm, its Kustomizations), then one
//! table with a CONTEXT column first, the contexts in the order named (`--all-contexts`: in
//! byte order, as `kubectl config get-contexts` lists them). A context that cannot be read is
//! an `error: context "NAME": ...` line on stderr after the table of the others, and the run
//! exits 1: one exit code for the whole run.

use super::options::Options;
use super::pactos;
use crate::io::output::{print_notes, write_stdout};
use anyhow::{bail, Result};
use kubectl_pacto::printer::OutputFormat;
use kubectl_pacto::resource::ResourceType;
use pacto_gates::pacto::gate::{self, Decision};
use pacto_gates::pacto::view::PactoView;
use pacto_gates::render::{self, PactoRow, TableOptions};
use serde_json::Value;
use std::process::ExitCode;

/// One context's Pactos, judged.
type Judged = (Vec<Value>, Vec<PactoView>, Vec<Decision>);

/// Prints the Pactos of every context of `contexts` in one table. Errors (before any request):
/// a kind other than pactos, a machine format; per context: printed after the table, exit 1.
pub(super) fn run(o: &Options<'_>, contexts: &[String]) -> Result<ExitCode> {
    if o.listed != ResourceType::Pactos {
        bail!(
            "several contexts are read for pactos only: get {} reads one context (--context NAME)",
            o.args.resource
        );
    }
    if !o.print.format.is_table() {
        bail!("several contexts are printed as one table (or -o wide); for other formats, read one context at a time (--context NAME)");
    }
    let read: Vec<(String, Result<Judged>)> =
        crate::io::contexts::each(contexts, &o.cluster, |c| pactos::judged(o, c));
    let mut objects: Vec<Value> = Vec::new();
    let mut views: Vec<PactoView> = Vec::new();
    let mut decisions: Vec<Decision> = Vec::new();
    let mut cells: Vec<String> = Vec::new();
    let mut failed: Vec<(String, anyhow::Error)> = Vec::new();
    for (ctx, r) in read {
        match r {
            Ok((objs, v, d)) => {
                cells.extend(std::iter::repeat_n(ctx, objs.len()));
                objects.extend(objs);
                views.extend(v);
                decisions.extend(d);
            }
            Err(e) => failed.push((ctx, e)),
        }
    }
    if objects.is_empty() {
        if failed.len() < contexts.len() {
            eprint!("{}", render::no_resources(None));
        }
    } else {
        print_notes(&gate::notes(&decisions));
        let labels = o.print.labels(&objects.iter().collect::<Vec<_>>());
        let rows: Vec<PactoRow> = views
            .iter()
            .zip(&decisions)
            .map(|(view, decision)| PactoRow { view, decision })
            .collect();
        let options = TableOptions {
            contexts: Some(&cells),
            all_namespaces: o.args.all_namespaces
                || super::listing::mixed(views.iter().map(|v| v.namespace.as_str())),
            wide: matches!(o.print.format, OutputFormat::Wide),
            headers: !o.print.no_headers,
            labels: labels.as_deref(),
            min_widths: None,
            colour: o.global.colour,
            now: o.global.now,
        };
        write_stdout(&render::pacto_table(&rows, options))?;
    }
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for (ctx, e) in &failed {
        crate::io::output::error_line(&format!("context {ctx:?}: {e:#}"));
    }
    Ok(ExitCode::from(1))
}
