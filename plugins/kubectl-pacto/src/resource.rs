//! What `get` lists and what `explain` explains, read from the words users type: the resource
//! types of `get` (`pactos`, `stages`, `operations`, in kubectl's spellings: singular, plural,
//! group-qualified, `TYPE/NAME`) and the `KIND/NAME` targets of `explain`. Checked before
//! anything is read, so a name never reaches a request path unchecked.

use crate::options::check_name;
use anyhow::{bail, Result};
use pacto_gates::kinds::{self, ApiKind};
use serde_json::Value;

pub use pacto_gates::kinds::{DELIVERY_GROUP, DELIVERY_VERSION};

/// A kind `get` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceType {
    Pactos,
    Stages,
    Operations,
}

impl ResourceType {
    /// The kind's API group, version and kind.
    pub fn api_kind(self) -> ApiKind {
        match self {
            ResourceType::Pactos => kinds::PACTO,
            ResourceType::Stages => kinds::STAGE,
            ResourceType::Operations => kinds::OPERATION,
        }
    }

    /// The kind, as objects name it.
    pub fn kind(self) -> &'static str {
        match self {
            ResourceType::Pactos => "Pacto",
            ResourceType::Stages => "Stage",
            ResourceType::Operations => "Operation",
        }
    }

    /// `pactos`, `stages`, `operations`.
    pub fn plural(self) -> &'static str {
        match self {
            ResourceType::Pactos => "pactos",
            ResourceType::Stages => "stages",
            ResourceType::Operations => "operations",
        }
    }

    /// The API group.
    pub fn group(self) -> &'static str {
        match self {
            ResourceType::Pactos => kinds::PACTO.group,
            ResourceType::Stages | ResourceType::Operations => DELIVERY_GROUP,
        }
    }

    /// What `-o name` prints before the slash: `stage.delivery.pacto.trianalab.io`.
    pub fn name_prefix(self) -> String {
        format!("{}.{}", self.kind().to_ascii_lowercase(), self.group())
    }

    /// `stages.delivery.pacto.trianalab.io`: the resource as errors name it.
    pub fn resource(self) -> String {
        format!("{}.{}", self.plural(), self.group())
    }

    /// Whether an object is of this kind.
    pub fn is(self, o: &Value) -> bool {
        let gvk = pacto_gates::k8s::gvk_of(o);
        gvk.group == self.group() && gvk.kind == self.kind()
    }

    fn spellings(self) -> [String; 4] {
        let singular = self.kind().to_ascii_lowercase();
        [
            self.plural().to_string(),
            singular.clone(),
            format!("{}.{}", self.plural(), self.group()),
            format!("{singular}.{}", self.group()),
        ]
    }
}

/// The RESOURCE argument of `get` (`stages`, `stage/NAME`, ...) and the NAME after it: the kind
/// and the one name, if any. Errors: an unknown resource type (naming the three there are), a
/// name given twice or empty, an invalid name.
pub fn get_resource(arg: &str, name: Option<&str>) -> Result<(ResourceType, Option<String>)> {
    let (res, slash_name) = match arg.split_once('/') {
        Some((r, n)) => (r, Some(n.to_string())),
        None => (arg, None),
    };
    let lower = res.to_ascii_lowercase();
    let Some(listed) = [
        ResourceType::Pactos,
        ResourceType::Stages,
        ResourceType::Operations,
    ]
    .into_iter()
    .find(|l| l.spellings().contains(&lower)) else {
        let lower_res = res.to_ascii_lowercase();
        if lower_res.starts_with("codertemplatetest") {
            bail!("\"{res}\" is not a resource type kubectl pacto get knows: it lists pactos, stages and operations (a CoderTemplateTest: kubectl pacto explain codertemplatetest/NAME, or kubectl pacto health -f FILE)");
        }
        bail!("\"{res}\" is not a resource type kubectl pacto get knows: it lists pactos, stages and operations (for one Pacto: kubectl pacto get pactos {res})");
    };
    if slash_name.as_deref() == Some("") {
        bail!("{arg}: a name is needed after the slash");
    }
    let name = match (slash_name, name) {
        (Some(_), Some(_)) => bail!(
            "give the name once: {}/NAME or {} NAME",
            listed.kind().to_ascii_lowercase(),
            listed.plural()
        ),
        (a, b) => a.or(b.map(str::to_string)),
    };
    if let Some(n) = &name {
        check_name(n, &format!("{} name", listed.kind()))?;
    }
    Ok((listed, name))
}

/// What `explain` explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Explained {
    /// A kind the Argo CD and Flux gates judge: (group, version, kind) — Pacto or
    /// CoderTemplateTest.
    Gated(&'static str, &'static str, &'static str),
    Stage,
    Operation,
    /// An Argo CD Application: its health from its resources.
    Application,
    /// A Flux Kustomization: its wait.
    Kustomization,
    /// A Flux HelmRelease: the wait of its latest Helm release.
    HelmRelease,
}

/// A `KIND/NAME` of `explain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: Explained,
    pub name: String,
}

