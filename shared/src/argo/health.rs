//! Argo CD's health pipeline for one resource: gitops-engine `pkg/health/health.go`
//! `GetResourceHealth` (deletion short-circuit, health override, built-in Go check) with argo-cd
//! `util/lua/lua.go` `GetHealthScript` as the override (exact custom key, custom wildcard,
//! built-in script directory exact then wildcard).

use super::lua::{execute_health, Limits, Script};
use super::settings::{glob_match, path_match, Overrides};
use super::{builtin, HealthStatus};
use crate::object::Gvk;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The finalizer that keeps Argo CD's deletion short-circuit off (gitops-engine `pkg/sync/hook`
/// `HasHookFinalizer`).
pub const HOOK_FINALIZER: &str = "argocd.argoproj.io/hook-finalizer";

/// Built-in health scripts laid out like argo-cd `resource_customizations/`:
/// `<group>/<Kind>/health.lua`; a directory path holding `_` is a wildcard (`_` → `*`).
#[derive(Debug, Clone, Default)]
pub struct BuiltinScripts {
    /// `group/Kind` → (script path, script text).
    pub exact: BTreeMap<String, (PathBuf, String)>,
    /// Wildcard directory paths (relative, with `_`), byte-sorted as argo-cd sorts them.
    pub wildcards: Vec<(String, PathBuf, String)>,
}

impl BuiltinScripts {
    /// Reads every `health.lua` two levels below `root`. Errors: an unreadable directory or file.
    pub fn load(root: &Path) -> Result<BuiltinScripts, String> {
        let mut out = BuiltinScripts::default();
        let read_dir = |d: &Path| -> Result<Vec<PathBuf>, String> {
            let mut v: Vec<PathBuf> = std::fs::read_dir(d)
                .map_err(|e| format!("{}: {e}", d.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect();
            v.sort();
            Ok(v)
        };
        for group in read_dir(root)? {
            for kind in read_dir(&group)? {
                let script = kind.join("health.lua");
                if !script.exists() {
                    continue;
                }
                if !script.is_file() {
                    return Err(format!(
                        "{}: not a regular file (a FIFO, socket or device is not read)",
                        script.display()
                    ));
                }
                let text = crate::k8s::read::read_text(&script)
                    .map_err(|e| format!("{}: {e}", script.display()))?;
                let rel = format!(
                    "{}/{}",
                    group.file_name().unwrap_or_default().to_string_lossy(),
                    kind.file_name().unwrap_or_default().to_string_lossy()
                );
                if rel.contains('_') {
                    out.wildcards.push((rel, script, text));
                } else {
                    out.exact.insert(rel, (script, text));
                }
            }
        }
        out.wildcards.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The built-in script for a `group/Kind` key: the exact directory, else the first wildcard
    /// directory (sorted) whose pattern matches.
    pub fn find(&self, key: &str) -> Option<(&Path, &str)> {
        if let Some((p, t)) = self.exact.get(key) {
            return Some((p, t));
        }
        self.wildcards
            .iter()
            .find(|(rel, _, _)| path_match(&rel.replace('_', "*"), key))
            .map(|(_, p, t)| (p.as_path(), t.as_str()))
    }
}

/// Which rule decided an object's health.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decider {
    /// `metadata.deletionTimestamp` set: `Progressing` / `Pending deletion`, no script ran.
    Deletion,
    /// An argocd-cm override under the object's exact key.
    Custom { key: String },
    /// An argocd-cm override under a glob key.
    CustomWildcard { key: String },
    /// A script of the built-in customizations directory.
    BuiltinLua { path: PathBuf },
    /// gitops-engine's Go check for the kind.
    BuiltinGo,
    /// Nothing: the resource has no health and does not affect the application.
    None,
}

impl Decider {
    /// The override key or glob (`group/Kind`, `*.io/*`) or the built-in script's path that
    /// decided; empty for deletion, the built-in Go check and none.
    pub fn source(&self) -> String {
        match self {
            Decider::Custom { key } | Decider::CustomWildcard { key } => key.clone(),
            Decider::BuiltinLua { path } => path.display().to_string(),
            _ => String::new(),
        }
    }

    /// Short name used in reports: `deletion`, `custom`, `custom-wildcard`, `builtin-lua`,
    /// `builtin-go`, `none`.
    pub fn name(&self) -> &'static str {
        match self {
            Decider::Deletion => "deletion",
            Decider::Custom { .. } => "custom",
            Decider::CustomWildcard { .. } => "custom-wildcard",
            Decider::BuiltinLua { .. } => "builtin-lua",
            Decider::BuiltinGo => "builtin-go",
            Decider::None => "none",
        }
    }
}

/// The argocd-cm keys with a health script that match one `group/Kind`, as argo-cd
/// `util/lua/lua.go` looks them up: the exact key (`GetConfigMapKey`) first; without one, any
/// wildcard key that matches (`getWildcardHealthOverrideLua` ranges over a Go map, so when
/// several match, each evaluation takes one of them at random: argo-cd issue 16905).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HealthKeys {
    /// The exact key, when it has a health script: it decides, and `globs` are shadowed.
    pub exact: Option<String>,
    /// The wildcard keys with a health script that match, sorted (the exact key left out).
    pub globs: Vec<String>,
}

