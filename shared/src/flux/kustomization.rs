//! The parts of a Flux Kustomization that decide health checking (kustomize-controller
//! `api/v1/kustomization_types.go`): `spec.healthCheckExprs`, `spec.wait`, `spec.healthChecks`,
//! `spec.timeout`, `spec.interval`; and which `healthCheckExprs` entry covers an object (fluxcd/pkg
//! `runtime/cel/status_reader.go` `NewStatusReader`/`Supports`).

use super::health::JobOrder;
use serde_json::Value;
use std::collections::HashMap;

/// One `spec.healthCheckExprs[]` entry (fluxcd/pkg `apis/kustomize` `CustomHealthCheck`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthCheckExpr {
    /// Position in `spec.healthCheckExprs`, for messages (`healthchecks[i]`).
    pub index: usize,
    pub api_version: String,
    /// Empty: the entry covers every kind of its group (pkg runtime v0.104.0+).
    pub kind: String,
    pub current: String,
    pub failed: String,
    pub in_progress: String,
}

impl HealthCheckExpr {
    /// The entry's group: `schema.FromAPIVersionAndKind` keeps only the group of `apiVersion`.
    pub fn group(&self) -> &str {
        self.api_version
            .split_once('/')
            .map(|(g, _)| g)
            .unwrap_or("")
    }
}

/// A `spec.healthChecks[]` reference (`NamespacedObjectKindReference`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

/// What a Kustomization (or a HelmRelease, read the same way) says about health checking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kustomization {
    /// `Kustomization` or `HelmRelease`.
    pub kind: String,
    /// `spec.serviceAccountName` or `spec.kubeConfig` set: kustomize-controller then installs the
    /// expression reader before its Job reader.
    pub impersonates: bool,
    pub name: String,
    pub namespace: String,
    pub wait: bool,
    /// `spec.timeout`, as written (a Go duration).
    pub timeout: Option<String>,
    /// `spec.interval`, as written.
    pub interval: Option<String>,
    pub health_checks: Vec<ObjectRef>,
    pub exprs: Vec<HealthCheckExpr>,
    /// A HelmRelease without `spec.install.disableWaitForJobs`: helm-controller then waits with
    /// Flux's Job reader (`WaitWithJobs`); with it, Jobs are left to kstatus (`Wait`). Always
    /// true for a Kustomization.
    pub waits_for_jobs: bool,
}

impl Kustomization {
    /// Where Flux's Job reader sits relative to the `healthCheckExprs` reader: first for a
    /// kustomize-controller Kustomization without impersonation (kustomize-controller
    /// `internal/controller/kustomization_controller.go` builds its poller with the Job reader
    /// ahead of the expression reader); after the expressions when `serviceAccountName` or
    /// `kubeConfig` is set, and for a HelmRelease (helm-controller).
    ///
    /// helm-controller `internal/action/wait.go`: `WaitWithJobs` adds the Job reader after the
    /// spec's expression reader (`newResourceManager` in `helmrelease_controller.go` puts the
    /// spec-defined reader first), `Wait` (Helm's `WaitForJobs` false, from
    /// `disableWaitForJobs: true`) adds none, so kstatus judges a Job and calls a started one
    /// Current.
    pub fn job_order(&self) -> JobOrder {
        if self.kind == "Kustomization" && !self.impersonates {
            JobOrder::JobReaderFirst
        } else if self.waits_for_jobs {
            JobOrder::ExpressionsFirst
        } else {
            JobOrder::NoJobReader
        }
    }

    /// What the controller makes of `healthCheckExprs` that do not compile (`error`, as
    /// [`crate::flux::health::FluxHealth::new`] words it): `Ready=False` and `Stalled=True`
    /// with reason `InvalidCELExpression` and kustomize-controller's terminal message
    /// (`internal/controller/constants.go` `TerminalErrorMessage`, written by
    /// `kustomization_controller.go` before any apply; helm-controller does the same), as one
    /// line: `Kustomization NAME: Ready=False, Stalled=True, reason InvalidCELExpression:
    /// Reconciliation failed terminally due to configuration error: ERROR`.
    pub fn invalid_cel_expression(&self, error: &str) -> String {
        format!(
            "{} {}: Ready=False, Stalled=True, reason InvalidCELExpression: Reconciliation failed terminally due to configuration error: {error}",
            self.kind, self.name
        )
    }
}

