//! The objects Pacto delivery reads from a cluster (docs/design.md, "Pacto delivery: the settled
//! names"): Stages, Operations and Approvals (`delivery.pacto.trianalab.io/v1alpha1`), Flux
//! OCIRepositories (`source.toolkit.fluxcd.io/v1`) and Kustomizations
//! (`kustomize.toolkit.fluxcd.io/v1`), Argo CD Applications (`argoproj.io/v1alpha1`). Each kind is
//! listed in pages of `--chunk-size` objects (500 by default: one call per 500 objects), and each
//! group version costs one discovery, whatever the number of objects. What the objects mean is not
//! known here: they come back as the API server sent them.

use super::{Cluster, ClusterError, Scope};
use serde_json::Value;

/// The delivery API group and version.
const DELIVERY: (&str, &str) = ("delivery.pacto.trianalab.io", "v1alpha1");

/// Which delivery objects to read, and in which namespaces (None: not wanted).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeliveryQuery<'a> {
    pub stages: Option<Scope<'a>>,
    pub operations: Option<Scope<'a>>,
    pub approvals: Option<Scope<'a>>,
    /// The kinds that apply a Stage and hold its candidates: OCIRepositories, Kustomizations and
    /// Applications, of every namespace.
    pub appliers: bool,
}

/// One kind as read: None when it was not asked for; `Err(ClusterError::NotInstalled)` when the
/// cluster does not serve it; another error when it could not be read (403 names the verb and
/// the resource).
pub type Read = Option<Result<Vec<Value>, ClusterError>>;

/// The delivery objects of a cluster, each kind on its own.
#[derive(Debug, Default)]
pub struct DeliveryObjects {
    pub stages: Read,
    pub operations: Read,
    pub approvals: Read,
    pub oci_repositories: Read,
    pub kustomizations: Read,
    pub applications: Read,
}

impl Cluster {
    /// Reads what `query` asks for: one discovery per group version, then one paged list per kind
    /// ([`Cluster::list`]). A kind that is not installed, or cannot be read, does not stop the
    /// others.
    pub async fn delivery_objects(&self, query: &DeliveryQuery<'_>) -> DeliveryObjects {
        let mut wanted: Vec<((&str, &str, &str), Scope<'_>)> = Vec::new();
        let delivery = [
            ("Stage", query.stages),
            ("Operation", query.operations),
            ("Approval", query.approvals),
        ];
        for (kind, scope) in delivery {
            if let Some(scope) = scope {
                wanted.push(((DELIVERY.0, DELIVERY.1, kind), scope));
            }
        }
        if query.appliers {
            wanted.extend([
                (
                    ("source.toolkit.fluxcd.io", "v1", "OCIRepository"),
                    Scope::All,
                ),
                (
                    ("kustomize.toolkit.fluxcd.io", "v1", "Kustomization"),
                    Scope::All,
                ),
                (("argoproj.io", "v1alpha1", "Application"), Scope::All),
            ]);
        }
        let gvks: Vec<(&str, &str, &str)> = wanted.iter().map(|(gvk, _)| *gvk).collect();
        let kinds = self.discover_each(&gvks).await;
        let mut out = DeliveryObjects::default();
        for (((_, _, kind), scope), found) in wanted.into_iter().zip(kinds) {
            let read = match found {
                Ok(k) => self.list(&k, scope, None).await,
                Err(e) => Err(e),
            };
            let slot = match kind {
                "Stage" => &mut out.stages,
                "Operation" => &mut out.operations,
                "Approval" => &mut out.approvals,
                "OCIRepository" => &mut out.oci_repositories,
                "Kustomization" => &mut out.kustomizations,
                _ => &mut out.applications,
            };
            *slot = Some(read);
        }
        out
    }
}
