//! Typed, read-only views of the objects delivery reads, with the field names settled in
//! docs/design.md ("Pacto delivery: the settled names"): Stage, Operation and Approval
//! (`delivery.pacto.trianalab.io/v1alpha1`), the Flux OCIRepository (`source.toolkit.fluxcd.io`)
//! and Kustomization (`kustomize.toolkit.fluxcd.io`), and the Argo CD Application (`argoproj.io`).
//! Reading never fails: a field of the wrong type reads as absent and is named in the view's
//! `problems` (`spec.applyRef.name: expected a string, found a number`), so that a verdict can say
//! which field is at fault. A view borrows its strings from the object it reads (`&'a str`): it
//! copies no text, so a world of views costs little beyond the objects themselves.

use crate::object::json_type;
use serde_json::Value;

/// A field at `path` (`["spec", "applyRef", "name"]`), if every step is an object key.
pub fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.as_object()?.get(*k))
}

/// Reads fields of one object, collecting what is of the wrong type.
pub(crate) struct Reader<'a> {
    obj: &'a Value,
    pub problems: Vec<String>,
}

/// A whole number within int64 (`metadata.generation` is an int64): a float that is one
/// (`2.0`, as a YAML or JSON writer may put it), never one rounded or saturated into range
/// (`2^70` is no generation).
fn int64_of(f: Option<f64>) -> Option<i64> {
    // -2^63 ..= 2^63 - 1: 2^63 is exactly representable, so `<` keeps it out.
    const BOUND: f64 = 9_223_372_036_854_775_808.0;
    f.filter(|f| f.fract() == 0.0 && *f >= -BOUND && *f < BOUND)
        .map(|f| f as i64)
}

impl<'a> Reader<'a> {
    pub fn new(obj: &'a Value) -> Reader<'a> {
        Reader {
            obj,
            problems: Vec::new(),
        }
    }

    /// The field at `path`; a step on the way that is there but not a map (`spec.applyRef:
    /// orders`) is reported once, as the field at fault.
    fn lookup(&mut self, path: &[&str]) -> Option<&'a Value> {
        let mut v = self.obj;
        for (i, k) in path.iter().enumerate() {
            match v {
                Value::Object(m) => v = m.get(*k)?,
                Value::Null => return None,
                other => {
                    if i > 0 {
                        let at = path[..i].join(".");
                        let problem = format!("{at}: expected a map, found {}", json_type(other));
                        if !self.problems.contains(&problem) {
                            self.problems.push(problem);
                        }
                    }
                    return None;
                }
            }
        }
        Some(v)
    }

    fn wrong(&mut self, path: &[&str], want: &str, got: &Value) {
        self.problems.push(format!(
            "{}: expected {want}, found {}",
            path.join("."),
            json_type(got)
        ));
    }