impl HealthKeys {
    /// Whether Argo CD may run a different script from one evaluation to the next: no exact
    /// key, and more than one wildcard key matches.
    pub fn random(&self) -> bool {
        self.exact.is_none() && self.globs.len() > 1
    }
}

/// [`HealthKeys`] of `group_kind` (`group/Kind`, `Kind` for the core group) in `overrides`.
pub fn health_keys(overrides: &Overrides, group_kind: &str) -> HealthKeys {
    let mut out = HealthKeys::default();
    for (k, o) in &overrides.by_key {
        if o.health_lua.is_empty() {
            continue;
        }
        if k == group_kind {
            out.exact = Some(k.clone());
        } else if glob_match(k, group_kind) {
            out.globs.push(k.clone());
        }
    }
    out
}

/// What a deciding rule shadows, as a phrase to append to the rule's name: `; shadows A, B`
/// and, when the pick is random, that Argo CD picks at random among the matching wildcard keys
/// on each evaluation (argo-cd issue 16905). Empty when nothing else matches.
pub fn shadow_note(shadows: &[String], random_pick: bool) -> String {
    let mut out = String::new();
    if !shadows.is_empty() {
        out.push_str("; shadows ");
        out.push_str(&shadows.join(", "));
    }
    if random_pick {
        out.push_str(
            "; Argo CD picks at random among the matching wildcard keys on each evaluation \
             (argo-cd issue 16905)",
        );
    }
    out
}

/// Argo CD's verdict on one object.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgoVerdict {
    /// None when no check applies (Argo shows no health).
    pub health: Option<HealthStatus>,
    pub decider: Decider,
    /// Set when the check failed: `health` is then `Unknown` with this text, and the controller
    /// raises a `ComparisonError` condition on the application.
    pub error: Option<String>,
    /// Whether the script ran with open libraries.
    pub open_libs: bool,
    /// What the script printed.
    pub printed: Vec<String>,
    /// The other rules that match the object's kind and that the deciding one shadows, in Argo
    /// CD's lookup order ([`ArgoHealth::candidates`]): override keys and globs, built-in script
    /// paths. Empty when nothing else matches.
    pub shadows: Vec<String>,
    /// No exact key and several wildcard keys match: Argo CD runs one of them, picked at random
    /// on each evaluation (argo-cd issue 16905); `decider` names the first in sorted order, the
    /// one this tool runs.
    pub random_pick: bool,
}

