//! The live objects a list of references names, read one by one: each kind discovered once, an
//! object that is not there (or whose kind is not served) left out, as the controllers see it
//! absent. Used by `explain application/NAME` (the Application's `status.resources`) and
//! `explain kustomization/NAME` (its `status.inventory`).

use anyhow::Result;
use pacto_gates::cluster::{Cluster, ClusterError};
use serde_json::Value;

/// One reference: (group, version, kind, namespace, name).
pub(crate) type Reference = (String, String, String, String, String);

/// The objects `refs` name that exist (a reference no object can match, by its kind or its
/// name, is one that does not). Errors: any failed read other than not found, not installed or
/// an impossible name (forbidden, a timeout), named by the cluster error.
pub(crate) async fn read_referenced(cluster: &Cluster, refs: &[Reference]) -> Result<Vec<Value>> {
    let mut kinds: Vec<(&str, &str, &str)> = Vec::new();
    let mut index: std::collections::HashMap<(&str, &str, &str), usize> = Default::default();
    for (g, v, k, _, _) in refs {
        index.entry((g, v, k)).or_insert_with(|| {
            kinds.push((g, v, k));
            kinds.len() - 1
        });
    }
    let served = cluster.discover_each(&kinds).await;
    let mut out = Vec::with_capacity(refs.len());
    for (g, v, k, ns, name) in refs {
        let at = index[&(g.as_str(), v.as_str(), k.as_str())];
        // A kind not served, or a group, version, namespace or name no object can have (a
        // malformed status entry): no such object, as for one not found.
        let kind = match &served[at] {
            Ok(kind) => kind,
            Err(ClusterError::NotInstalled { .. } | ClusterError::InvalidName { .. }) => continue,
            Err(e) => return Err(e.clone().into()),
        };
        match cluster.get(kind, ns, name).await {
            Ok(obj) => out.push(obj),
            Err(ClusterError::NotFound { .. } | ClusterError::InvalidName { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}
