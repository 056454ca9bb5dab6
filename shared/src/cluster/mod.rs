//! Talking to a cluster: a kube-rs client built from the flags kubectl users expect
//! (`--kubeconfig`, `KUBECONFIG` with several files merged, `--context`, the context's namespace,
//! `--request-timeout`, in-cluster configuration), kinds found by discovery (never a guessed
//! plural), and reads that return the objects exactly as the API server sent them.
//!
//! Each list is one request (no paging), so listing a kind costs one call whatever the count.
//! Throttling (429) and 503/504 answers are retried three times, honouring `Retry-After` up to
//! 5 s; `--request-timeout` bounds each operation including its retries. The client's own retry
//! layer is off so that these bounds hold.
//!
//! As kube-rs separates them: `kubeconfig` builds the client, `discovery` finds kinds, `request`
//! reads objects and words their errors; this module holds the connected [`Cluster`] they share.

mod discovery;
mod error;
mod kubeconfig;
pub mod proxy;
mod request;

pub use discovery::{Kind, DISCOVERY_TIMEOUT};
pub use error::{chain, reason_phrase, root_cause, ClusterError};
pub use kubeconfig::ConnectOptions;
pub use request::Scope;

use kube::Client;
use std::time::Duration;

/// A connected client.
pub struct Cluster {
    client: Client,
    /// The context's namespace, else `default` (kubectl's fallback when `-n` is absent).
    pub default_namespace: String,
    /// The API server URL (and the proxy used to reach it, if any), for messages.
    pub server: String,
    timeout: Option<Duration>,
    /// The bound of a discovery request when `--request-timeout` is not given.
    discovery_timeout: Duration,
}