/// Reads a Kustomization (`kustomize.toolkit.fluxcd.io`) or a HelmRelease
/// (`helm.toolkit.fluxcd.io`, whose `spec.healthCheckExprs` has the same type, helm-controller
/// v1.5.0+).
///
/// Errors: another kind; a field of the wrong type, named by its path (e.g.
/// `spec.healthCheckExprs[1].current: expected a string`).
pub fn parse(obj: &Value) -> Result<Kustomization, String> {
    let api = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let helm = kind == "HelmRelease" && api.starts_with("helm.toolkit.fluxcd.io/");
    if !helm && (kind != "Kustomization" || !api.starts_with("kustomize.toolkit.fluxcd.io/")) {
        let or_none = |v: &'static str, x: &str| {
            if x.is_empty() {
                v.to_string()
            } else {
                x.to_string()
            }
        };
        return Err(format!(
            "expected a Flux Kustomization (kustomize.toolkit.fluxcd.io) or HelmRelease (helm.toolkit.fluxcd.io), found {} {}",
            or_none("(no apiVersion)", api),
            or_none("(no kind)", kind)
        ));
    }
    let spec = match obj.get("spec") {
        None | Some(Value::Null) => Value::Null,
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => {
            return Err(format!(
                "spec: expected a mapping, found {}",
                crate::object::json_type(other)
            ))
        }
    };
    let meta = obj.get("metadata");
    let text = |v: Option<&Value>, path: &str| -> Result<String, String> {
        match v {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "{path}: expected a string, found {}",
                crate::object::json_type(other)
            )),
        }
    };
    let flag = |v: Option<&Value>, path: &str| -> Result<bool, String> {
        match v {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!(
                "{path}: expected a boolean, found {}",
                crate::object::json_type(other)
            )),
        }
    };
    // helm-controller waits (and so evaluates the expressions) unless the action disables it.
    let wait = if helm {
        !flag(
            spec.get("install").and_then(|i| i.get("disableWait")),
            "spec.install.disableWait",
        )?
    } else {
        flag(spec.get("wait"), "spec.wait")?
    };
    let list = |name: &str| -> Result<Vec<Value>, String> {
        match spec.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(other) => Err(format!(
                "spec.{name}: expected a list, found {}",
                crate::object::json_type(other)
            )),
        }
    };
    let release = crate::flux::release::emulated();
    let mut exprs = Vec::new();
    // Before Flux v2.8 a HelmRelease has no healthCheckExprs: the API server prunes the field.
    let written = if helm && !release.helm_release_exprs() {
        Vec::new()
    } else {
        list("healthCheckExprs")?
    };
    for (i, e) in written.iter().enumerate() {
        let p = |f: &str| format!("spec.healthCheckExprs[{i}].{f}");
        exprs.push(HealthCheckExpr {
            index: i,
            api_version: text(e.get("apiVersion"), &p("apiVersion"))?,
            kind: text(e.get("kind"), &p("kind"))?,
            current: text(e.get("current"), &p("current"))?,
            failed: text(e.get("failed"), &p("failed"))?,
            in_progress: text(e.get("inProgress"), &p("inProgress"))?,
        });
        if !release.kind_optional() && exprs[i].kind.is_empty() {
            return Err(format!(
                "{}: Required value: Flux {} requires a kind (from v2.9 an entry without one covers its whole group); the API server refuses this {kind}",
                p("kind"),
                release.name()
            ));
        }
    }
    let mut health_checks = Vec::new();
    for (i, r) in list("healthChecks")?.iter().enumerate() {
        let p = |f: &str| format!("spec.healthChecks[{i}].{f}");
        health_checks.push(ObjectRef {
            api_version: text(r.get("apiVersion"), &p("apiVersion"))?,
            kind: text(r.get("kind"), &p("kind"))?,
            name: text(r.get("name"), &p("name"))?,
            namespace: text(r.get("namespace"), &p("namespace"))?,
        });
    }
    // helm-controller `internal/action/install.go`: `install.WaitForJobs =
    // !obj.GetInstall().DisableWaitForJobs` (read from the install action, as `disableWait`).
    let waits_for_jobs = !helm
        || !flag(
            spec.get("install")
                .and_then(|i| i.get("disableWaitForJobs")),
            "spec.install.disableWaitForJobs",
        )?;
    let opt = |v: String| if v.is_empty() { None } else { Some(v) };
    let timeout = opt(text(spec.get("timeout"), "spec.timeout")?);
    Ok(Kustomization {
        kind: kind.to_string(),
        impersonates: !helm
            && (spec.get("serviceAccountName").is_some_and(|v| !v.is_null())
                || spec.get("kubeConfig").is_some_and(|v| !v.is_null())),
        name: text(meta.and_then(|m| m.get("name")), "metadata.name")?,
        namespace: text(meta.and_then(|m| m.get("namespace")), "metadata.namespace")?,
        wait,
        // helm-controller's default action timeout is 5m.
        timeout: if helm && timeout.is_none() {
            Some("5m".into())
        } else {
            timeout
        },
        interval: opt(text(spec.get("interval"), "spec.interval")?),
        health_checks,
        exprs,
        waits_for_jobs,
    })
}