/// Evaluates Argo CD health with one configuration, caching compiled scripts.
pub struct ArgoHealth {
    pub overrides: Overrides,
    pub builtins: Option<BuiltinScripts>,
    pub limits: Limits,
    /// What `os.time()` returns, Unix seconds.
    pub now_unix: i64,
    cache: RefCell<HashMap<String, Result<Script, String>>>,
    /// The script used last: a run of objects of one kind compares the text instead of hashing it.
    last: RefCell<Option<(String, Result<Script, String>)>>,
    /// [`Self::candidates`] and [`HealthKeys::random`] by `group/Kind`: they depend on the kind
    /// alone, so they are worked out once per kind, not per object (`overrides` and `builtins`
    /// are set before the first evaluation: the callers that add built-in scripts do so).
    rules: RefCell<HashMap<String, (Vec<String>, bool)>>,
}

impl ArgoHealth {
    /// A configuration: argocd-cm overrides, an optional built-in scripts directory.
    pub fn new(overrides: Overrides, builtins: Option<BuiltinScripts>, now_unix: i64) -> Self {
        ArgoHealth {
            overrides,
            builtins,
            limits: Limits::default(),
            now_unix,
            cache: RefCell::new(HashMap::new()),
            last: RefCell::new(None),
            rules: RefCell::new(HashMap::new()),
        }
    }

    /// argo-cd `GetHealthScript`: (script, useOpenLibs, decider), or None.
    pub fn health_script(&self, gvk: &Gvk) -> Option<(&str, bool, Decider)> {
        let key = gvk.group_kind();
        if let Some(o) = self.overrides.by_key.get(&key) {
            if !o.health_lua.is_empty() {
                return Some((&o.health_lua, o.use_open_libs, Decider::Custom { key }));
            }
        }
        // Go iterates a map (random order); we take the first matching key in sorted order.
        for (k, o) in &self.overrides.by_key {
            if !o.health_lua.is_empty() && glob_match(k, &key) {
                return Some((
                    &o.health_lua,
                    o.use_open_libs,
                    Decider::CustomWildcard { key: k.clone() },
                ));
            }
        }
        let b = self.builtins.as_ref()?;
        let (path, text) = b.find(&key)?;
        Some((
            text,
            true,
            Decider::BuiltinLua {
                path: path.to_path_buf(),
            },
        ))
    }

    /// Runs a script as a health check on an object (compiling it once per text).
    pub fn run_script(
        &self,
        script: &str,
        obj: &Value,
        open_libs: bool,
    ) -> (Result<HealthStatus, String>, Vec<String>) {
        let compiled = {
            let mut last = self.last.borrow_mut();
            match last.as_ref() {
                Some((text, c)) if text == script => c.clone(),
                _ => {
                    let mut cache = self.cache.borrow_mut();
                    // Looked up by reference first: the text is copied only when first seen.
                    if !cache.contains_key(script) {
                        cache.insert(script.to_string(), Script::compile(script));
                    }
                    let c = cache[script].clone();
                    *last = Some((script.to_string(), c.clone()));
                    c
                }
            }
        };
        match &compiled {
            Err(e) => (Err(e.clone()), Vec::new()),
            Ok(s) => {
                let ev = execute_health(s, obj, open_libs, self.now_unix, &self.limits);
                (ev.result, ev.printed)
            }
        }
    }

    /// gitops-engine `GetResourceHealth` with this configuration as the override.
    pub fn evaluate(&self, obj: &Value) -> ArgoVerdict {
        let meta = obj.get("metadata");
        let deleting = meta
            .and_then(|m| m.get("deletionTimestamp"))
            .map(|v| !v.is_null())
            .unwrap_or(false);
        let hook_finalizer = meta
            .and_then(|m| m.get("finalizers"))
            .and_then(Value::as_array)
            .map(|f| f.iter().any(|x| x.as_str() == Some(HOOK_FINALIZER)))
            .unwrap_or(false);
        if deleting && !hook_finalizer {
            return ArgoVerdict {
                health: Some(HealthStatus::new("Progressing", "Pending deletion")),
                shadows: self.candidates(&gvk_of(obj).group_kind()),
                random_pick: false,
                decider: Decider::Deletion,
                error: None,
                open_libs: false,
                printed: Vec::new(),
            };
        }
        let gvk = gvk_of(obj);
        if let Some((script, open_libs, decider)) = self.health_script(&gvk) {
            let (result, printed) = self.run_script(script, obj, open_libs);
            let (shadows, random_pick) = self.shadowed(&gvk.group_kind(), &decider);
            let (health, error) = match result {
                Ok(h) => (Some(h), None),
                Err(e) => (Some(HealthStatus::new("Unknown", e.clone())), Some(e)),
            };
            return ArgoVerdict {
                health,
                decider,
                error,
                open_libs,
                printed,
                shadows,
                random_pick,
            };
        }
        let (health, decider, error) = match builtin::builtin_health(obj) {
            None => (None, Decider::None, None),
            Some(Ok(h)) => (Some(h), Decider::BuiltinGo, None),
            Some(Err(e)) => (
                Some(HealthStatus::new("Unknown", e.clone())),
                Decider::BuiltinGo,
                Some(e),
            ),
        };
        ArgoVerdict {
            health,
            decider,
            error,
            open_libs: false,
            printed: Vec::new(),
            shadows: Vec::new(),
            random_pick: false,
        }
    }

