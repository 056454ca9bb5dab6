//! The objects Pacto delivery reads from a cluster (docs/design.md, "Pacto delivery: the settled
//! names"): Stages, Operations and Approvals (`delivery.pacto.trianalab.io/v1alpha1`), Flux
//! OCIRepositories (`source.toolkit.fluxcd.io/v1`) and Kustomizations
//! (`kustomize.toolkit.fluxcd.io/v1`), Argo CD Applications (`argoproj.io/v1alpha1`). Each kind is
//! listed in pages of `--chunk-size` objects (500 by default: one call per 500 objects), and each
//! group version costs one discovery, whatever the number of objects. A kind may be read in some
//! namespaces only, one list per namespace, a namespace that cannot be read leaving the others
//! read. What the objects mean is not known here: they come back as the API server sent them.

use super::{Cluster, ClusterError, Scope};
use crate::kinds::{
    ApiKind, APPROVAL, KUSTOMIZATION, OCI_REPOSITORY, OPERATION, STAGE, STAGE_DEPENDENCIES,
};
use serde_json::Value;

/// Which delivery objects to read, and in which namespaces (None: not wanted).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeliveryQuery<'a> {
    pub stages: Option<Scope<'a>>,
    pub operations: Option<Scope<'a>>,
    pub approvals: Option<Scope<'a>>,
    /// The kinds that apply a Stage and hold its candidates: OCIRepositories, Kustomizations and
    /// Applications, of every namespace.
    pub appliers: bool,
    /// Kinds read in these namespaces only (each with its namespaces; one paged list per kind and
    /// namespace), when `appliers` is not set.
    pub in_namespaces: &'a [(ApiKind, Vec<String>)],
}

/// One kind as read: None when it was not asked for; `Err(ClusterError::NotInstalled)` when the
/// cluster does not serve it; another error when it could not be read (403 names the verb and
/// the resource).
pub type ListRead = Option<Result<Vec<Value>, ClusterError>>;

/// The delivery objects of a cluster, each kind on its own.
#[derive(Debug, Default)]
pub struct DeliveryObjects {
    pub stages: ListRead,
    pub operations: ListRead,
    pub approvals: ListRead,
    pub oci_repositories: ListRead,
    pub kustomizations: ListRead,
    pub applications: ListRead,
    /// Of the kinds read in some namespaces ([`DeliveryQuery::in_namespaces`]): each namespace
    /// whose list failed, with the error (the kind's list holds what the other namespaces had).
    pub unreadable: Vec<(ApiKind, String, ClusterError)>,
}

impl Cluster {
    /// Reads what `query` asks for: one discovery per group version, then one paged list per kind
    /// ([`Cluster::list`]). A kind that is not installed, or cannot be read, does not stop the
    /// others.
    pub async fn delivery_objects(&self, query: &DeliveryQuery<'_>) -> DeliveryObjects {
        // Each kind with where it is read: every namespace, or some.
        let mut wanted: Vec<(ApiKind, Option<Scope<'_>>, &[String])> = Vec::new();
        let delivery = [
            (STAGE, query.stages),
            (OPERATION, query.operations),
            (APPROVAL, query.approvals),
        ];
        for (kind, scope) in delivery {
            if let Some(scope) = scope {
                wanted.push((kind, Some(scope), &[]));
            }
        }
        if query.appliers {
            wanted.extend(STAGE_DEPENDENCIES.map(|k| (k, Some(Scope::All), &[][..])));
        } else {
            for (kind, namespaces) in query.in_namespaces {
                wanted.push((*kind, None, namespaces.as_slice()));
            }
        }
        let gvks: Vec<(&str, &str, &str)> = wanted.iter().map(|(k, _, _)| k.gvk()).collect();
        let kinds = self.discover_each(&gvks).await;
        let mut out = DeliveryObjects::default();
        for ((wanted, scope, namespaces), found) in wanted.into_iter().zip(kinds) {
            let read = match (found, scope) {
                (Err(e), _) => Err(e),
                (Ok(k), Some(scope)) => self.list(&k, scope, None).await.map(|l| l.items),
                (Ok(k), None) => {
                    let mut items = Vec::new();
                    for ns in namespaces {
                        match self.list(&k, Scope::Namespace(ns), None).await {
                            Ok(found) => items.extend(found.items),
                            Err(e) => out.unreadable.push((wanted, ns.clone(), e)),
                        }
                    }
                    Ok(items)
                }
            };
            let slot = match wanted {
                STAGE => &mut out.stages,
                OPERATION => &mut out.operations,
                APPROVAL => &mut out.approvals,
                OCI_REPOSITORY => &mut out.oci_repositories,
                KUSTOMIZATION => &mut out.kustomizations,
                _ => &mut out.applications,
            };
            *slot = Some(read);
        }
        out
    }
}