/// Which entry covers which GroupKind: a kind entry beats a group-only entry; the version is
/// ignored.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    /// group -> kind -> entry (looked up without building a key).
    by_group_kind: HashMap<String, HashMap<String, usize>>,
    by_group: HashMap<String, usize>,
}

impl Selector {
    /// Indexes the entries. Errors as `NewStatusReader` words them:
    /// `duplicate custom health check for GroupKind <Kind.group> at healthchecks[i]` for a second
    /// entry with the same group and kind (or the same group, for group-only entries).
    pub fn new(exprs: &[HealthCheckExpr]) -> Result<Selector, String> {
        let refuses = crate::flux::release::emulated().refuses_duplicates();
        let mut s = Selector::default();
        for e in exprs {
            // Before Flux v2.8 (`PollerWithCustomHealthChecks`) the first entry for a
            // GroupKind is used and a later one is skipped.
            if !refuses && s.taken(e) {
                continue;
            }
            let group = e.group().to_string();
            let taken = if e.kind.is_empty() {
                s.by_group.insert(group.clone(), e.index).is_some()
            } else {
                s.by_group_kind
                    .entry(group.clone())
                    .or_default()
                    .insert(e.kind.clone(), e.index)
                    .is_some()
            };
            if taken {
                return Err(format!(
                    "duplicate custom health check for GroupKind {} at healthchecks[{}]",
                    go_group_kind(&group, &e.kind),
                    e.index
                ));
            }
        }
        Ok(s)
    }

    /// Whether an entry for `e`'s GroupKind (or group, for a group-only entry) is indexed.
    fn taken(&self, e: &HealthCheckExpr) -> bool {
        let group = e.group();
        if e.kind.is_empty() {
            self.by_group.contains_key(group)
        } else {
            self.by_group_kind
                .get(group)
                .is_some_and(|k| k.contains_key(&e.kind))
        }
    }

    /// Whether entry `index` is the one used for its GroupKind (a skipped duplicate is not,
    /// before Flux v2.8).
    pub fn uses(&self, index: usize) -> bool {
        self.by_group.values().any(|i| *i == index)
            || self
                .by_group_kind
                .values()
                .any(|k| k.values().any(|i| *i == index))
    }

    /// The index of the entry that covers `group`/`kind`, if any.
    pub fn select(&self, group: &str, kind: &str) -> Option<usize> {
        self.by_group_kind
            .get(group)
            .and_then(|kinds| kinds.get(kind))
            .or_else(|| self.by_group.get(group))
            .copied()
    }
}

