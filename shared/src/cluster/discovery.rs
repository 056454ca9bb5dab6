//! Kinds found by discovery, never a guessed plural: one `GET /apis/<group>/<version>` (or
//! `/api/v1`) per group version, however many of its kinds are wanted, bounded like kubectl's
//! discovery client. Follows kube-rs's `kube-client/src/discovery/oneshot.rs` (a pinned group
//! version) and, for the timeout, client-go's `discovery/discovery_client.go`.

use super::request::Op;
use super::{Cluster, ClusterError};
use serde_json::Value;
use std::time::Duration;

/// A kind the API server serves, as discovery describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedKind {
    /// API group, empty for the core group.
    pub group: String,
    /// API version, e.g. `v1alpha1`.
    pub version: String,
    /// ServedKind, e.g. `Pacto`.
    pub kind: String,
    /// Resource name in URLs, as discovery gives it, e.g. `pactos`.
    pub plural: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
}

impl ServedKind {
    /// `pactos.pacto.trianalab.io`, or `configmaps` for the core group (kubectl's spelling).
    pub fn resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The core v1 ConfigMap (no discovery needed).
    pub fn configmap() -> ServedKind {
        ServedKind {
            group: String::new(),
            version: "v1".into(),
            kind: "ConfigMap".into(),
            plural: "configmaps".into(),
            namespaced: true,
        }
    }

    /// The core v1 Secret (no discovery needed).
    pub fn secret() -> ServedKind {
        ServedKind {
            group: String::new(),
            version: "v1".into(),
            kind: "Secret".into(),
            plural: "secrets".into(),
            namespaced: true,
        }
    }

    /// The core v1 Namespace (cluster-scoped; no discovery needed).
    pub fn namespace() -> ServedKind {
        ServedKind {
            group: String::new(),
            version: "v1".into(),
            kind: "Namespace".into(),
            plural: "namespaces".into(),
            namespaced: false,
        }
    }
}

/// How many discovery requests [`Cluster::discover_each`] has in flight at once.
pub const DISCOVERY_IN_FLIGHT: usize = 16;

/// client-go's discovery client timeout when none is set (`discovery_client.go`
/// `setDiscoveryDefaults`: `defaultTimeout = 32 * time.Second`): kubectl gives up on a silent
/// API server after it, and so do we.
pub const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(32);

/// The bound of a discovery request: the one given, else [`DISCOVERY_TIMEOUT`] (a zero one
/// too, as client-go's `setDiscoveryDefaults` treats a zero timeout).
pub(super) fn discovery_timeout(given: Option<Duration>) -> Duration {
    given.filter(|t| !t.is_zero()).unwrap_or(DISCOVERY_TIMEOUT)
}

/// The discovery of the group version `gv`, for error messages.
fn discovery_op(gv: &str) -> Op<'static> {
    Op {
        verb: "discover",
        resource: format!("the API group {gv}"),
        scope: String::new(),
    }
}