impl Target {
    /// (group, kind) of the target.
    pub fn group_kind(&self) -> (&'static str, &'static str) {
        match self.kind {
            Explained::Gated(group, _, kind) => (group, kind),
            Explained::Stage => (DELIVERY_GROUP, "Stage"),
            Explained::Operation => (DELIVERY_GROUP, "Operation"),
            Explained::Application => (kinds::APPLICATION.group, kinds::APPLICATION.kind),
            Explained::Kustomization => (kinds::KUSTOMIZATION.group, kinds::KUSTOMIZATION.kind),
            Explained::HelmRelease => (kinds::HELM_RELEASE.group, kinds::HELM_RELEASE.kind),
        }
    }

    /// Whether `o` is the object this target names (namespace aside).
    pub fn is(&self, o: &Value) -> bool {
        let gvk = pacto_gates::k8s::gvk_of(o);
        let (group, kind) = self.group_kind();
        gvk.group == group
            && gvk.kind == kind
            && o.pointer("/metadata/name").and_then(Value::as_str) == Some(self.name.as_str())
    }
}

/// `pacto/NAME`, `codertemplatetest/NAME`, `stage/NAME`, `operation/NAME` (plural and
/// group-qualified kinds too).
pub fn explain_target(t: &str) -> Result<Target> {
    let Some((kind, name)) = t.split_once('/') else {
        bail!("{t}: expected KIND/NAME, for example pacto/orders");
    };
    if name.is_empty() {
        bail!("{t}: a name is needed after the slash");
    }
    check_name(name, "name")?;
    let k = kind.to_ascii_lowercase();
    let kind = match k.as_str() {
        "pacto" | "pactos" | "pacto.pacto.trianalab.io" | "pactos.pacto.trianalab.io" => {
            Explained::Gated(kinds::PACTO.group, kinds::PACTO.version, kinds::PACTO.kind)
        }
        "codertemplatetest"
        | "codertemplatetests"
        | "codertemplatetest.coder.com"
        | "codertemplatetests.coder.com" => {
            let k = kinds::CODER_TEMPLATE_TEST;
            Explained::Gated(k.group, k.version, k.kind)
        }
        k if ResourceType::Stages.spellings().iter().any(|s| s == k) => Explained::Stage,
        k if ResourceType::Operations.spellings().iter().any(|s| s == k) => Explained::Operation,
        "application" | "applications" | "app" | "apps" | "application.argoproj.io"
        | "applications.argoproj.io" => Explained::Application,
        "kustomization"
        | "kustomizations"
        | "ks"
        | "kustomization.kustomize.toolkit.fluxcd.io"
        | "kustomizations.kustomize.toolkit.fluxcd.io" => Explained::Kustomization,
        "helmrelease"
        | "helmreleases"
        | "hr"
        | "helmrelease.helm.toolkit.fluxcd.io"
        | "helmreleases.helm.toolkit.fluxcd.io" => Explained::HelmRelease,
        _ => bail!("{t}: kubectl pacto explain knows pacto/NAME, codertemplatetest/NAME, stage/NAME, operation/NAME, application/NAME, kustomization/NAME and helmrelease/NAME"),
    };
    Ok(Target {
        kind,
        name: name.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_the_three_kinds() {
        for (arg, name, want) in [
            ("pactos", None, (ResourceType::Pactos, None)),
            (
                "Stage",
                Some("payments"),
                (ResourceType::Stages, Some("payments")),
            ),
            (
                "stages.delivery.pacto.trianalab.io",
                None,
                (ResourceType::Stages, None),
            ),
            (
                "operation/payments-1-4-0",
                None,
                (ResourceType::Operations, Some("payments-1-4-0")),
            ),
            (
                "operation.delivery.pacto.trianalab.io",
                None,
                (ResourceType::Operations, None),
            ),
        ] {
            let (l, n) = get_resource(arg, name).unwrap();
            assert_eq!((l, n.as_deref()), want, "{arg}");
        }
        let e = get_resource("deployments", None).unwrap_err().to_string();
        assert!(e.contains("it lists pactos, stages and operations"), "{e}");
        let e = get_resource("stage/a", Some("a")).unwrap_err().to_string();
        assert_eq!(e, "give the name once: stage/NAME or stages NAME");
        assert!(get_resource("stage/A_b", None).is_err());
        assert_eq!(
            ResourceType::Stages.name_prefix(),
            "stage.delivery.pacto.trianalab.io"
        );
    }

    #[test]
    fn explain_targets() {
        assert_eq!(
            explain_target("stages/payments").unwrap().kind,
            Explained::Stage
        );
        assert_eq!(
            explain_target("operation.delivery.pacto.trianalab.io/x")
                .unwrap()
                .kind,
            Explained::Operation
        );
        assert_eq!(
            explain_target("pacto/orders").unwrap().group_kind(),
            ("pacto.trianalab.io", "Pacto")
        );
        let e = explain_target("deployment/web").unwrap_err().to_string();
        assert_eq!(e, "deployment/web: kubectl pacto explain knows pacto/NAME, codertemplatetest/NAME, stage/NAME, operation/NAME, application/NAME, kustomization/NAME and helmrelease/NAME");
        assert_eq!(
            explain_target("app/shop").unwrap().kind,
            Explained::Application
        );
        assert_eq!(
            explain_target("ks/apps").unwrap().group_kind(),
            ("kustomize.toolkit.fluxcd.io", "Kustomization")
        );
    }
}
