//! Following a watch (`get -w`): after the listing, each change as the API server reports it
//! (kubectl's `get --watch`: deleted objects included), through the library's one resumable
//! watch (`cluster::Follow`: from the list's resourceVersion, with bookmarks, listing again
//! after a `410 Gone` and printing then what changed meanwhile), until `--request-timeout`
//! passes (kubectl's bound on a watch) or the command is interrupted. One object by name is
//! watched with `fieldSelector=metadata.name=NAME`, as kubectl watches it.

use super::connect::{block_on, connect, namespace, scope, within};
use super::output::write_stdout;
use super::select::name_of;
use anyhow::Result;
use kubectl_pacto::options::ClusterOptions;
use pacto_gates::cluster::{Deadline, Selection};
use pacto_gates::kinds::ApiKind;
use serde_json::Value;
use std::time::Instant;

/// The kind watched and where.
pub(crate) struct Watched<'a> {
    pub kind: ApiKind,
    pub all_namespaces: bool,
    pub selector: Option<&'a str>,
    /// Only this object.
    pub name: Option<&'a str>,
    /// The objects the listing showed.
    pub known: &'a [Value],
    /// The resourceVersion of the list they came from (None: the follow lists first, and
    /// prints what differs from `known`).
    pub resource_version: Option<&'a str>,
}

/// Prints `row(object)` for each change of the object (or objects) watched until
/// `--request-timeout` (forever without one). Errors: the connection's, the server's, or a
/// server that kept failing until `--request-timeout`.
pub(crate) fn follow(
    c: &ClusterOptions,
    w: &Watched<'_>,
    row: impl Fn(&Value) -> String,
) -> Result<()> {
    let until = c.connect.request_timeout.map(|t| Instant::now() + t);
    // The listing's --timeout bounds connecting and discovery again, then how long the server
    // may answer nothing at all while the watch runs.
    let idle = c.connect.deadline.map(|d| d.given);
    let mut c = c.clone();
    c.connect.deadline = idle.map(|i| Deadline::after(i, "--timeout"));
    let c = &c;
    block_on(async {
        let (mut cluster, kind) = within(c.connect.deadline, async {
            let cluster = connect(c).await?;
            let (group, version, kind) = w.kind.gvk();
            let kind = cluster.discover(group, version, kind).await?;
            Ok((cluster, kind))
        })
        .await?;
        cluster.set_deadline(None);
        let ns = namespace(c, &cluster);
        let by_name = w.name.map(|n| format!("metadata.name={n}"));
        let selection = Selection::new(scope(w.all_namespaces, &ns))
            .labels(w.selector)
            .fields(by_name.as_deref());
        let mut follow = cluster.follow(
            &kind,
            selection,
            w.known.to_vec(),
            w.resource_version,
            until,
        );
        if let Some(i) = idle {
            follow = follow.with_idle(i);
        }
        while let Some(event) = follow.next().await {
            let event = event?;
            if w.name.is_some_and(|n| Some(n) != name_of(&event.object)) {
                continue;
            }
            write_stdout(&row(&event.object))?;
        }
        Ok(())
    })
}
