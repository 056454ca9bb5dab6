//! What can go wrong talking to a cluster, in words an on-call user can act on. Each variant
//! names the verb and the resource of the request that failed.

use std::time::Duration;

/// A failed cluster operation. `resource` is `<plural>.<group>` (or `<plural>` for the core
/// group); `scope` reads `in namespace "shop"`, `in all namespaces` or is empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// No usable configuration: kubeconfig unreadable or malformed, unknown context, not in a
    /// cluster.
    #[error("{0}")]
    Config(String),
    /// Discovery does not list the kind: its CRD is not installed.
    #[error("the {kind} CRD is not installed in this cluster (the API server serves no {kind} in {group_version})")]
    NotInstalled { kind: String, group_version: String },
    /// 403 Forbidden.
    #[error("forbidden: you may not {verb} {resource}{scope}: {message}")]
    Forbidden {
        verb: String,
        resource: String,
        scope: String,
        message: String,
    },
    /// 404 Not Found on a named object.
    #[error("{resource} \"{name}\" not found{scope}")]
    NotFound {
        resource: String,
        name: String,
        scope: String,
    },
    /// 429, 503 or 504 on every attempt.
    #[error("the API server kept refusing to {verb} {resource}{scope} with {code} {reason} ({attempts} attempt{}): {message}; try again later", if *attempts == 1 { "" } else { "s" })]
    Throttled {
        verb: String,
        resource: String,
        scope: String,
        code: u16,
        reason: String,
        attempts: u32,
        message: String,
    },
    /// Any other error status.
    #[error("the API server answered {code} {reason} to {verb} {resource}{scope}: {message}")]
    Api {
        verb: String,
        resource: String,
        scope: String,
        code: u16,
        reason: String,
        message: String,
    },
    /// No complete answer within `--request-timeout`.
    #[error("no answer from the API server at {server} within {} ({limit}) to {verb} {resource}{scope}", crate::k8s::duration::go_duration(*after))]
    Timeout {
        verb: String,
        resource: String,
        scope: String,
        server: String,
        after: Duration,
        /// Which limit: `--request-timeout`, or the discovery default.
        limit: String,
    },
    /// A watch event begun and not finished within `--timeout` (a server trickling bytes
    /// that never make an event, while a follow has no deadline of its own).
    #[error("cannot watch {resource}{scope}: the API server at {server} sent {bytes} bytes of an event and not its end within {} (--timeout)", crate::k8s::duration::go_duration(*after))]
    Stalled {
        resource: String,
        scope: String,
        server: String,
        after: Duration,
        bytes: u64,
    },
    /// The connection failed or was dropped.
    #[error("cannot {verb} {resource}{scope}: the connection to the API server at {server} failed: {detail}")]
    Connection {
        verb: String,
        resource: String,
        scope: String,
        server: String,
        detail: String,
    },
    /// An answer larger than `--max-response-bytes`.
    #[error("cannot {verb} {resource}{scope}: the API server's answer is larger than {} (--max-response-bytes; give a larger bound, or a smaller --chunk-size, to read it)", crate::k8s::read::size_words(*limit))]
    TooLarge {
        verb: String,
        resource: String,
        scope: String,
        limit: u64,
    },
    /// Answers read at the same time (the kinds `doctor --cluster` lists at once) that hold
    /// more than `--max-response-bytes` between them.
    #[error("cannot {verb} {resource}{scope}: the answers the API server is sending at once are larger than {} together (--max-response-bytes bounds them; give a larger bound to read them)", crate::k8s::read::size_words(*limit))]
    TooLargeTogether {
        verb: String,
        resource: String,
        scope: String,
        limit: u64,
    },
    /// Parsed answers that would take more memory than the command may hold of them, all
    /// together ([`super::parsed_size::PARSED_FACTOR`] times `--max-response-bytes`): an
    /// answer of a few bytes per value (`[0,0,…]`) takes 40 times its size once parsed, and
    /// the lists of many kinds add up.
    #[error("cannot {verb} {resource}{scope}: the API server's answers would take more than {} in memory once parsed ({} times --max-response-bytes; give a larger bound to read them)", crate::k8s::read::size_words(*limit), super::parsed_size::PARSED_FACTOR)]
    TooMuchHeld {
        verb: String,
        resource: String,
        scope: String,
        limit: u64,
    },
    /// A watch that reported more objects alive at once than a list may bring
    /// (`--max-list-items`), or than the command may hold in memory with its other answers
    /// ([`super::parsed_size::PARSED_FACTOR`] times `--max-response-bytes`): listing them
    /// again would fail, so the follow ends instead of keeping them all.
    #[error("cannot watch {resource}{scope}: the watch reported more than {} alive at once ({}; give a larger bound to follow them)", if *flag == "--max-list-items" { format!("{limit} objects") } else { format!("{} of objects in memory", crate::k8s::read::size_words(*limit)) }, if *flag == "--max-list-items" { flag.to_string() } else { format!("{} times {flag}", super::parsed_size::PARSED_FACTOR) })]
    WatchedTooMuch {
        resource: String,
        scope: String,
        limit: u64,
        /// `--max-list-items` or `--max-response-bytes`.
        flag: &'static str,
    },
    /// A list that brought more objects than `--max-list-items`.
    #[error("cannot list {resource}{scope}: the API server sent more than {limit} objects (--max-list-items; give a larger bound to read them)")]
    TooManyItems {
        resource: String,
        scope: String,
        limit: u64,
    },
    /// A list whose pages kept coming with new `continue` tokens past the pages
    /// `--max-list-items` objects fill in pages of `--chunk-size`.
    #[error("cannot list {resource}{scope}: the API server kept sending continue tokens past {pages} pages (--max-list-items {limit} in pages of --chunk-size {chunk})")]
    TooManyPages {
        resource: String,
        scope: String,
        pages: u64,
        limit: u64,
        chunk: u32,
    },
    /// A name or namespace that cannot go into a request path, refused before any request
    /// (client-go `rest/request.go` words it so: `invalid namespace "a/b": [may not contain
    /// '/']`); `what` is `namespace`, `resource name` or `resource`.
    #[error("invalid {what} {value:?}: [{}]", reasons.join(" "))]
    InvalidName {
        what: String,
        value: String,
        reasons: Vec<String>,
    },
    /// The answer was not what the API promises (not JSON, not a list ...).
    #[error("cannot {verb} {resource}{scope}: the API server's answer is malformed: {detail}")]
    Malformed {
        verb: String,
        resource: String,
        scope: String,
        detail: String,
    },
}

