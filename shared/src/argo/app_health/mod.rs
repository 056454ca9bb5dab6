//! An Application's health from its resources, as the application controller computes it:
//! argo-cd `controller/health.go` (`setApplicationHealth`, `formatHealthCauses`) over
//! gitops-engine `pkg/health/health.go` (`IsWorse` and its health order), `pkg/sync/hook`
//! (`IsHook`, `Skip`) and `pkg/sync/ignore` (`Ignore`), at argo-cd `37ee0097`.
//!
//! Pure logic: the resources come from the Application's `status.resources`, each joined with
//! its live object when one is given, judged by [`ArgoHealth::evaluate`].

use super::health::{shadow_note, ArgoHealth, Decider};
use super::HealthStatus;
use crate::k8s::gvk::{index_by_identity, str_at};
use serde::Serialize;
use serde_json::Value;

/// gitops-engine `healthOrder`, most healthy first.
pub const HEALTH_ORDER: [&str; 6] = [
    "Healthy",
    "Suspended",
    "Progressing",
    "Missing",
    "Degraded",
    "Unknown",
];

/// The index of a code in [`HEALTH_ORDER`]; a code not in it (the empty status a script
/// returning `{}` yields, a misspelling) counts as 0, as `IsWorse` starts both indexes at 0.
pub fn rank(code: &str) -> usize {
    HEALTH_ORDER.iter().position(|c| *c == code).unwrap_or(0)
}

/// gitops-engine `IsWorse(current, new)`: whether `new` ranks after `current`.
pub fn is_worse(current: &str, new: &str) -> bool {
    rank(new) > rank(current)
}

/// argo-cd `common.AnnotationIgnoreHealthCheck`.
pub const IGNORE_HEALTHCHECK: &str = "argocd.argoproj.io/ignore-healthcheck";
/// gitops-engine `common.AnnotationKeyHook`.
pub const HOOK_ANNOTATION: &str = "argocd.argoproj.io/hook";
/// Helm's hook annotation (gitops-engine `pkg/sync/hook/helm`).
pub const HELM_HOOK_ANNOTATION: &str = "helm.sh/hook";

/// Argo CD's hook types (gitops-engine `pkg/sync/common` `NewHookType`).
const HOOK_TYPES: [&str; 6] = [
    "PreSync",
    "Sync",
    "PostSync",
    "SyncFail",
    "PostDelete",
    "Skip",
];

/// One entry of `status.resources`, joined with its live object.
#[derive(Debug, Clone)]
pub struct AppResource<'a> {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// Empty for cluster-scoped resources.
    pub namespace: String,
    pub name: String,
    /// The entry's `hook: true`.
    pub hook: bool,
    /// The entry's recorded `health`, used when no live object is given.
    pub recorded: Option<HealthStatus>,
    /// The live object, when given.
    pub live: Option<&'a Value>,
}

impl AppResource<'_> {
    /// argo-cd `formatHealthCauses`: `group/Kind:namespace/name` (`Kind` without a group, `name`
    /// without a namespace).
    pub fn cause(&self) -> String {
        let gk = if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}/{}", self.group, self.kind)
        };
        if self.namespace.is_empty() {
            format!("{gk}:{}", self.name)
        } else {
            format!("{gk}:{}/{}", self.namespace, self.name)
        }
    }
}

/// Which rule gave a resource its health.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Rule {
    /// The engine's decider on the live object (an argocd-cm key or glob, a built-in script, a
    /// built-in Go check, deletion, none).
    Engine {
        /// [`Decider::name`].
        decider: String,
        /// The override key (`group/Kind` or a glob) or the built-in script path; empty for
        /// the others.
        source: String,
        /// The argocd-cm data keys that made the override (`resource.customizations.health.<group_Kind>`,
        /// `resource.customizations`), in the order applied; empty for the others.
        keys: Vec<String>,
        /// The other matching rules it shadows ([`crate::argo::health::ArgoVerdict::shadows`]).
        shadows: Vec<String>,
        /// Argo CD picks among several wildcard keys at random (argo-cd issue 16905).
        #[serde(rename = "randomPick")]
        random_pick: bool,
    },
    /// No live object given: the health `status.resources` records.
    Recorded,
    /// No live object and nothing recorded but `Missing`: `setApplicationHealth` gives `Missing`.
    NotLive,
}

