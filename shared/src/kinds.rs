//! The kinds this tool reads, each named once by API group, version and kind, and which of them
//! Pacto delivery reads together: the kinds a Stage depends on (the OCIRepositories that carry
//! its candidates and its pointer, the Flux Kustomizations and Argo CD Applications that apply
//! it) and the kinds an Operation's report reads beside it (its Stage and the Approvals). Pure,
//! and beside `object` below every module that reads objects, so that the one list serves the
//! cluster reads, the delivery views and the checks alike.
//!
//! Sources: the delivery kinds are Pacto's (`delivery.pacto.trianalab.io/v1alpha1`, "Delivery
//! reference: setup and gates"); Flux's are source-controller `api/v1` (`OCIRepository`),
//! kustomize-controller `api/v1` (`Kustomization`) and helm-controller `api/v2`
//! (`HelmRelease`); Argo CD's `Application` is argo-cd `pkg/apis/application/v1alpha1`; the
//! Pacto operator's `Pacto` is TrianaLab/pacto `api/v1alpha1`.

use serde_json::Value;

/// One kind, as an object's `apiVersion` and `kind` name it (the empty group is the core API).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiKind {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
}

impl ApiKind {
    /// Whether `o` is an object of this kind (any version of the group: a file may hold an
    /// older `apiVersion` of the same kind).
    pub fn is(&self, o: &Value) -> bool {
        let gvk = crate::k8s::gvk_of(o);
        gvk.group == self.group && gvk.kind == self.kind
    }

    /// The objects of `all` that are of this kind, in order.
    pub fn select(&self, all: &[Value]) -> Vec<Value> {
        all.iter().filter(|o| self.is(o)).cloned().collect()
    }

    /// `(group, version, kind)`, as discovery takes it.
    pub fn gvk(&self) -> (&'static str, &'static str, &'static str) {
        (self.group, self.version, self.kind)
    }

    /// `Kind (group)`, or `Kind` for the core group: how messages name the kind.
    pub fn describe(&self) -> String {
        if self.group.is_empty() {
            self.kind.to_string()
        } else {
            format!("{} ({})", self.kind, self.group)
        }
    }
}

/// The Pacto delivery API group (Stages, Operations, Approvals).
pub const DELIVERY_GROUP: &str = "delivery.pacto.trianalab.io";
/// The Pacto delivery API version.
pub const DELIVERY_VERSION: &str = "v1alpha1";

const fn delivery(kind: &'static str) -> ApiKind {
    ApiKind {
        group: DELIVERY_GROUP,
        version: DELIVERY_VERSION,
        kind,
    }
}

/// A delivery Stage.
pub const STAGE: ApiKind = delivery("Stage");
/// A delivery Operation.
pub const OPERATION: ApiKind = delivery("Operation");
/// A delivery Approval.
pub const APPROVAL: ApiKind = delivery("Approval");
/// A Pacto contract.
pub const PACTO: ApiKind = ApiKind {
    group: "pacto.trianalab.io",
    version: "v1alpha1",
    kind: "Pacto",
};
/// Coder's CoderTemplateTest, gated as Pactos are ("Gate template promotion with GitOps").
pub const CODER_TEMPLATE_TEST: ApiKind = ApiKind {
    group: "coder.com",
    version: "v1alpha1",
    kind: "CoderTemplateTest",
};
/// Flux's OCIRepository (source-controller).
pub const OCI_REPOSITORY: ApiKind = ApiKind {
    group: "source.toolkit.fluxcd.io",
    version: "v1",
    kind: "OCIRepository",
};
/// Flux's Kustomization (kustomize-controller).
pub const KUSTOMIZATION: ApiKind = ApiKind {
    group: "kustomize.toolkit.fluxcd.io",
    version: "v1",
    kind: "Kustomization",
};
/// Flux's HelmRelease (helm-controller).
pub const HELM_RELEASE: ApiKind = ApiKind {
    group: "helm.toolkit.fluxcd.io",
    version: "v2",
    kind: "HelmRelease",
};
/// Argo CD's Application.
pub const APPLICATION: ApiKind = ApiKind {
    group: "argoproj.io",
    version: "v1alpha1",
    kind: "Application",
};
/// The core Pod.
pub const POD: ApiKind = ApiKind {
    group: "",
    version: "v1",
    kind: "Pod",
};

