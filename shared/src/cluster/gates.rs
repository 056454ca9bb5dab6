//! The gates as configured in a cluster: Argo CD's argocd-cm and every Flux Kustomization (with
//! its inventory). Whatever cannot be read is replaced by the recommended gate, with the reason.

use super::{Cluster, Kind, Scope};
use crate::pacto::gate::{ArgoGate, FluxGate, FluxKustomization};

/// Reads `argocd_namespace/argocd-cm` (one GET) and all Kustomizations
/// (`kustomize.toolkit.fluxcd.io/v1`, one discovery and one list). A Kustomization that cannot
/// be read is skipped (Flux could not apply it either). `now_unix` is the clock of the engines.
pub async fn cluster_gates(
    cluster: &Cluster,
    argocd_namespace: &str,
    warning_blocks: bool,
    now_unix: i64,
) -> (ArgoGate, FluxGate) {
    let argo = match cluster
        .get(&Kind::configmap(), argocd_namespace, "argocd-cm")
        .await
    {
        Ok(cm) => ArgoGate::from_configmap(
            &cm,
            format!("argocd-cm {argocd_namespace}/argocd-cm"),
            now_unix,
        ),
        Err(e) => ArgoGate::recommended(
            format!("argocd-cm not readable: {e}"),
            warning_blocks,
            now_unix,
        ),
    };
    let listed = match cluster
        .discover("kustomize.toolkit.fluxcd.io", "v1", "Kustomization")
        .await
    {
        Ok(kind) => cluster.list(&kind, Scope::All, None).await,
        Err(e) => Err(e),
    };
    let flux = match listed {
        Ok(items) => FluxGate {
            kustomizations: items
                .iter()
                .filter_map(|k| FluxKustomization::new(k, true, now_unix).ok())
                .collect(),
            complete: true,
            ..FluxGate::recommended(
                "no Kustomization's inventory holds it",
                warning_blocks,
                now_unix,
            )
        },
        Err(e) => FluxGate::recommended(
            format!("Kustomizations not readable: {e}"),
            warning_blocks,
            now_unix,
        ),
    };
    (argo, flux)
}
