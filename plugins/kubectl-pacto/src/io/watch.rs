//! Following a watch (`get -w`): after the listing, each change as the API server reports it
//! (kubectl's `get --watch`: deleted objects included), through the library's one resumable
//! watch (`cluster::Follow`), until `--request-timeout` passes (kubectl's bound on a watch) or
//! the command is interrupted.

use super::connect::{block_on, connect, namespace, scope};
use super::output::write_stdout;
use super::select::name_of;
use anyhow::Result;
use kubectl_pacto::options::ClusterOptions;
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
    /// The resourceVersion the listing showed (0: the current objects first).
    pub since: u64,
}

/// Prints `row(object)` for each change of the object (or objects) watched until
/// `--request-timeout` (forever without one). Errors: the connection's, the server's.
pub(crate) fn follow(
    c: &ClusterOptions,
    w: &Watched<'_>,
    row: impl Fn(&Value) -> String,
) -> Result<()> {
    let until = c.connect.request_timeout.map(|t| Instant::now() + t);
    block_on(async {
        let cluster = connect(c).await?;
        let (group, version, kind) = w.kind.gvk();
        let kind = cluster.discover(group, version, kind).await?;
        let ns = namespace(c, &cluster);
        let mut follow = cluster.follow(
            &kind,
            scope(w.all_namespaces, &ns),
            w.selector,
            w.since,
            until,
        );
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
