//! `get -w/--watch`: after the listing, one row per change as the API server reports it
//! (kubectl's `get --watch`: rows without the header, deleted objects included), until
//! `--request-timeout` passes (kubectl's bound on a watch) or the command is interrupted.

use crate::live::{block_on, connect};
use crate::write_stdout;
use anyhow::Result;
use kubectl_pacto::options::ClusterOptions;
use kubectl_pacto::printer::PrintOptions;
use pacto_gates::cluster::Scope;
use pacto_gates::render::TableOptions;
use serde_json::Value;
use std::time::Instant;

/// The kind watched and where.
pub(crate) struct Watched<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub all_namespaces: bool,
    pub selector: Option<&'a str>,
    /// Only this object.
    pub name: Option<&'a str>,
    /// The resourceVersion the listing showed (0: the current objects first).
    pub since: u64,
}

/// The highest `metadata.resourceVersion` of `objects` (0 when none has one).
pub(crate) fn newest(objects: &[Value]) -> u64 {
    pacto_gates::cluster::newest_resource_version(objects)
}

/// Prints the table `listing` (empty when nothing was listed), then, with `-w`, one row per
/// change under it, laid out by `row` with the listing's options and column widths (the first
/// row carries the header when nothing was listed), as `kubectl get -w` does.
pub(crate) fn list_then_follow(
    c: &ClusterOptions,
    w: &Watched<'_>,
    watch: bool,
    print: &PrintOptions,
    listing: &str,
    options: TableOptions<'_>,
    row: impl Fn(&Value, TableOptions<'_>) -> String,
) -> Result<()> {
    write_stdout(listing)?;
    if !watch {
        return Ok(());
    }
    let widths = pacto_gates::render::column_widths(listing);
    let header_due = std::cell::Cell::new(listing.is_empty() && !print.no_headers);
    follow(c, w, |o| {
        let labels = print.labels(&[o]);
        row(
            o,
            TableOptions {
                headers: header_due.replace(false),
                labels: labels.as_deref(),
                min_widths: Some(&widths),
                ..options
            },
        )
    })
}

/// Prints `row(object)` for each change until `--request-timeout` (forever without one).
pub(crate) fn follow(
    c: &ClusterOptions,
    w: &Watched<'_>,
    row: impl Fn(&Value) -> String,
) -> Result<()> {
    let until = c.connect.request_timeout.map(|t| Instant::now() + t);
    block_on(async {
        let cluster = connect(c).await?;
        let kind = cluster.discover(w.group, w.version, w.kind).await?;
        let ns = c
            .namespace
            .clone()
            .unwrap_or_else(|| cluster.default_namespace.clone());
        let scope = if w.all_namespaces {
            Scope::All
        } else {
            Scope::Namespace(&ns)
        };
        let mut follow = cluster.follow(&kind, scope, w.selector, w.since, until);
        while let Some(event) = follow.next().await {
            let event = event?;
            let name = event
                .object
                .pointer("/metadata/name")
                .and_then(Value::as_str);
            if w.name.is_some_and(|n| Some(n) != name) {
                continue;
            }
            write_stdout(&row(&event.object))?;
        }
        Ok(())
    })
}
