//! The connection to a cluster: the runtime one command's I/O runs on, the client built from
//! the cluster flags, and the namespace and scope a request covers (kubectl's `-n`, the
//! context's namespace, `-A`).

use anyhow::{Context, Result};
use kubectl_pacto::options::ClusterOptions;
use pacto_gates::cluster::{Cluster, Scope};

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

/// A client for the cluster the flags name. Errors: the kubeconfig's, the connection's.
pub(crate) async fn connect(c: &ClusterOptions) -> Result<Cluster> {
    Ok(Cluster::connect(&c.connect).await?)
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