impl Cluster {
    /// Finds a kind by discovery of its group version (`GET /apis/<group>/<version>`, one
    /// request). Errors: [`ClusterError::NotInstalled`] when the group version or the kind is not
    /// served; the request's own errors otherwise.
    pub async fn discover(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<ServedKind, ClusterError> {
        let served = self.served(group, version).await?;
        find_kind(served.as_deref(), group, version, kind)
            .ok_or_else(|| not_installed(group, version, kind))
    }

    /// Finds several kinds with one discovery request per group version, the requests at
    /// once, the kinds in the order given. Each kind succeeds or fails on its own:
    /// [`ClusterError::NotInstalled`] when its group version or the kind is not served, the
    /// discovery request's error otherwise.
    pub async fn discover_each(
        &self,
        kinds: &[(&str, &str, &str)],
    ) -> Vec<Result<ServedKind, ClusterError>> {
        let mut wanted: Vec<(&str, &str)> = Vec::new();
        let mut at: std::collections::HashMap<(&str, &str), usize> = Default::default();
        for &(group, version, _) in kinds {
            at.entry((group, version)).or_insert_with(|| {
                wanted.push((group, version));
                wanted.len() - 1
            });
        }
        // At most DISCOVERY_IN_FLIGHT requests at once, in order: a status naming thousands of
        // group versions is read without opening thousands of connections.
        use futures_util::stream::StreamExt as _;
        let served: Vec<Served> =
            futures_util::stream::iter(wanted.iter().map(|(g, v)| self.served(g, v)))
                .buffered(DISCOVERY_IN_FLIGHT)
                .collect()
                .await;
        let mut out = Vec::with_capacity(kinds.len());
        for &(group, version, kind) in kinds {
            out.push(match &served[at[&(group, version)]] {
                Ok(served) => find_kind(served.as_deref(), group, version, kind)
                    .ok_or_else(|| not_installed(group, version, kind)),
                Err(e) => Err(e.clone()),
            });
        }
        out
    }

    /// The resources a group version serves (one request), None when it is not served at all.
    async fn served(&self, group: &str, version: &str) -> Served {
        let gv = group_version(group, version);
        let url = super::path::discovery(group, version).map_err(|e| *e)?;
        let op = discovery_op(&gv);
        let list = match self
            .call(&op, || {
                http::Request::get(url.clone())
                    .body(Vec::new())
                    .map_err(|e| e.to_string())
            })
            .await
        {
            Ok(v) => v,
            Err(ClusterError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        match list.get("resources").and_then(Value::as_array) {
            Some(resources) => Ok(Some(resources.clone())),
            None => Err(ClusterError::Malformed {
                verb: op.verb.into(),
                resource: op.resource.clone(),
                scope: String::new(),
                detail: "no resources list".into(),
            }),
        }
    }
}

/// What a group version serves: its resources, None when it is not served at all.
type Served = Result<Option<Vec<Value>>, ClusterError>;

/// The error for a kind discovery does not list.
fn not_installed(group: &str, version: &str, kind: &str) -> ClusterError {
    ClusterError::NotInstalled {
        kind: kind.to_string(),
        group_version: group_version(group, version),
    }
}

/// `v1` for the core group, `group/version` otherwise.
fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// The kind among the resources a group version serves (None: the group version is not served,
/// or not this kind). Subresources (`pactos/status`) are not kinds.
fn find_kind(
    served: Option<&[Value]>,
    group: &str,
    version: &str,
    kind: &str,
) -> Option<ServedKind> {
    served?
        .iter()
        .find(|r| {
            r.get("kind").and_then(Value::as_str) == Some(kind)
                && r.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| !n.contains('/'))
        })
        .map(|r| ServedKind {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            plural: r
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            namespaced: r.get("namespaced").and_then(Value::as_bool).unwrap_or(true),
        })
}

#[cfg(test)]
mod tests {
    use super::super::request::time_limit;
    use super::super::ConnectOptions;
    use super::*;

    #[test]
    fn the_default_discovery_timeout_is_kubectl_s_32_s_and_says_so() {
        assert_eq!(DISCOVERY_TIMEOUT, Duration::from_secs(32));
        let default = ConnectOptions::default().discovery_timeout;
        assert_eq!(default, None);
        assert_eq!(discovery_timeout(default), Duration::from_secs(32));
        assert_eq!(
            discovery_timeout(Some(Duration::ZERO)),
            Duration::from_secs(32)
        );
        let op = discovery_op("pacto.trianalab.io/v1alpha1");
        let (after, limit) = time_limit(&op, None, discovery_timeout(default)).unwrap();
        assert_eq!(
            op.timed_out("URL", after, &limit).to_string(),
            "no answer from the API server at URL within 32s (kubectl's discovery timeout; --request-timeout sets another) to discover the API group pacto.trianalab.io/v1alpha1"
        );
        // --request-timeout sets another.
        let (after, limit) =
            time_limit(&op, Some(Duration::from_secs(5)), DISCOVERY_TIMEOUT).unwrap();
        assert_eq!(
            (after, limit.as_str()),
            (Duration::from_secs(5), "--request-timeout")
        );
    }
}