impl Rule {
    /// The rule as one phrase: `argocd-cm resource.customizations.health.x.io_Y (override
    /// x.io/Y)`, `argocd-cm resource.customizations (override glob *.io/*)`,
    /// `built-in script x.io/Y/health.lua`, `built-in Go check`, `deletion`, `no health check`,
    /// `recorded in status.resources`, `no live object`; then what it shadows
    /// ([`shadow_note`]).
    pub fn describe(&self) -> String {
        match self {
            Rule::Engine {
                decider,
                source,
                keys,
                shadows,
                random_pick,
            } => {
                let rule = match decider.as_str() {
                    "custom" => format!("argocd-cm {} (override {source})", keys.join(", ")),
                    "custom-wildcard" => {
                        format!("argocd-cm {} (override glob {source})", keys.join(", "))
                    }
                    "builtin-lua" => format!("built-in script {source}"),
                    "builtin-go" => "built-in Go check".into(),
                    "deletion" => "deletion (metadata.deletionTimestamp)".into(),
                    _ => "no health check".into(),
                };
                format!("{rule}{}", shadow_note(shadows, *random_pick))
            }
            Rule::Recorded => "recorded in status.resources".into(),
            Rule::NotLive => "no live object".into(),
        }
    }
}

/// Whether a resource's health counts, and if not, which rule of `setApplicationHealth` left it
/// out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Counted {
    /// Aggregated into the Application's health.
    Counted,
    /// A hook (`hook: true`, an `argocd.argoproj.io/hook` or `helm.sh/hook` annotation other
    /// than `Skip` alone, or a hook annotation without a valid type).
    Hook,
    /// The live object is annotated `argocd.argoproj.io/ignore-healthcheck: "true"`.
    IgnoreHealthcheck,
    /// The live object is the Application itself.
    SelfReference,
    /// No health check applies (nil health).
    NoHealth,
    /// Missing and not live: the OutOfSync status already says so.
    MissingNotLive,
    /// A child Application that is Missing or Unknown.
    ChildApplication,
}

impl Counted {
    /// Why it does not count, in words; empty for [`Counted::Counted`].
    pub fn reason(self) -> &'static str {
        match self {
            Counted::Counted => "",
            Counted::Hook => "a hook: hooks do not count",
            Counted::IgnoreHealthcheck => {
                "annotated argocd.argoproj.io/ignore-healthcheck: \"true\""
            }
            Counted::SelfReference => "the Application itself",
            Counted::NoHealth => "no health: does not affect the Application",
            Counted::MissingNotLive => "not live: Missing does not count (OutOfSync says it)",
            Counted::ChildApplication => "a child Application that is Missing or Unknown",
        }
    }
}

/// One resource judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged {
    /// Index in `status.resources`.
    pub index: usize,
    pub group: String,
    pub version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// None when no check applies or the resource was left out before it was judged.
    pub health: Option<HealthStatus>,
    pub rule: Rule,
    pub counted: Counted,
    /// Whether it is one of the causes the controller names.
    pub cause: bool,
    /// The engine's error (the health is then `Unknown` with it).
    pub error: Option<String>,
}

/// The Application's health and what decided it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppHealth {
    /// The health code `setApplicationHealth` returns.
    pub status: String,
    /// `formatHealthCauses`: `Caused by <cause>, ... and N more` (at most 3 named), empty when
    /// there is no cause.
    pub message: String,
    /// Every resource, worst first: counted ones by [`HEALTH_ORDER`] descending (the causes
    /// first among equals), then the ones left out; ties keep `status.resources` order.
    pub resources: Vec<Judged>,
    /// The error the controller would report (a ComparisonError condition): that of the first
    /// resource whose check failed.
    pub error: Option<String>,
}

/// `formatHealthCauses`'s bound on the causes it names.
pub const MAX_HEALTH_CAUSES_SHOWN: usize = 3;

