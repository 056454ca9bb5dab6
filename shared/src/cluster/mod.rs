//! Talking to a cluster: a kube-rs client built from the flags kubectl users expect
//! (`--kubeconfig`, `KUBECONFIG` with several files merged, `--context`, the context's namespace,
//! `--request-timeout`, in-cluster configuration), kinds found by discovery (never a guessed
//! plural), and reads that return the objects exactly as the API server sent them.
//!
//! Lists are read in pages of `--chunk-size` objects ([`DEFAULT_CHUNK_SIZE`], kubectl's 500, unless
//! another is given), each page asking with `limit` and the previous page's `continue` token, so
//! listing a kind costs one call per page; a chunk size of 0 reads a list in one request.
//! Throttling (429) and 503/504 answers are retried three times, honouring `Retry-After` up to 5 s;
//! `--request-timeout` bounds each request (each page of a list) including its retries. The
//! client's own retry layer is off so that these bounds hold.
//!
//! As kube-rs separates them: `kubeconfig` builds the client, `discovery` finds kinds, `request`
//! reads objects and words their errors, `query` writes query strings as client-go does,
//! `watch` follows changes; `delivery` reads the objects Pacto delivery needs; this
//! module holds the connected [`Cluster`] they share.

mod budget;
mod contexts;
mod delivery;
mod discovery;
mod error;
mod exec;
mod kubeconfig;
mod overrides;
#[doc(hidden)]
pub mod parsed_size;
mod path;
pub mod proxy;
mod query;
mod referenced;
mod request;
mod watch;
mod write;

pub use contexts::kubeconfig_contexts;
pub use delivery::{DeliveryObjects, DeliveryQuery, ListRead};
pub use discovery::{ServedKind, DISCOVERY_TIMEOUT};
pub use error::{chain, reason_phrase, root_cause, ClusterError};
pub use kubeconfig::{check_kubeconfig_text, context_names, ConnectOptions};
pub use overrides::Overrides;
pub use path::check_namespace;
pub use request::{decode_list_answer, decode_list_pages, List, Scope, Selection};
pub use watch::{
    decode_watch_line, resource_version_of, split_watch_lines, Event, Follow, WatchStream,
    MAX_EVENT_BYTES, MAX_WATCH_SECONDS,
};
pub use write::{is_conflict, StatusPatch};

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
    /// Objects per list page; 0: lists in one request.
    chunk_size: u32,
    /// The most bytes read from one answer (`--max-response-bytes`).
    max_response_bytes: u64,
    /// The most objects one list may bring (`--max-list-items`).
    max_list_items: u64,
    /// Bytes of the answers being read at this moment, across the requests in flight: their
    /// sum is bounded by `max_response_bytes` too, so that reads made at once cannot hold
    /// that bound many times over.
    reading: std::sync::Arc<budget::Budget>,
    /// What the command holds of parsed answers, estimated in memory
    /// ([`parsed_size`]): bounded by [`parsed_size::PARSED_FACTOR`] times
    /// `max_response_bytes`, so that the lists of many kinds, or a watch's store, cannot hold
    /// that many times over.
    held: std::sync::Arc<budget::Budget>,
    /// The command's one deadline, when it has one: every request ends by it.
    deadline: Option<Deadline>,
}

/// The one deadline of a command (`--timeout`): discovery, every list page, every watch event
/// and every read of a report end by it, each request with [`ClusterError::Timeout`] naming the
/// flag and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    /// When it passes.
    pub at: std::time::Instant,
    /// The duration given, as messages name it (`within 2s (--timeout)`).
    pub given: Duration,
    /// The flag that set it.
    pub flag: &'static str,
}

impl Deadline {
    /// `given` from now.
    pub fn after(given: Duration, flag: &'static str) -> Deadline {
        let now = std::time::Instant::now();
        Deadline {
            at: now
                .checked_add(given)
                .unwrap_or(now + Duration::from_secs(86_400 * 365)),
            given,
            flag,
        }
    }

    /// What is left of it (zero once it passed).
    pub fn left(&self) -> Duration {
        self.at.saturating_duration_since(std::time::Instant::now())
    }
}

/// The default bound on the objects of one list (`--max-list-items`): 100,000, more than the
/// Stages, Pactos and Flux or Argo CD objects of any cluster we know of. Objects of a kilobyte
/// or more reach the bound on memory held ([`parsed_size`], 1 GiB by default) first.
pub const DEFAULT_MAX_LIST_ITEMS: u64 = 100_000;

/// The default bound on one answer of the API server: 256 MiB, more than a page of 500 of the
/// largest objects etcd stores (1.5 MiB each by default).
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 256 << 20;

/// kubectl's `--chunk-size` default: lists are read in pages of 500.
pub const DEFAULT_CHUNK_SIZE: u32 = 500;

/// The `User-Agent` of every request: the tool and its version, for audit logs.
pub const USER_AGENT: &str = concat!("kubectl-pacto/", env!("CARGO_PKG_VERSION"));

/// The objects that configure the gates in a cluster, as read (or why they could not be).
#[derive(Debug)]
pub struct GateObjects {
    /// Argo CD's `argocd-cm` ConfigMap.
    pub argocd_cm: Result<serde_json::Value, ClusterError>,
    /// Every Flux Kustomization (`kustomize.toolkit.fluxcd.io/v1`) of the cluster.
    pub kustomizations: Result<Vec<serde_json::Value>, ClusterError>,
}

impl Cluster {
    /// Sets (or, with None, lifts) the command's deadline for every later request.
    pub fn set_deadline(&mut self, deadline: Option<Deadline>) {
        self.deadline = deadline;
    }

    /// The command's deadline, if any.
    pub fn deadline(&self) -> Option<Deadline> {
        self.deadline
    }

    /// Reads `argocd_namespace/argocd-cm` (one GET) and all Kustomizations (one discovery and one
    /// paged list). Each side fails on its own: a cluster without Argo CD or without Flux still
    /// answers for the other.
    pub async fn gate_objects(&self, argocd_namespace: &str) -> GateObjects {
        let argocd_cm = self
            .get(&ServedKind::configmap(), argocd_namespace, "argocd-cm")
            .await;
        let kustomizations = match self
            .discover("kustomize.toolkit.fluxcd.io", "v1", "Kustomization")
            .await
        {
            Ok(kind) => self.list(&kind, Scope::All, None).await.map(|l| l.items),
            Err(e) => Err(e),
        };
        GateObjects {
            argocd_cm,
            kustomizations,
        }
    }
}
