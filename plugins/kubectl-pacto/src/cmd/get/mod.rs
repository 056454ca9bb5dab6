//! `kubectl pacto get`: Pactos with their verdict and what the gates decide, delivery Stages
//! with their computed conditions, Operations with where they stand; from a cluster, from
//! several at once ([`contexts`]) or from files. As kubectl's `get` does: the flags are completed into checked options and validated
//! together ([`options::Options::complete`]), each kind reads its objects ([`pactos`], [`stages`],
//! [`operations`]), and one flow prints them ([`listing`]: machine output, "No resources
//! found", the table, `-w`).

mod contexts;
mod listing;
mod operations;
mod options;
mod pactos;
mod stages;

use anyhow::Result;
use kubectl_pacto::cli::GetArgs;
use kubectl_pacto::options::Global;
use kubectl_pacto::resource::ResourceType;
use std::process::ExitCode;

/// `kubectl pacto get`.
pub(crate) fn run(args: &GetArgs, global: &Global) -> Result<ExitCode> {
    let o = options::Options::complete(args, global)?;
    if let Some(names) = crate::io::contexts::named(&args.cluster, args.all_contexts)? {
        return contexts::run(&o, &names);
    }
    match o.listed {
        ResourceType::Pactos => pactos::run(&o),
        ResourceType::Stages => stages::run(&o),
        ResourceType::Operations => operations::run(&o),
    }
}