/// gitops-engine `hook.IsHook` on a live object, and `ignore.Ignore`: a hook annotation (Argo's,
/// else Helm's) makes it a hook unless its only type is `Skip`; `Ignore` adds hook annotations
/// with no valid type, which `IsHook` already counts here.
fn is_hook(live: &Value) -> bool {
    let ann = live.pointer("/metadata/annotations");
    let get = |k: &str| ann.and_then(|a| a.get(k)).and_then(Value::as_str);
    if let Some(v) = get(HOOK_ANNOTATION) {
        let types: Vec<&str> = csv(v)
            .into_iter()
            .filter(|t| HOOK_TYPES.contains(t))
            .collect();
        return !(types.len() == 1 && types[0] == "Skip");
    }
    // helm `IsHook`: the annotation present (`Ignore` also drops one without a known type,
    // which this already counts).
    get(HELM_HOOK_ANNOTATION).is_some()
}

/// gitops-engine `GetAnnotationCSVs`: split on commas, trimmed, empty parts dropped.
fn csv(v: &str) -> Vec<&str> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The Application's `status.resources`, each joined with the live object of the same group,
/// kind, namespace and name among `live`. Errors: `status.resources` is not a list, or an entry
/// is not an object.
pub fn resources<'a>(app: &Value, live: &'a [Value]) -> Result<Vec<AppResource<'a>>, String> {
    resources_in(app, &index_by_identity(live))
}

/// [`resources`] over live objects already indexed (`index_by_identity`): for a caller that
/// looks up many Applications among the same objects (a tree of apps). Errors: as
/// [`resources`], and a field of an entry (`group`, `version`, `kind`, `namespace`, `name`,
/// `health.status`, `health.message`) that is not a string, `hook` that is not a boolean.
pub fn resources_in<'a>(
    app: &Value,
    index: &crate::k8s::gvk::Index<'a>,
) -> Result<Vec<AppResource<'a>>, String> {
    let list = match app.pointer("/status/resources") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err("status.resources: not a list".into()),
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, e) in list.iter().enumerate() {
        if !e.is_object() {
            return Err(format!("status.resources[{i}]: not an object"));
        }
        // ResourceStatus is a typed struct in Argo CD: a field of another type would not
        // decode (the API server's schema refuses it), so it is an error here, not an empty
        // string.
        let text = |v: Option<&Value>, path: &str| -> Result<String, String> {
            match v {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(t)) => Ok(t.clone()),
                Some(other) => Err(format!(
                    "status.resources[{i}].{path}: expected a string, found {}",
                    crate::object::json_type(other)
                )),
            }
        };
        let s = |k: &str| text(e.get(k), k);
        let (group, kind, namespace, name) = (s("group")?, s("kind")?, s("namespace")?, s("name")?);
        let recorded = match e.get("health") {
            Some(h) if h.is_object() => Some(HealthStatus::new(
                &text(h.get("status"), "health.status")?,
                &text(h.get("message"), "health.message")?,
            )),
            _ => None,
        };
        let hook = match e.get("hook") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(format!(
                    "status.resources[{i}].hook: expected a boolean, found {}",
                    crate::object::json_type(other)
                ))
            }
        };
        let found = index
            .get(&(
                group.clone(),
                kind.as_str(),
                namespace.as_str(),
                name.as_str(),
            ))
            .copied();
        out.push(AppResource {
            version: s("version")?,
            hook,
            recorded,
            live: found,
            group,
            kind,
            namespace,
            name,
        });
    }
    Ok(out)
}