    /// Every rule with a health script that matches `group_kind` (`group/Kind`, `Kind` for the
    /// core group), in the order argo-cd `util/lua/lua.go` `GetHealthScript` consults them: the
    /// exact argocd-cm key, the matching wildcard keys (sorted; Argo ranges over a map), the
    /// built-in script of the exact directory, the matching built-in wildcard directories. The
    /// first decides; gitops-engine's Go check runs only when the list is empty.
    pub fn candidates(&self, group_kind: &str) -> Vec<String> {
        self.rules_of(group_kind).0
    }

    /// [`Self::candidates`] and whether the wildcard pick is random, from the per-kind cache.
    fn rules_of(&self, group_kind: &str) -> (Vec<String>, bool) {
        if let Some(r) = self.rules.borrow().get(group_kind) {
            return r.clone();
        }
        let keys = health_keys(&self.overrides, group_kind);
        let random = keys.random();
        let mut out: Vec<String> = keys.exact.into_iter().chain(keys.globs).collect();
        if let Some(b) = &self.builtins {
            if let Some((p, _)) = b.exact.get(group_kind) {
                out.push(p.display().to_string());
            }
            out.extend(
                b.wildcards
                    .iter()
                    .filter(|(rel, _, _)| path_match(&rel.replace('_', "*"), group_kind))
                    .map(|(_, p, _)| p.display().to_string()),
            );
        }
        let r = (out, random);
        self.rules
            .borrow_mut()
            .insert(group_kind.to_string(), r.clone());
        r
    }

    /// What a script `decider` shadows among the [`candidates`](Self::candidates) of
    /// `group_kind`, and whether Argo CD picks the wildcard key at random.
    fn shadowed(&self, group_kind: &str, decider: &Decider) -> (Vec<String>, bool) {
        let chosen = decider.source();
        let (candidates, random) = self.rules_of(group_kind);
        let random = random && matches!(decider, Decider::CustomWildcard { .. });
        let shadows = candidates.into_iter().filter(|c| *c != chosen).collect();
        (shadows, random)
    }
}

