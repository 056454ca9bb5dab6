//! The one `get` flow, whatever the kind: the objects sorted (`--sort-by`); a machine format
//! (`-o name|json|yaml|jsonpath|custom-columns`) printed, and with `-w` each change in that
//! format; else kubectl's "No resources found" for nothing (done, unless `-w`); else the kind's
//! notes on stderr and its table, and with `-w` a row per change under it, lined up with the
//! listing (kubectl's tab writer keeps its widths; the first row carries the header when
//! nothing was listed).

use super::options::Options;
use crate::io::output::{print_notes, write_stdout};
use crate::io::watch::{follow, Watched};
use anyhow::Result;
use kubectl_pacto::printer::OutputFormat;
use pacto_gates::render::{self, TableOptions};
use serde_json::Value;
use std::borrow::Cow;
use std::process::ExitCode;

/// What a kind read for its listing.
pub(super) struct Listing<'l> {
    /// The objects shown, in the order read: borrowed when they are all the objects read of
    /// their kind (copied only to be sorted).
    pub objects: Cow<'l, [Value]>,
    /// The namespace "No resources found" names (None: all namespaces, or files).
    pub namespace: Option<String>,
    /// The resourceVersion of the list the objects came from, where `-w` starts (None: one
    /// object read by name, or a list wider than the watch; the watch lists first then).
    pub resource_version: Option<String>,
}

/// How a kind lays out its table.
pub(super) trait Rows {
    /// The notes on stderr before the table (what the gates or the world could not know).
    fn notes(&self) -> Vec<String>;
    /// Whether the rows come from more than one namespace (files may mix them): then the
    /// NAMESPACE column tells them apart.
    fn mixed_namespaces(&self) -> bool;
    /// The table of the listing: `objects` are those the rows were built from.
    fn table(&self, objects: &[Value], options: TableOptions<'_>) -> String;
    /// The row of one changed object (`-w`), judged as the listing was.
    fn row(&self, o: &Value, options: TableOptions<'_>) -> String;
}

/// Prints a listing; `rows` builds the kind's table from the sorted objects, and is called
/// only when a table is printed.
pub(super) fn print<R: Rows>(
    o: &Options<'_>,
    listing: Listing<'_>,
    rows: impl FnOnce(&[Value]) -> Result<R>,
) -> Result<ExitCode> {
    let Listing {
        mut objects,
        namespace,
        resource_version,
    } = listing;
    if o.print.sort_by.is_some() {
        o.print.sort(objects.to_mut())?;
    }
    let watch = o.args.watch;
    let watched = Watched {
        kind: o.listed.api_kind(),
        all_namespaces: o.args.all_namespaces,
        selector: o.args.selector.as_deref(),
        name: o.name.as_deref(),
        known: &objects,
        resource_version: resource_version.as_deref(),
    };
    let prefix = o.listed.name_prefix();
    if let Some(out) = o.print.machine(&prefix, &objects, o.name.is_some())? {
        write_stdout(&out)?;
        if watch {
            // Each changed object printed alone in that format.
            follow(&o.cluster, &watched, |changed| {
                o.print
                    .machine(&prefix, std::slice::from_ref(changed), true)
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            })?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if objects.is_empty() {
        eprint!("{}", render::no_resources(namespace.as_deref()));
        if !watch {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let rows = rows(&objects)?;
    print_notes(&rows.notes());
    let labels = o.print.labels(&objects.iter().collect::<Vec<_>>());
    let options = TableOptions {
        contexts: None,
        all_namespaces: o.args.all_namespaces || rows.mixed_namespaces(),
        wide: matches!(o.print.format, OutputFormat::Wide),
        headers: !o.print.no_headers,
        labels: labels.as_deref(),
        min_widths: None,
        colour: o.global.colour,
        now: o.global.now,
    };
    let table = if objects.is_empty() {
        String::new()
    } else {
        rows.table(&objects, options)
    };
    write_stdout(&table)?;
    if !watch {
        return Ok(ExitCode::SUCCESS);
    }
    let widths = render::column_widths(&table);
    let header_due = std::cell::Cell::new(table.is_empty() && !o.print.no_headers);
    follow(&o.cluster, &watched, |changed| {
        let labels = o.print.labels(&[changed]);
        // kubectl prints each event's AGE at the time it prints it.
        let now = match o.global.clock_fixed {
            true => o.global.now,
            false => jiff::Timestamp::now(),
        };
        rows.row(
            changed,
            TableOptions {
                headers: header_due.replace(false),
                labels: labels.as_deref(),
                min_widths: Some(&widths),
                now,
                ..options
            },
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Whether the namespaces of a listing's rows differ.
pub(super) fn mixed<'s>(namespaces: impl IntoIterator<Item = &'s str>) -> bool {
    let mut it = namespaces.into_iter();
    match it.next() {
        None => false,
        Some(first) => it.any(|n| n != first),
    }
}

#[cfg(test)]
mod tests {
    use super::mixed;

    #[test]
    fn rows_of_several_namespaces_are_mixed() {
        assert!(!mixed([]));
        assert!(!mixed(["shop", "shop"]));
        assert!(mixed(["shop", "prod", "shop"]));
        // An object without a namespace is another namespace than a named one.
        assert!(mixed(["", "default"]));
    }
}
