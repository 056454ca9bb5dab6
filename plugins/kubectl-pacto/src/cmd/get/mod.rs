//! `kubectl pacto get`: Pactos with their verdict and what the gates decide, delivery Stages
//! with their computed conditions, Operations with where they stand; from a cluster or from
//! files. As kubectl's `get` does: the flags are completed into checked options and validated
//! together ([`Options::complete`]), each kind reads its objects ([`pactos`], [`stages`],
//! [`operations`]), and one flow prints them ([`listing`]: machine output, "No resources
//! found", the table, `-w`).

mod listing;
mod operations;
mod pactos;
mod stages;

use crate::io::select;
use anyhow::{anyhow, bail, Result};
use kubectl_pacto::cli::GetArgs;
use kubectl_pacto::options::{ClusterOptions, Global};
use kubectl_pacto::printer::PrintOptions;
use kubectl_pacto::resource::{get_resource, Listed};
use pacto_gates::k8s::selector::Selector;
use std::process::ExitCode;

/// `kubectl pacto get`.
pub(crate) fn run(args: &GetArgs, global: &Global) -> Result<ExitCode> {
    let o = Options::complete(args, global)?;
    match o.listed {
        Listed::Pactos => pactos::run(&o),
        Listed::Stages => stages::run(&o),
        Listed::Operations => operations::run(&o),
    }
}

/// The checked flags of one `get`.
pub(super) struct Options<'a> {
    pub args: &'a GetArgs,
    pub global: &'a Global,
    /// The kind listed.
    pub listed: Listed,
    /// The one object asked for by name.
    pub name: Option<String>,
    /// The label selector matched here: for objects of files, and for Stages (picked from the
    /// list of every Stage); a cluster's Pactos and Operations are picked by the API server
    /// (then this matches everything).
    pub selector: Selector,
    pub print: PrintOptions,
    pub cluster: ClusterOptions,
}

impl<'a> Options<'a> {
    /// Reads the flags into checked values, in kubectl's order: the resource and name, then
    /// what does not go together ([`validate`]), the selector, the printing flags, the
    /// cluster flags.
    fn complete(args: &'a GetArgs, global: &'a Global) -> Result<Options<'a>> {
        let (listed, name) = get_resource(&args.resource, args.name.as_deref())?;
        validate(args, name.is_some())?;
        // With -f the selector is matched here, as the API server matches it (kubectl filters
        // file objects by -l too).
        let file_selector = match (&args.selector, args.files.is_empty()) {
            (Some(s), false) => Some(Selector::parse(s).map_err(|e| anyhow!("-l/--selector {e}"))?),
            _ => None,
        };
        let print = PrintOptions::new(
            args.output.as_deref(),
            args.no_headers,
            args.show_labels,
            args.sort_by.as_deref(),
        )?;
        let cluster = ClusterOptions::new(&args.cluster)?;
        let selector = match (file_selector, listed) {
            (Some(s), _) => s,
            (None, Listed::Pactos) => Selector::default(),
            (None, _) => select::selector(args.selector.as_deref())?,
        };
        Ok(Options {
            args,
            global,
            listed,
            name,
            selector,
            print,
            cluster,
        })
    }
}

/// The flags that do not go together: a name with `-l` or `-A` (kubectl's words), `-w` with
/// `-f`.
fn validate(args: &GetArgs, named: bool) -> Result<()> {
    if named {
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
    Ok(())
}