    /// A string field; absent or null is empty.
    pub fn string(&mut self, path: &[&str]) -> &'a str {
        match self.lookup(path) {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s,
            Some(other) => {
                self.wrong(path, "a string", other);
                ""
            }
        }
    }

    /// An optional string field: None when absent or null.
    pub fn opt_string(&mut self, path: &[&str]) -> Option<&'a str> {
        match self.lookup(path) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                self.wrong(path, "a string", other);
                None
            }
        }
    }

    /// A boolean field; absent or null is false.
    pub fn bool(&mut self, path: &[&str]) -> bool {
        match self.lookup(path) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.wrong(path, "a boolean", other);
                false
            }
        }
    }

    /// An integer field (a float without fraction counts).
    pub fn int(&mut self, path: &[&str]) -> Option<i64> {
        match self.lookup(path) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match n.as_i64().or_else(|| int64_of(n.as_f64())) {
                Some(i) => Some(i),
                None => {
                    self.problems.push(format!(
                        "{}: expected an integer within int64, found {n}",
                        path.join(".")
                    ));
                    None
                }
            },
            Some(other) => {
                self.wrong(path, "an integer", other);
                None
            }
        }
    }

    /// A list field; absent or null is empty.
    pub fn list(&mut self, path: &[&str]) -> &'a [Value] {
        match self.lookup(path) {
            None | Some(Value::Null) => &[],
            Some(Value::Array(a)) => a,
            Some(other) => {
                self.wrong(path, "a list", other);
                &[]
            }
        }
    }

    /// A list of strings; other entries are reported and skipped.
    pub fn strings(&mut self, path: &[&str]) -> Vec<&'a str> {
        let mut out = Vec::new();
        for (i, v) in self.list(path).iter().enumerate() {
            match v {
                Value::String(s) => out.push(s.as_str()),
                other => {
                    let p = format!("{}[{i}]", path.join("."));
                    self.wrong(&[&p], "a string", other);
                }
            }
        }
        out
    }

    /// A map field, if present and a map.
    pub fn map(&mut self, path: &[&str]) -> Option<&'a serde_json::Map<String, Value>> {
        match self.lookup(path) {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                self.wrong(path, "a map", other);
                None
            }
        }
    }

    /// Whether a field is set to something other than its zero value: a non-empty string, list
    /// or map, `true`, a non-zero number (what "sets" means for an override field).
    pub fn is_set(&self, path: &[&str]) -> bool {
        match at(self.obj, path) {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(m)) => !m.is_empty(),
            Some(Value::Number(n)) => n.as_f64() != Some(0.0),
            Some(Value::Bool(true)) => true,
        }
    }

    /// `metadata.labels[key]`, if set.
    pub fn label(&mut self, key: &str) -> Option<&'a str> {
        let labels = self.map(&["metadata", "labels"])?;
        match labels.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                let p = format!("metadata.labels[{key:?}]");
                self.wrong(&[&p], "a string", other);
                None
            }
        }
    }
}

/// Name and namespace of an object, and what it is, for messages: `OCIRepository prod/payments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ObjectRef<'a> {
    pub kind: &'static str,
    pub namespace: &'a str,
    pub name: &'a str,
}

impl ObjectRef<'_> {
    /// `Kind namespace/name` (or `Kind name` without a namespace).
    pub fn describe(&self) -> String {
        if self.namespace.is_empty() {
            format!("{} {}", self.kind, self.name)
        } else {
            format!("{} {}/{}", self.kind, self.namespace, self.name)
        }
    }
}

fn object_ref<'a>(r: &mut Reader<'a>, kind: &'static str) -> ObjectRef<'a> {
    ObjectRef {
        kind,
        namespace: r.string(&["metadata", "namespace"]),
        name: r.string(&["metadata", "name"]),
    }
}

/// A `{name, namespace}` reference; the namespace defaults to `default_namespace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NamespacedName<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
}

/// One `status.conditions[]` entry as written (metav1.Condition).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WrittenCondition<'a> {
    pub type_: &'a str,
    pub status: &'a str,
    pub reason: &'a str,
    pub message: &'a str,
    pub last_transition_time: &'a str,
    pub observed_generation: Option<i64>,
}

fn conditions<'a>(r: &mut Reader<'a>) -> Vec<WrittenCondition<'a>> {
    let list = r.list(&["status", "conditions"]);
    list.iter()
        .enumerate()
        .filter_map(|(i, c)| {
            if !c.is_object() {
                r.problems.push(format!(
                    "status.conditions[{i}]: expected a map, found {}",
                    json_type(c)
                ));
                return None;
            }
            let mut cr = Reader::new(c);
            let w = WrittenCondition {
                type_: cr.string(&["type"]),
                status: cr.string(&["status"]),
                reason: cr.string(&["reason"]),
                message: cr.string(&["message"]),
                last_transition_time: cr.string(&["lastTransitionTime"]),
                observed_generation: cr.int(&["observedGeneration"]),
            };
            r.problems.extend(
                cr.problems
                    .into_iter()
                    .map(|p| format!("status.conditions[{i}].{p}")),
            );
            Some(w)
        })
        .collect()
}

