//! What `doctor --cluster` reads from a cluster: two ConfigMaps of Argo CD's namespace, every
//! object of the kinds the checks judge (across all namespaces), and the Pods of Argo CD's
//! application controller (for the restart check, A08). The reading itself is the caller's.

use crate::kinds::{
    ApiKind, APPLICATION, CODER_TEMPLATE_TEST, HELM_RELEASE, KUSTOMIZATION, OCI_REPOSITORY, PACTO,
    POD, STAGE,
};

/// The ConfigMaps read from Argo CD's namespace (`--argocd-namespace`): `argocd-cm` (the
/// resource customizations) and `argocd-cmd-params-cm` (the controller's parameters).
pub const ARGOCD_CONFIGMAPS: [&str; 2] = ["argocd-cm", "argocd-cmd-params-cm"];

/// The kinds listed, in the order their notes are given: Flux's appliers of the gates
/// (Kustomizations, HelmReleases), the gated kinds (Pactos, CoderTemplateTests), delivery
/// Stages and the kinds the Stage checks read with them (OCIRepositories, Applications; the
/// Kustomizations are the first entry), then [`POD`], which is listed in Argo CD's namespace
/// only, with [`CONTROLLER_POD_SELECTOR`].
pub const KINDS: [ApiKind; 8] = [
    KUSTOMIZATION,
    HELM_RELEASE,
    PACTO,
    CODER_TEMPLATE_TEST,
    STAGE,
    OCI_REPOSITORY,
    APPLICATION,
    POD,
];

/// The label of the application controller's Pods in Argo CD's install manifests (argo-cd
/// `manifests/base/application-controller`, `app.kubernetes.io/name`).
pub const CONTROLLER_POD_SELECTOR: &str = "app.kubernetes.io/name=argocd-application-controller";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::STAGE_DEPENDENCIES;

    /// Every kind a Stage depends on is read with the Stages (the delivery checks judge a Stage
    /// against them, as the reconcile does), each once, and Pods come last: they are the only
    /// kind read in one namespace.
    #[test]
    fn doctor_reads_every_kind_a_stage_depends_on() {
        for k in STAGE_DEPENDENCIES {
            assert_eq!(
                KINDS.iter().filter(|x| **x == k).count(),
                1,
                "{}",
                k.describe()
            );
        }
        assert_eq!(KINDS.iter().position(|k| *k == POD), Some(KINDS.len() - 1));
        let described: Vec<String> = KINDS.iter().map(ApiKind::describe).collect();
        assert_eq!(
            described,
            [
                "Kustomization (kustomize.toolkit.fluxcd.io)",
                "HelmRelease (helm.toolkit.fluxcd.io)",
                "Pacto (pacto.trianalab.io)",
                "CoderTemplateTest (coder.com)",
                "Stage (delivery.pacto.trianalab.io)",
                "OCIRepository (source.toolkit.fluxcd.io)",
                "Application (argoproj.io)",
                "Pod",
            ]
        );
    }
}