use crate::k8s::gvk_of;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::argo::settings::parse_configmap;
    use serde_json::json;

    fn config(data: Value) -> ArgoHealth {
        let cm = json!({"kind": "ConfigMap", "data": data});
        ArgoHealth::new(parse_configmap(&cm).unwrap(), None, 0)
    }

    /// gitops-engine health.go: deletion short-circuits before any script; the hook finalizer
    /// keeps it off.
    #[test]
    fn deletion_short_circuit() {
        let a = config(json!({"resource.customizations.health.x.io_Y": "error('never runs')"}));
        let obj = json!({"apiVersion": "x.io/v1", "kind": "Y", "metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}});
        let v = a.evaluate(&obj);
        assert_eq!(
            v.health,
            Some(HealthStatus::new("Progressing", "Pending deletion"))
        );
        assert_eq!(v.decider, Decider::Deletion);
        let hooked = json!({"apiVersion": "x.io/v1", "kind": "Y", "metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": [HOOK_FINALIZER]}});
        let v = a.evaluate(&hooked);
        assert_eq!(v.decider.name(), "custom");
        assert_eq!(v.error.as_deref(), Some("<string>:1: never runs"));
    }

    /// lua.go GetHealthScript: exact key beats a wildcard; `*/*` does not reach core kinds, `*`
    /// does (argo-cd `util/glob/glob.go` over the `group/Kind` key of `GetConfigMapKey`).
    #[test]
    fn lookup_order() {
        let a = config(json!({
            "resource.customizations": "\"*\":\n  health.lua: return {status='Missing'}\n",
            "resource.customizations.health.all": "return {status='Suspended'}",
            "resource.customizations.health.x.io_Y": "return {status='Healthy'}",
        }));
        let y = json!({"apiVersion": "x.io/v1", "kind": "Y", "metadata": {"name": "a"}});
        assert_eq!(a.evaluate(&y).health.unwrap().status, "Healthy");
        let z = json!({"apiVersion": "x.io/v1", "kind": "Z", "metadata": {"name": "a"}});
        let v = a.evaluate(&z);
        assert!(matches!(v.decider, Decider::CustomWildcard { .. }));
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}});
        let v = a.evaluate(&pod);
        assert_eq!(v.decider, Decider::CustomWildcard { key: "*".into() });
        assert_eq!(v.health.unwrap().status, "Missing");
    }

    /// argo-cd `util/lua/lua.go` `getPredefinedLuaScripts`: the built-in directory named by the
    /// exact `group/Kind` first; only when there is none, the wildcard directories (`_` for
    /// `*`), the first match in byte order of their paths.
    #[test]
    fn builtin_exact_directory_before_wildcards() {
        let script = |name: &str| (PathBuf::from(name), format!("-- {name}"));
        let mut b = BuiltinScripts::default();
        b.exact.insert(
            "pkg.crossplane.io/Provider".into(),
            script("pkg.crossplane.io/Provider"),
        );
        for rel in ["_.crossplane.io/_", "_.io/_"] {
            let (p, t) = script(rel);
            b.wildcards.push((rel.into(), p, t));
        }
        b.wildcards.sort_by(|a, b| a.0.cmp(&b.0));
        let found = |key: &str| b.find(key).map(|(p, _)| p.display().to_string());
        for (key, want) in [
            (
                "pkg.crossplane.io/Provider",
                Some("pkg.crossplane.io/Provider"),
            ),
            ("aws.crossplane.io/Bucket", Some("_.crossplane.io/_")),
            ("pkg.crossplane.io/Function", Some("_.crossplane.io/_")),
            ("x.io/Y", Some("_.io/_")),
            ("apps/Deployment", None),
        ] {
            assert_eq!(found(key).as_deref(), want, "{key}");
        }
    }

    /// A script error → Unknown with the error text (health.go GetResourceHealth).
    #[test]
    fn script_error_is_unknown_with_the_text() {
        let a = config(json!({"resource.customizations.health.x.io_Y": "return obj.status.phase"}));
        let y = json!({"apiVersion": "x.io/v1", "kind": "Y", "metadata": {"name": "a"}});
        let v = a.evaluate(&y);
        let want = "<string>:1: attempt to index a non-table object(nil) with key 'phase'";
        assert_eq!(v.health, Some(HealthStatus::new("Unknown", want)));
        assert_eq!(v.error.as_deref(), Some(want));
    }

    #[test]
    fn no_check_means_no_health() {
        let a = config(json!({}));
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let v = a.evaluate(&cm);
        assert_eq!((v.health, v.decider), (None, Decider::None));
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;
    use crate::argo::settings::parse_data;
    use std::collections::BTreeMap;

    fn overrides(block: &str) -> Overrides {
        let data = BTreeMap::from([("resource.customizations".to_string(), block.to_string())]);
        parse_data(&data).unwrap()
    }

    /// argo-cd `util/lua/lua.go`: the exact key decides and shadows the wildcards; without it,
    /// one matching wildcard decides; several make the pick random (argo-cd issue 16905); an
    /// entry without a health script is not a candidate (from Argo CD 2.14).
    #[test]
    fn which_keys_match_a_kind() {
        let o = overrides(
            "pacto.trianalab.io/Pacto:\n  health.lua: return {status='Healthy'}\n\
             \"*.trianalab.io/*\":\n  health.lua: return {status='Degraded'}\n\
             \"pacto.*/*\":\n  health.lua: return {status='Progressing'}\n\
             \"*/Pacto\":\n  ignoreDifferences: '{}'\n",
        );
        let k = health_keys(&o, "pacto.trianalab.io/Pacto");
        assert_eq!(k.exact.as_deref(), Some("pacto.trianalab.io/Pacto"));
        assert_eq!(k.globs, ["*.trianalab.io/*", "pacto.*/*"]);
        assert!(!k.random());
        let k = health_keys(&o, "pacto.trianalab.io/Other");
        assert_eq!(k.exact, None);
        assert_eq!(k.globs, ["*.trianalab.io/*", "pacto.*/*"]);
        assert!(k.random());
        let k = health_keys(&o, "delivery.trianalab.io/Stage");
        assert_eq!(k.globs, ["*.trianalab.io/*"]);
        assert!(!k.random());
        assert_eq!(health_keys(&o, "apps/Deployment"), HealthKeys::default());
    }

    /// argo-cd `util/lua/lua.go` `GetHealthScript` consults the exact key, then the wildcard
    /// keys, then the built-in script: the first with a script decides and shadows the rest;
    /// a deleted object is judged before any of them (gitops-engine `pkg/health/health.go`),
    /// so it shadows them all; several wildcard keys without an exact one are a random pick
    /// (argo-cd issue 16905).
    #[test]
    fn the_deciding_rule_shadows_the_later_candidates() {
        let o = overrides(
            "pacto.trianalab.io/Pacto:\n  health.lua: return {status='Healthy'}\n\
             \"*.trianalab.io/*\":\n  health.lua: return {status='Degraded'}\n\
             \"pacto.*/*\":\n  health.lua: return {status='Progressing'}\n",
        );
        let builtin = PathBuf::from("rc/pacto.trianalab.io/Pacto/health.lua");
        let builtins = BuiltinScripts {
            exact: BTreeMap::from([(
                "pacto.trianalab.io/Pacto".to_string(),
                (builtin.clone(), "return {status='Suspended'}".to_string()),
            )]),
            wildcards: Vec::new(),
        };
        let engine = ArgoHealth::new(o, Some(builtins), 0);
        let obj = |kind: &str, deleted: bool| {
            let mut o = serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1",
                "kind": kind, "metadata": {"name": "a"}});
            if deleted {
                o["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z".into();
            }
            o
        };
        let builtin = builtin.display().to_string();
        let rows: [(&str, bool, Decider, &[&str], bool); 3] = [
            (
                "Pacto",
                false,
                Decider::Custom {
                    key: "pacto.trianalab.io/Pacto".into(),
                },
                &["*.trianalab.io/*", "pacto.*/*", &builtin],
                false,
            ),
            (
                "Other",
                false,
                Decider::CustomWildcard {
                    key: "*.trianalab.io/*".into(),
                },
                &["pacto.*/*"],
                true,
            ),
            (
                "Pacto",
                true,
                Decider::Deletion,
                &[
                    "pacto.trianalab.io/Pacto",
                    "*.trianalab.io/*",
                    "pacto.*/*",
                    &builtin,
                ],
                false,
            ),
        ];
        for (kind, deleted, decider, shadows, random) in rows {
            let v = engine.evaluate(&obj(kind, deleted));
            assert_eq!(v.decider, decider, "{kind} deleted={deleted}");
            assert_eq!(v.shadows, shadows, "{kind} deleted={deleted}");
            assert_eq!(v.random_pick, random, "{kind} deleted={deleted}");
        }
        assert_eq!(
            shadow_note(&["b/*".into()], true),
            "; shadows b/*; Argo CD picks at random among the matching wildcard keys on each \
             evaluation (argo-cd issue 16905)"
        );
        assert_eq!(shadow_note(&[], false), "");
    }
}