/// A Stage (`delivery.pacto.trianalab.io/v1alpha1`, kind `Stage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageView<'a> {
    /// The object read.
    pub object: &'a Value,
    pub this: ObjectRef<'a>,
    pub generation: Option<i64>,
    pub creation_timestamp: &'a str,
    /// Whether the object has a `spec` map at all.
    pub has_spec: bool,
    /// `spec.service.name`.
    pub service: &'a str,
    /// `spec.environment`.
    pub environment: &'a str,
    /// `spec.applyRef.name`: the apply OCIRepository, in the Stage's namespace.
    pub apply_ref: &'a str,
    /// `spec.candidates.upstreamStage` (namespace defaulted to the Stage's).
    pub upstream_stage: Option<NamespacedName<'a>>,
    /// `spec.candidates.ociRepositoryRef` (namespace defaulted to the Stage's).
    pub candidate_repository: Option<NamespacedName<'a>>,
    /// `spec.startLevel`.
    pub start_level: &'a str,
    /// `spec.gates.verify.window` as written (a Go duration).
    pub verify_window: &'a str,
    /// `spec.checks[]`: suite names a candidate must ship.
    pub checks: Vec<&'a str>,
    /// `spec.approval.always`.
    pub approval_always: bool,
    pub pointer: &'a str,
    pub published: Vec<&'a str>,
    pub offered: Vec<&'a str>,
    pub conditions: Vec<WrittenCondition<'a>>,
    pub level: &'a str,
    pub frozen: bool,
    pub observed_generation: Option<i64>,
    /// Fields of the wrong type, by path, and what the candidate source leaves unread
    /// ([`EMPTY_UPSTREAM_NAME`], [`BOTH_CANDIDATE_SOURCES`]).
    pub problems: Vec<String>,
}

/// The problem of a Stage whose `spec.candidates.upstreamStage.name` is empty or absent.
pub const EMPTY_UPSTREAM_NAME: &str =
    "spec.candidates.upstreamStage.name: empty: the upstreamStage names no Stage";

/// The problem of a Stage that sets both candidate sources.
pub const BOTH_CANDIDATE_SOURCES: &str = "spec.candidates: both upstreamStage and ociRepositoryRef are set: the Stage takes its candidates from the upstream Stage, and spec.candidates.ociRepositoryRef is not read";

fn namespaced<'a>(
    r: &mut Reader<'a>,
    path: &[&str],
    default_ns: &'a str,
) -> Option<NamespacedName<'a>> {
    r.map(path)?;
    let mut name_path = path.to_vec();
    name_path.push("name");
    let mut ns_path = path.to_vec();
    ns_path.push("namespace");
    let name = r.string(&name_path);
    let namespace = r
        .opt_string(&ns_path)
        .filter(|n| !n.is_empty())
        .unwrap_or(default_ns);
    Some(NamespacedName { name, namespace })
}

impl<'a> StageView<'a> {
    /// Reads a Stage.
    pub fn new(obj: &'a Value) -> StageView<'a> {
        let mut r = Reader::new(obj);
        let this = object_ref(&mut r, "Stage");
        let has_spec = r.map(&["spec"]).is_some();
        let ns = this.namespace;
        StageView {
            object: obj,
            generation: r.int(&["metadata", "generation"]),
            creation_timestamp: r.string(&["metadata", "creationTimestamp"]),
            has_spec,
            service: r.string(&["spec", "service", "name"]),
            environment: r.string(&["spec", "environment"]),
            apply_ref: r.string(&["spec", "applyRef", "name"]),
            upstream_stage: namespaced(&mut r, &["spec", "candidates", "upstreamStage"], ns),
            candidate_repository: namespaced(
                &mut r,
                &["spec", "candidates", "ociRepositoryRef"],
                ns,
            ),
            start_level: r.string(&["spec", "startLevel"]),
            verify_window: r.string(&["spec", "gates", "verify", "window"]),
            checks: r.strings(&["spec", "checks"]),
            approval_always: r.bool(&["spec", "approval", "always"]),
            pointer: r.string(&["status", "pointer"]),
            published: r.strings(&["status", "published"]),
            offered: r.strings(&["status", "offered"]),
            conditions: conditions(&mut r),
            level: r.string(&["status", "level"]),
            frozen: r.bool(&["status", "frozen"]),
            observed_generation: r.int(&["status", "observedGeneration"]),
            this,
            problems: Vec::new(),
        }
        .with_problems(r.problems)
    }

    /// The problems read, and those of the candidate source: an `upstreamStage` whose name is
    /// empty names no Stage, and a Stage that sets both `upstreamStage` and `ociRepositoryRef`
    /// takes its candidates from the upstream Stage only ("Delivery reference: setup and gates",
    /// "Set up a Stage": a first Stage names its candidate OCIRepository, a downstream one its
    /// upstream Stage), so the OCIRepository it also names is not read.
    fn with_problems(mut self, mut p: Vec<String>) -> StageView<'a> {
        if self.upstream_stage.is_some_and(|u| u.name.is_empty()) {
            p.push(EMPTY_UPSTREAM_NAME.to_string());
        }
        if self.upstream_stage.is_some() && self.candidate_repository.is_some() {
            p.push(BOTH_CANDIDATE_SOURCES.to_string());
        }
        self.problems = p;
        self
    }