/// apimachinery `schema.GroupKind.String()`: `Kind.group`, or `Kind` for the core group.
pub fn go_group_kind(group: &str, kind: &str) -> String {
    if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(i: usize, api: &str, kind: &str) -> HealthCheckExpr {
        HealthCheckExpr {
            index: i,
            api_version: api.into(),
            kind: kind.into(),
            current: "true".into(),
            failed: String::new(),
            in_progress: String::new(),
        }
    }

    /// status_reader.go: group matched, version ignored; kind entry beats group entry.
    #[test]
    fn selection() {
        let s = Selector::new(&[
            entry(0, "pacto.trianalab.io/v1alpha1", ""),
            entry(1, "pacto.trianalab.io/v1", "Pacto"),
            entry(2, "v1", "ConfigMap"),
        ])
        .unwrap();
        assert_eq!(s.select("pacto.trianalab.io", "Pacto"), Some(1));
        assert_eq!(s.select("pacto.trianalab.io", "PactoRevision"), Some(0));
        assert_eq!(s.select("", "ConfigMap"), Some(2));
        assert_eq!(s.select("", "Secret"), None);
        assert_eq!(s.select("apps", "Deployment"), None);
    }

    /// status_reader.go duplicate error text.
    #[test]
    fn duplicates() {
        let e = Selector::new(&[
            entry(0, "apps/v1", "Deployment"),
            entry(1, "apps/v2", "Deployment"),
        ])
        .unwrap_err();
        assert_eq!(
            e,
            "duplicate custom health check for GroupKind Deployment.apps at healthchecks[1]"
        );
        let e =
            Selector::new(&[entry(0, "v1", "ConfigMap"), entry(1, "v1", "ConfigMap")]).unwrap_err();
        assert_eq!(
            e,
            "duplicate custom health check for GroupKind ConfigMap at healthchecks[1]"
        );
    }

    #[test]
    fn parse_kustomization() {
        let k = parse(&json!({
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "orders", "namespace": "flux-system"},
            "spec": {"wait": true, "timeout": "5m", "interval": "1m", "healthCheckExprs": [
                {"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto", "current": "true", "failed": "false"}
            ]}
        }))
        .unwrap();
        assert!(k.wait);
        assert_eq!(k.timeout.as_deref(), Some("5m"));
        assert_eq!(k.exprs[0].group(), "pacto.trianalab.io");
        assert_eq!(k.exprs[0].failed, "false");
        let e = parse(&json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "spec": {"healthCheckExprs": [{"apiVersion": "v1", "current": 5}]}})).unwrap_err();
        assert_eq!(
            e,
            "spec.healthCheckExprs[0].current: expected a string, found a number"
        );
        assert!(parse(&json!({"apiVersion": "v1", "kind": "ConfigMap"})).is_err());
    }

    /// kustomize-controller's terminal error for expressions that do not compile
    /// (`constants.go` `TerminalErrorMessage`, conditions Ready=False and Stalled=True with
    /// reason `InvalidCELExpression`), on the error `cel.NewStatusReader` gives for an entry
    /// without `current` (fluxcd/pkg `runtime/cel/status_evaluator.go`).
    #[test]
    fn expressions_that_do_not_compile_stall_the_kustomization() {
        use crate::flux::health::FluxHealth;
        let k = parse(&json!({
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "apps", "namespace": "flux-system"},
            "spec": {"healthCheckExprs": [{"apiVersion": "v1", "kind": "ConfigMap", "failed": "true"}]}
        }))
        .unwrap();
        let e = FluxHealth::new(&k.exprs, k.job_order(), 0)
            .err()
            .expect("an entry without current does not compile");
        let m = k.invalid_cel_expression(&e);
        assert_eq!(
            m,
            format!("Kustomization apps: Ready=False, Stalled=True, reason InvalidCELExpression: Reconciliation failed terminally due to configuration error: {e}")
        );
    }

    /// helm-controller `internal/action/wait.go`: `WaitWithJobs` (the default) adds Flux's Job
    /// reader, `Wait` (`disableWaitForJobs: true`) none; a started Job is then judged by stock
    /// kstatus, which calls it Current (kustomize-controller#686, the reason for Flux's reader),
    /// where the Job reader says InProgress.
    #[test]
    fn disable_wait_for_jobs_leaves_jobs_to_kstatus() {
        use crate::flux::health::{FluxHealth, FluxSource, JobOrder};
        use crate::flux::KStatus;
        let release = |install: Value| {
            parse(&json!({
                "apiVersion": "helm.toolkit.fluxcd.io/v2",
                "kind": "HelmRelease",
                "metadata": {"name": "app", "namespace": "apps"},
                "spec": {"install": install}
            }))
            .unwrap()
        };
        let job = json!({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "migrate", "namespace": "apps", "generation": 1},
            "spec": {"completions": 1},
            "status": {"startTime": "2026-11-29T10:00:00Z", "active": 1}
        });
        let verdict = |k: &Kustomization| {
            let v = FluxHealth::new(&k.exprs, k.job_order(), 0)
                .unwrap()
                .evaluate(&job);
            (v.status, v.source)
        };
        let waits = release(json!({}));
        assert_eq!(waits.job_order(), JobOrder::ExpressionsFirst);
        assert_eq!(
            verdict(&waits),
            (KStatus::InProgress, FluxSource::JobReader)
        );
        let no_jobs = release(json!({"disableWaitForJobs": true}));
        assert_eq!(no_jobs.job_order(), JobOrder::NoJobReader);
        assert_eq!(verdict(&no_jobs), (KStatus::Current, FluxSource::Kstatus));
        // a Kustomization is unaffected
        let k = parse(&json!({
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "k"}, "spec": {"install": {"disableWaitForJobs": true}}
        }))
        .unwrap();
        assert_eq!(k.job_order(), JobOrder::JobReaderFirst);
        assert!(parse(&json!({
            "apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "spec": {"install": {"disableWaitForJobs": "yes"}}
        }))
        .unwrap_err()
        .contains("spec.install.disableWaitForJobs: expected a boolean"));
    }
}
