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

/// What one read of the cluster came to, for [`could_not_run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Objects were read (a list answered, a ConfigMap was there).
    Read,
    /// Nothing of it exists: the kind is not installed, the ConfigMap is not there.
    Absent,
    /// The server refused it (forbidden, unauthorized): not checked, as the credentials
    /// allow.
    Unreadable,
    /// Reading it failed (an answer too large, malformed, timed out, a server error): not
    /// checked, and the check is incomplete.
    Failed,
}

/// Whether `doctor --cluster` could not run (exit 2, as kubectl's checks exit when they could
/// not check): something could not be read and nothing was. A cluster where every kind is
/// simply absent was checked (nothing there to judge: exit 0 with notes); one where some kinds
/// could not be read but others were is checked in part (those are named as not checked).
pub fn could_not_run(outcomes: &[ReadOutcome]) -> bool {
    outcomes
        .iter()
        .any(|o| matches!(o, ReadOutcome::Unreadable | ReadOutcome::Failed))
        && !outcomes.contains(&ReadOutcome::Read)
}

/// The exit code of a `doctor --cluster` run whose report alone would exit `report`: 2 when a
/// read failed (the report is printed, but a kind it should have judged was lost, so a CI job
/// must not go green on it), else the report's. A kind the credentials may not read is checked
/// in part, as the notes say.
pub fn exit_code(outcomes: &[ReadOutcome], report: u8) -> u8 {
    if outcomes.contains(&ReadOutcome::Failed) {
        2
    } else {
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::STAGE_DEPENDENCIES;

    /// docs/doctor.md's exit codes for `doctor --cluster`: 2 when nothing readable was read.
    #[test]
    fn doctor_could_not_run_only_when_nothing_was_read() {
        use ReadOutcome::*;
        let cases: &[(&[ReadOutcome], bool)] = &[
            (&[Unreadable, Unreadable], true),
            // A missing argocd-cm says Argo CD is not there, but no kind was read.
            (&[Absent, Unreadable, Unreadable], true),
            (&[Absent, Absent], false),
            (&[Read, Unreadable], false),
            (&[Read], false),
            (&[], false),
        ];
        for (outcomes, want) in cases {
            assert_eq!(could_not_run(outcomes), *want, "{outcomes:?}");
        }
        assert!(could_not_run(&[Failed, Absent]));
    }

    /// A read that failed makes the run exit 2 whatever the report found; a refused one leaves
    /// the report's code.
    #[test]
    fn doctor_exits_2_when_a_read_failed() {
        use ReadOutcome::*;
        let cases: &[(&[ReadOutcome], u8, u8)] = &[
            (&[Read, Failed], 0, 2),
            (&[Read, Failed], 1, 2),
            (&[Read, Unreadable], 0, 0),
            (&[Read, Unreadable], 1, 1),
            (&[Read, Absent], 0, 0),
        ];
        for (outcomes, report, want) in cases {
            assert_eq!(exit_code(outcomes, *report), *want, "{outcomes:?} {report}");
        }
    }

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