/// argo-cd `setApplicationHealth` over `resources` for the Application `app` (its
/// `metadata.name` and `.namespace` find a self-reference), judging live objects with
/// `engine`. A resource without a live object takes its recorded health; recorded as `Missing`
/// or not recorded, it is not live (the controller's `Live == nil`).
pub fn app_health(app: &Value, resources: &[AppResource<'_>], engine: &ArgoHealth) -> AppHealth {
    let (app_name, app_ns) = (
        str_at(app, "/metadata/name"),
        str_at(app, "/metadata/namespace"),
    );
    let mut status = "Healthy".to_string();
    let mut contains_resources = false;
    let mut contains_live = false;
    let mut judged = Vec::with_capacity(resources.len());
    let mut errors: Vec<String> = Vec::new();
    for (i, r) in resources.iter().enumerate() {
        let mut j = Judged {
            index: i,
            group: r.group.clone(),
            version: r.version.clone(),
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            health: None,
            rule: Rule::NotLive,
            counted: Counted::Counted,
            cause: false,
            error: None,
        };
        // Without the live object, a recorded health other than Missing stands for it.
        let recorded_live =
            r.live.is_none() && r.recorded.as_ref().is_some_and(|h| h.status != "Missing");
        let is_live = r.live.is_some() || recorded_live;
        if r.hook || r.live.is_some_and(is_hook) {
            j.counted = Counted::Hook;
            judged.push(j);
            continue;
        }
        contains_resources = true;
        contains_live |= is_live;
        if let Some(live) = r.live {
            let ignored = live
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(IGNORE_HEALTHCHECK))
                .and_then(Value::as_str)
                == Some("true");
            if ignored {
                j.counted = Counted::IgnoreHealthcheck;
                judged.push(j);
                continue;
            }
            // appcontroller.go `isSelfReferencedApp`: same UID, name, namespace and GroupKind.
            let self_ref = crate::k8s::gvk_of(live).group == "argoproj.io"
                && str_at(live, "/metadata/uid") == str_at(app, "/metadata/uid")
                && str_at(live, "/kind") == "Application"
                && str_at(live, "/metadata/name") == app_name
                && str_at(live, "/metadata/namespace") == app_ns;
            if self_ref {
                j.counted = Counted::SelfReference;
                judged.push(j);
                continue;
            }
            let v = engine.evaluate(live);
            let source = v.decider.source();
            let keys = match &v.decider {
                Decider::Custom { key } | Decider::CustomWildcard { key } => engine
                    .overrides
                    .by_key
                    .get(key)
                    .map(|o| o.keys.clone())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            j.rule = Rule::Engine {
                decider: v.decider.name().into(),
                source,
                keys,
                shadows: v.shadows.clone(),
                random_pick: v.random_pick,
            };
            if let Some(e) = &v.error {
                errors.push(format!(
                    "failed to get resource health for {:?} with name {:?} in namespace {:?}: {e}",
                    r.kind, r.name, r.namespace
                ));
            }
            j.error = v.error;
            j.health = v.health;
        } else if recorded_live {
            j.rule = Rule::Recorded;
            j.health = r.recorded.clone();
        } else {
            j.health = Some(HealthStatus::new(
                "Missing",
                r.recorded
                    .as_ref()
                    .map(|h| h.message.clone())
                    .unwrap_or_default(),
            ));
        }
        let Some(h) = &j.health else {
            j.counted = Counted::NoHealth;
            judged.push(j);
            continue;
        };
        if !is_live && h.status == "Missing" {
            j.counted = Counted::MissingNotLive;
        } else if r.kind == "Application"
            && r.group == "argoproj.io"
            && (h.status == "Missing" || h.status == "Unknown")
        {
            j.counted = Counted::ChildApplication;
        } else if is_worse(&status, &h.status) {
            status = h.status.clone();
        }
        judged.push(j);
    }
    let mut all_missing = false;
    if contains_resources && !contains_live && is_worse(&status, "Missing") {
        status = "Missing".into();
        all_missing = true;
    }
    if status != "Healthy" && !all_missing {
        for j in judged.iter_mut() {
            j.cause = j.counted == Counted::Counted
                && j.health.as_ref().is_some_and(|h| h.status == status);
        }
    }
    let causes: Vec<String> = judged
        .iter()
        .filter(|j| j.cause)
        .map(|j| resources[j.index].cause())
        .collect();
    let message = format_causes(&causes);
    judged.sort_by_key(|j| {
        let counted = j.counted == Counted::Counted;
        let r = j.health.as_ref().map(|h| rank(&h.status)).unwrap_or(0);
        (!counted, !j.cause, std::cmp::Reverse(r))
    });
    // The controller keeps the first error only (it counts errors only while none is saved, so
    // its "see application-controller logs for N other errors" wrapping never applies).
    let error = errors.into_iter().next();
    AppHealth {
        status,
        message,
        resources: judged,
        error,
    }
}

/// `formatHealthCauses`: `Caused by a, b, c and N more`, empty for none.
pub fn format_causes(causes: &[String]) -> String {
    if causes.is_empty() {
        return String::new();
    }
    let shown = causes[..causes.len().min(MAX_HEALTH_CAUSES_SHOWN)].join(", ");
    if causes.len() > MAX_HEALTH_CAUSES_SHOWN {
        format!(
            "Caused by {shown} and {} more",
            causes.len() - MAX_HEALTH_CAUSES_SHOWN
        )
    } else {
        format!("Caused by {shown}")
    }
}

#[cfg(test)]
mod tests;