    /// The written condition of this type, if any.
    pub fn condition(&self, type_: &str) -> Option<&WrittenCondition<'a>> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

/// A Flux OCIRepository: the apply repository a Stage moves, or a candidate repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciRepositoryView<'a> {
    pub this: ObjectRef<'a>,
    /// `metadata.labels["delivery.pacto.trianalab.io/apply-ref"]`.
    pub apply_ref_label: Option<&'a str>,
    /// `spec.url`.
    pub url: &'a str,
    /// Whether `spec.verify` is a map.
    pub has_verify: bool,
    /// `spec.verify.provider`.
    pub verify_provider: &'a str,
    /// `spec.verify.secretRef.name`.
    pub verify_secret: &'a str,
    /// `spec.verify.matchOIDCIdentity[]` as (issuer, subject).
    pub oidc_identities: Vec<(&'a str, &'a str)>,
    /// `spec.ignore` is set.
    pub ignores: bool,
    /// `spec.ref.digest`: what the promoter writes.
    pub ref_digest: &'a str,
    pub problems: Vec<String>,
}

impl<'a> OciRepositoryView<'a> {
    /// Reads an OCIRepository.
    pub fn new(obj: &'a Value) -> OciRepositoryView<'a> {
        let mut r = Reader::new(obj);
        let this = object_ref(&mut r, "OCIRepository");
        let has_verify = r.map(&["spec", "verify"]).is_some();
        let identities = r.list(&["spec", "verify", "matchOIDCIdentity"]);
        let oidc_identities = identities
            .iter()
            .map(|i| {
                let mut ir = Reader::new(i);
                let pair = (ir.string(&["issuer"]), ir.string(&["subject"]));
                r.problems.extend(
                    ir.problems
                        .into_iter()
                        .map(|p| format!("spec.verify.matchOIDCIdentity[].{p}")),
                );
                pair
            })
            .collect();
        OciRepositoryView {
            apply_ref_label: r.label(super::APPLY_REF_LABEL),
            url: r.string(&["spec", "url"]),
            has_verify,
            verify_provider: r.string(&["spec", "verify", "provider"]),
            verify_secret: r.string(&["spec", "verify", "secretRef", "name"]),
            oidc_identities,
            ignores: r.is_set(&["spec", "ignore"]),
            ref_digest: r.string(&["spec", "ref", "digest"]),
            this,
            problems: r.problems,
        }
    }
}

/// The fields of a Kustomization that, when set, let something other than the pointer decide what
/// runs ("Delivery reference: setup and gates", "What the pointer guarantees"), in the document's
/// order.
pub const KUSTOMIZATION_OVERRIDES: [&str; 9] = [
    "images",
    "patches",
    "components",
    "postBuild",
    "namePrefix",
    "nameSuffix",
    "kubeConfig",
    "suspend",
    "decryption",
];

/// A Flux Kustomization as an applier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KustomizationView<'a> {
    pub this: ObjectRef<'a>,
    pub apply_ref_label: Option<&'a str>,
    /// `spec.sourceRef.kind` as written (empty when absent).
    pub source_kind: &'a str,
    pub source_name: &'a str,
    /// `spec.sourceRef.namespace`, defaulted to the Kustomization's.
    pub source_namespace: &'a str,
    /// `spec.serviceAccountName`.
    pub service_account: &'a str,
    /// The override fields of [`KUSTOMIZATION_OVERRIDES`] that are set, in that order.
    pub overrides: Vec<&'static str>,
    pub problems: Vec<String>,
}