impl ClusterError {
    /// Whether the server refused the credentials (403, 401), as opposed to a read that failed:
    /// waiting or a larger bound does not change it, and a tool with less access than the whole
    /// cluster meets it by design.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ClusterError::Forbidden { .. } | ClusterError::Api { code: 401, .. }
        )
    }

    /// Whether the read failed only because other answers were being read at the same time
    /// ([`ClusterError::TooLargeTogether`]): read alone, it may succeed.
    pub fn is_crowded(&self) -> bool {
        matches!(self, ClusterError::TooLargeTogether { .. })
    }
}

/// The reason phrase of an HTTP status (`Too Many Requests`), `Error` for a code without one.
pub fn reason_phrase(code: u16) -> &'static str {
    http::StatusCode::from_u16(code)
        .ok()
        .and_then(|c| c.canonical_reason())
        .unwrap_or("Error")
}

/// The innermost cause of an error (`Connection refused (os error 111)`), without the layers of
/// client wrapping above it.
pub fn root_cause(e: &dyn std::error::Error) -> String {
    let mut cur = e;
    while let Some(c) = cur.source() {
        cur = c;
    }
    cur.to_string()
}

/// An error and its causes, joined with `: `, each cause once.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(c) = cur {
        let s = c.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
        cur = c.source();
    }
    parts.join(": ")
}
