//! The live objects a list of references names, read one by one: each kind discovered once, an
//! object that is not there (or whose kind is not served) left out, as the controllers see it
//! absent. Used by `explain application/NAME` (the Application's `status.resources`) and
//! `explain kustomization/NAME` (its `status.inventory`).

use anyhow::Result;
use pacto_gates::cluster::{Cluster, ClusterError};
use serde_json::Value;

/// One reference: (group, version, kind, namespace, name).
pub(crate) type Reference = (String, String, String, String, String);

/// The objects `refs` name that exist. Errors: any failed read other than not found or not
/// installed (forbidden, a timeout), named by the cluster error.
pub(crate) async fn read_referenced(cluster: &Cluster, refs: &[Reference]) -> Result<Vec<Value>> {
    let mut kinds: Vec<(&str, &str, &str)> = Vec::new();
    for (g, v, k, _, _) in refs {
        if !kinds.contains(&(g.as_str(), v.as_str(), k.as_str())) {
            kinds.push((g, v, k));
        }
    }
    let served = cluster.discover_each(&kinds).await;
    let mut out = Vec::with_capacity(refs.len());
    for (g, v, k, ns, name) in refs {
        let at = kinds
            .iter()
            .position(|x| *x == (g.as_str(), v.as_str(), k.as_str()))
            .expect("every kind was discovered");
        let kind = match &served[at] {
            Ok(kind) => kind,
            Err(ClusterError::NotInstalled { .. }) => continue,
            Err(e) => return Err(e.clone().into()),
        };
        match cluster.get(kind, ns, name).await {
            Ok(obj) => out.push(obj),
            Err(ClusterError::NotFound { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}