impl<'a> KustomizationView<'a> {
    /// Reads a Kustomization.
    pub fn new(obj: &'a Value) -> KustomizationView<'a> {
        let mut r = Reader::new(obj);
        let this = object_ref(&mut r, "Kustomization");
        let source_namespace = r
            .opt_string(&["spec", "sourceRef", "namespace"])
            .filter(|n| !n.is_empty())
            .unwrap_or(this.namespace);
        let overrides = KUSTOMIZATION_OVERRIDES
            .into_iter()
            .filter(|f| r.is_set(&["spec", f]))
            .collect();
        KustomizationView {
            apply_ref_label: r.label(super::APPLY_REF_LABEL),
            source_kind: r.string(&["spec", "sourceRef", "kind"]),
            source_name: r.string(&["spec", "sourceRef", "name"]),
            source_namespace,
            service_account: r.string(&["spec", "serviceAccountName"]),
            overrides,
            this,
            problems: r.problems,
        }
    }
}

/// An Argo CD Application as an applier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplicationView<'a> {
    pub this: ObjectRef<'a>,
    pub apply_ref_label: Option<&'a str>,
    /// `spec.destination.namespace`.
    pub destination_namespace: &'a str,
    /// How many sources: 1 for `spec.source`, the length of `spec.sources` (0 when neither).
    pub sources: usize,
    /// Whether `spec.sources` is used (a list of sources, even of one).
    pub multi_source: bool,
    /// The override fields set on the source, as paths (`spec.source.kustomize.images`, ...).
    pub overrides: Vec<String>,
    pub problems: Vec<String>,
}

/// Fields of an Application source that override what the pointer holds ("Delivery reference: setup
/// and gates", "What the pointer guarantees": "Kustomize images, patches or components, Helm
/// parameters, values or value files, or plugin"; Helm's `valuesObject` is the map form of values).
pub const APPLICATION_OVERRIDES: [&str; 8] = [
    "kustomize.images",
    "kustomize.patches",
    "kustomize.components",
    "helm.parameters",
    "helm.values",
    "helm.valuesObject",
    "helm.valueFiles",
    "plugin",
];

impl<'a> ApplicationView<'a> {
    /// Reads an Application.
    pub fn new(obj: &'a Value) -> ApplicationView<'a> {
        let mut r = Reader::new(obj);
        let this = object_ref(&mut r, "Application");
        let sources_list = r.list(&["spec", "sources"]);
        let single = r.map(&["spec", "source"]).is_some();
        let multi_source = !sources_list.is_empty();
        let sources = if multi_source {
            sources_list.len()
        } else {
            usize::from(single)
        };
        let mut overrides = Vec::new();
        let check = |src: &Value, prefix: &str, overrides: &mut Vec<String>| {
            let sr = Reader::new(src);
            for f in APPLICATION_OVERRIDES {
                let path: Vec<&str> = f.split('.').collect();
                if sr.is_set(&path) {
                    overrides.push(format!("{prefix}.{f}"));
                }
            }
        };
        if multi_source {
            for (i, s) in sources_list.iter().enumerate() {
                check(s, &format!("spec.sources[{i}]"), &mut overrides);
            }
        } else if let Some(src) = at(obj, &["spec", "source"]) {
            check(src, "spec.source", &mut overrides);
        }
        ApplicationView {
            apply_ref_label: r.label(super::APPLY_REF_LABEL),
            destination_namespace: r.string(&["spec", "destination", "namespace"]),
            sources,
            multi_source,
            overrides,
            this,
            problems: r.problems,
        }
    }
}

/// An Operation (`delivery.pacto.trianalab.io/v1alpha1`, kind `Operation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationView<'a> {
    pub this: ObjectRef<'a>,
    pub creation_timestamp: &'a str,
    /// `spec.type`: promote, rollback, override, freeze, unfreeze, autonomy (or what was written).
    pub type_: &'a str,
    pub stage: &'a str,
    pub digest: &'a str,
    pub version: &'a str,
    pub level: &'a str,
    pub actor: &'a str,
    /// Pending, Held, Running, Verifying, Succeeded, Failed (or what was written; empty: none).
    pub phase: &'a str,
    pub message: &'a str,
    pub verdicts: Vec<Verdict<'a>>,
    pub outcome: &'a str,
    /// human | agent.
    pub actor_class: &'a str,
    pub problems: Vec<String>,
}