/// The kinds a Stage's conditions depend on besides Stages ("Delivery reference: setup and
/// gates"): the OCIRepositories (the apply repository its pointer writes, the candidate
/// repository), and its appliers, Flux Kustomizations or Argo CD Applications. Read from every
/// namespace: a reference may cross namespaces.
pub const STAGE_DEPENDENCIES: [ApiKind; 3] = [OCI_REPOSITORY, KUSTOMIZATION, APPLICATION];

/// The kinds an Operation's report reads besides the Operation: the Stage it names and the
/// Approvals that may count for it.
pub const OPERATION_DEPENDENCIES: [ApiKind; 2] = [STAGE, APPROVAL];

/// Whether `o` is of a kind that Stages and Operations depend on and that is not delivered on
/// its own: an Approval, an OCIRepository, a Kustomization or an Application (a Stage an
/// Operation names is itself delivered, so it is not one of them).
pub fn is_dependency(o: &Value) -> bool {
    APPROVAL.is(o) || STAGE_DEPENDENCIES.iter().any(|k| k.is(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each kind as its upstream API package serves it (source-controller `api/v1`,
    /// kustomize-controller `api/v1`, helm-controller `api/v2`, argo-cd
    /// `pkg/apis/application/v1alpha1`), and which of them a Stage and an Operation read
    /// ("Delivery reference: setup and gates": a Stage names its candidate and apply
    /// OCIRepositories and is applied by a Kustomization or an Application; an Operation names
    /// its Stage and is decided by Approvals).
    #[test]
    fn the_kinds_a_stage_and_an_operation_depend_on() {
        let table = [
            ("source.toolkit.fluxcd.io/v1", "OCIRepository", true),
            ("source.toolkit.fluxcd.io/v1beta2", "OCIRepository", true),
            ("kustomize.toolkit.fluxcd.io/v1", "Kustomization", true),
            ("argoproj.io/v1alpha1", "Application", true),
            ("delivery.pacto.trianalab.io/v1alpha1", "Approval", true),
            // Delivered on their own.
            ("delivery.pacto.trianalab.io/v1alpha1", "Stage", false),
            ("delivery.pacto.trianalab.io/v1alpha1", "Operation", false),
            ("pacto.trianalab.io/v1alpha1", "Pacto", false),
            // The same kind names in other groups are other kinds.
            ("kustomize.config.k8s.io/v1beta1", "Kustomization", false),
            ("app.k8s.io/v1beta1", "Application", false),
            ("source.toolkit.fluxcd.io/v1", "GitRepository", false),
        ];
        for (api_version, kind, want) in table {
            let o = json!({"apiVersion": api_version, "kind": kind});
            assert_eq!(is_dependency(&o), want, "{api_version} {kind}");
        }
        let groups: Vec<(&str, &str)> = STAGE_DEPENDENCIES
            .iter()
            .map(|k| (k.group, k.version))
            .collect();
        assert_eq!(
            groups,
            [
                ("source.toolkit.fluxcd.io", "v1"),
                ("kustomize.toolkit.fluxcd.io", "v1"),
                ("argoproj.io", "v1alpha1"),
            ]
        );
        assert_eq!(
            OPERATION_DEPENDENCIES.map(|k| k.kind),
            ["Stage", "Approval"]
        );
        assert_eq!(POD.describe(), "Pod");
        assert_eq!(
            HELM_RELEASE.describe(),
            "HelmRelease (helm.toolkit.fluxcd.io)"
        );
    }
}
