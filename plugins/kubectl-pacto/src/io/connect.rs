//! The connection to a cluster: the runtime one command's I/O runs on, the client built from
//! the cluster flags, and the namespace and scope a request covers (kubectl's `-n`, the
//! context's namespace, `-A`).

use anyhow::{anyhow, Context, Result};
use kubectl_pacto::options::ClusterOptions;
use pacto_gates::cluster::{Cluster, Deadline, Scope};

/// Runs the I/O of one command. The runtime is then shut down without waiting for blocking
/// work that may still run (a stuck kubeconfig exec plugin after a timeout).
pub(crate) fn block_on<T>(fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the I/O runtime")?;
    let out = rt.block_on(fut);
    rt.shutdown_background();
    out
}

/// Runs the I/O of one command within its deadline (None: none): [`block_on`], and past the
/// deadline whatever is still running (a kubeconfig exec plugin, a request the cluster layer
/// does not bound) is dropped with an error naming the flag. Requests end by the deadline on
/// their own, naming the request ([`pacto_gates::cluster::Deadline`]); this is the last guard.
pub(crate) fn block_on_within<T>(
    deadline: Option<Deadline>,
    fut: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    block_on(within(deadline, fut))
}

/// `fut` within the deadline (None: none), as [`block_on_within`] bounds it.
pub(crate) async fn within<T>(
    deadline: Option<Deadline>,
    fut: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    let Some(d) = deadline else {
        return fut.await;
    };
    // A little after the deadline, so that a request bounded by it says which it was.
    let grace = std::time::Duration::from_millis(500);
    match tokio::time::timeout(d.left() + grace, fut).await {
        Ok(r) => r,
        Err(_) => Err(anyhow!(
            "no answer from the API server within {} ({})",
            pacto_gates::k8s::duration::go_duration(d.given),
            d.flag
        )),
    }
}

/// A client for the cluster the flags name, with the context's namespace checked when `-n`
/// does not replace it (kubectl refuses a kubeconfig whose namespace cannot be a path segment,
/// in the words of [`pacto_gates::cluster::check_namespace`]). Errors: the kubeconfig's, the
/// connection's.
pub(crate) async fn connect(c: &ClusterOptions) -> Result<Cluster> {
    let cluster = Cluster::connect(&c.connect).await?;
    if c.namespace.is_none() {
        pacto_gates::cluster::check_namespace(&cluster.default_namespace)?;
    }
    Ok(cluster)
}

/// The namespace a request covers: `-n`, else the context's (kubectl's `default` fallback).
pub(crate) fn namespace(c: &ClusterOptions, cluster: &Cluster) -> String {
    c.namespace
        .clone()
        .unwrap_or_else(|| cluster.default_namespace.clone())
}

/// Every namespace with `-A`, else `namespace`.
pub(crate) fn scope(all_namespaces: bool, namespace: &str) -> Scope<'_> {
    if all_namespaces {
        Scope::All
    } else {
        Scope::Namespace(namespace)
    }
}