/// One `status.verdicts[]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// `pacto.published`, `pacto.diff`, `pacto.impact`, `pacto.suites`, `pacto.environment`,
    /// the after-check `pacto.contract`, or another gate's name.
    pub gate: &'a str,
    /// before | after.
    pub phase: &'a str,
    /// Pass | Fail | Unknown.
    pub result: &'a str,
    pub message: &'a str,
}

impl<'a> OperationView<'a> {
    /// Reads an Operation.
    pub fn new(obj: &'a Value) -> OperationView<'a> {
        let mut r = Reader::new(obj);
        let this = object_ref(&mut r, "Operation");
        let verdicts = r
            .list(&["status", "verdicts"])
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                if !v.is_object() {
                    r.problems.push(format!(
                        "status.verdicts[{i}]: expected a map, found {}",
                        json_type(v)
                    ));
                    return None;
                }
                let mut vr = Reader::new(v);
                let out = Verdict {
                    gate: vr.string(&["gate"]),
                    phase: vr.string(&["phase"]),
                    result: vr.string(&["result"]),
                    message: vr.string(&["message"]),
                };
                r.problems.extend(
                    vr.problems
                        .into_iter()
                        .map(|p| format!("status.verdicts[{i}].{p}")),
                );
                Some(out)
            })
            .collect();
        OperationView {
            creation_timestamp: r.string(&["metadata", "creationTimestamp"]),
            type_: r.string(&["spec", "type"]),
            stage: r.string(&["spec", "stageRef", "name"]),
            digest: r.string(&["spec", "digest"]),
            version: r.string(&["spec", "version"]),
            level: r.string(&["spec", "level"]),
            actor: r.string(&["spec", "actor"]),
            phase: r.string(&["status", "phase"]),
            message: r.string(&["status", "message"]),
            verdicts,
            outcome: r.string(&["status", "outcome"]),
            actor_class: r.string(&["status", "actorClass"]),
            this,
            problems: r.problems,
        }
    }
}

/// An Approval (`delivery.pacto.trianalab.io/v1alpha1`, kind `Approval`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalView<'a> {
    pub this: ObjectRef<'a>,
    pub operation: &'a str,
    /// approve | reject.
    pub decision: &'a str,
    /// Gates whose Unknown verdict the person accepts.
    pub accept_unknown: Vec<&'a str>,
    pub problems: Vec<String>,
}

impl<'a> ApprovalView<'a> {
    /// Reads an Approval.
    pub fn new(obj: &'a Value) -> ApprovalView<'a> {
        let mut r = Reader::new(obj);
        let this = object_ref(&mut r, "Approval");
        ApprovalView {
            operation: r.string(&["spec", "operationRef", "name"]),
            decision: r.string(&["spec", "decision"]),
            accept_unknown: r.strings(&["spec", "acceptUnknown"]),
            this,
            problems: r.problems,
        }
    }
}

pub use super::snapshot::{ListedObjects, Snapshot};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::kept;
    use serde_json::json;

    #[test]
    fn wrong_types_are_named_by_path_and_read_as_absent() {
        let s = StageView::new(kept(json!({
            "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"applyRef": {"name": 5}, "checks": ["a", 3], "approval": {"always": "yes"}},
            "status": {"conditions": [{"type": "Ready", "status": true}, "x"]}
        })));
        assert_eq!(s.apply_ref, "");
        assert_eq!(s.checks, vec!["a".to_string()]);
        assert!(!s.approval_always);
        assert_eq!(
            s.problems,
            vec![
                "spec.applyRef.name: expected a string, found a number",
                "spec.checks[1]: expected a string, found a number",
                "spec.approval.always: expected a boolean, found a string",
                "status.conditions[0].status: expected a string, found a boolean",
                "status.conditions[1]: expected a map, found a string",
            ]
        );
    }

    #[test]
    fn a_parent_of_the_wrong_type_is_named() {
        let s = StageView::new(kept(json!({
            "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"applyRef": "orders", "service": 5}
        })));
        assert_eq!(
            s.problems,
            vec![
                "spec.service: expected a map, found a number",
                "spec.applyRef: expected a map, found a string",
            ]
        );
        let o = OperationView::new(kept(
            json!({"status": {"verdicts": ["pacto.diff", {"gate": "pacto.suites"}]}}),
        ));
        assert_eq!(o.verdicts.len(), 1);
        assert_eq!(
            o.problems,
            vec!["status.verdicts[0]: expected a map, found a string"]
        );
    }

    /// What the candidate source leaves unread is named: an upstreamStage without a name, and
    /// both sources at once (the upstream Stage is read).
    #[test]
    fn a_candidate_source_that_says_nothing_is_named() {
        let s = StageView::new(kept(json!({
            "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"candidates": {"upstreamStage": {"name": ""}}}
        })));
        assert_eq!(s.problems, [EMPTY_UPSTREAM_NAME]);
        let s = StageView::new(kept(json!({
            "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"candidates": {"upstreamStage": {"name": "payments", "namespace": "test"},
                "ociRepositoryRef": {"name": "payments-candidates"}}}
        })));
        assert_eq!(s.problems, [BOTH_CANDIDATE_SOURCES]);
        // A name of the wrong type is named as such, and as naming no Stage.
        let s = StageView::new(kept(json!({
            "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"candidates": {"upstreamStage": {"name": 7}}}
        })));
        assert_eq!(
            s.problems,
            [
                "spec.candidates.upstreamStage.name: expected a string, found a number",
                EMPTY_UPSTREAM_NAME
            ]
        );
    }

    /// An Approval's fields of the wrong type are named by path.
    #[test]
    fn an_approval_of_the_wrong_type_is_named() {
        let a = ApprovalView::new(kept(json!({
            "metadata": {"name": "ok", "namespace": "prod"},
            "spec": {"operationRef": {"name": "payments-1-4-0"}, "decision": true,
                "acceptUnknown": "pacto.suites"}
        })));
        assert_eq!((a.decision, a.accept_unknown.len()), ("", 0));
        assert_eq!(
            a.problems,
            [
                "spec.decision: expected a string, found a boolean",
                "spec.acceptUnknown: expected a list, found a string"
            ]
        );
    }

    #[test]
    fn references_default_to_the_objects_namespace() {
        let s = StageView::new(kept(json!({
            "metadata": {"name": "payments", "namespace": "test"},
            "spec": {"candidates": {"ociRepositoryRef": {"name": "payments-candidates"}}}
        })));
        assert_eq!(
            s.candidate_repository,
            Some(NamespacedName {
                name: "payments-candidates",
                namespace: "test"
            })
        );
        let k = KustomizationView::new(kept(json!({
            "metadata": {"name": "apps", "namespace": "flux-system"},
            "spec": {"sourceRef": {"kind": "OCIRepository", "name": "payments"}, "suspend": false, "postBuild": {}}
        })));
        assert_eq!(k.source_namespace, "flux-system");
        // suspend: false and an empty postBuild set nothing.
        assert!(k.overrides.is_empty());
    }
}
