//! Checks of an Argo CD configuration (argocd-cm `resource.customizations*`), following how argo-cd
//! `util/settings/settings.go` reads the keys and `util/lua/lua.go` looks them up and runs them;
//! IDs as docs/doctor.md lists them (A01–A13, C01).

use super::near::near_miss;
use super::probes::{self, Must, Probe};
use super::{Finding, Merged, Severity};
use crate::argo::health::ArgoHealth;
use crate::argo::settings::{self, Overrides};
use crate::pacto::gate::{argo_gate, Gate};
use serde_json::Value;

/// The argocd-cm key of the Pacto health customization ("GitOps promotion gates", "Argo CD").
pub const PACTO_KEY: &str = "resource.customizations.health.pacto.trianalab.io_Pacto";
/// The argocd-cm key of the CoderTemplateTest health customization ("Gate template promotion with
/// GitOps", "Install the Argo CD health check").
pub const CTT_KEY: &str = "resource.customizations.health.coder.com_CoderTemplateTest";
const LEGACY_KEY: &str = "resource.customizations";

/// A01: a custom health script whose key matches none of the objects given. Argo CD looks a script
/// up by the object's exact `group/Kind` (`GetConfigMapKey`), and ignores a key that matches
/// nothing without a word, so such a key is most often a typo of the group or kind (argo-cd #14043:
/// `app_Deployment` for `apps_Deployment`). Wildcard keys and entries without a health script are
/// not judged. `group_kinds` are the objects' keys in Argo's `group/Kind` form (`Kind` alone for
/// the core group).
pub fn unused_health_keys(overrides: &Overrides, group_kinds: &[String]) -> Vec<Finding> {
    overrides
        .by_key
        .iter()
        .filter(|(key, o)| !o.health_lua.is_empty() && !key.contains(['*', '?', '[', '{']))
        .filter(|(key, _)| !group_kinds.iter().any(|k| k == *key))
        .map(|(key, o)| Finding {
            id: "A01",
            severity: Severity::Warning,
            object: "argocd-cm".to_string(),
            evidence: o.keys.join(", "),
            finding: format!(
                "the health customization for {key:?} ({}) matched none of the objects given",
                o.keys.join(", ")
            ),
            fix: format!(
                "check the group and kind in the key against the objects' apiVersion and kind ({key:?} is looked up as group/Kind)"
            ),
        })
        .collect()
}

/// A13: a `group/Kind` among the objects that no exact argocd-cm key judges while two or more
/// wildcard keys with a health script match it: argo-cd `util/lua/lua.go`
/// `getWildcardHealthOverrideLua` ranges over a Go map and takes the first match, so each
/// evaluation may run another script (argo-cd issue 16905), and the health can flip between
/// refreshes. `group_kinds` as [`unused_health_keys`] takes them; one finding per kind.
pub fn random_wildcards(overrides: &Overrides, group_kinds: &[String]) -> Vec<Finding> {
    let mut kinds: Vec<&String> = group_kinds.iter().collect();
    kinds.sort();
    kinds.dedup();
    kinds
        .into_iter()
        .filter_map(|gk| {
            let keys = crate::argo::health::health_keys(overrides, gk);
            keys.random().then(|| Finding {
                id: "A13",
                severity: Severity::Warning,
                object: "argocd-cm".to_string(),
                evidence: keys.globs.join(", "),
                finding: format!(
                    "{} wildcard keys with a health script match {gk} and no key of its own does: Argo CD runs one of them, picked at random on each evaluation ({})",
                    keys.globs.len(),
                    keys.globs.join(", ")
                ),
                fix: format!(
                    "give {gk} its own key (resource.customizations.health.{}), or make the wildcards match apart",
                    gk.replace('/', "_")
                ),
            })
        })
        .collect()
}

/// The unused keys of [`unused_health_keys`] that are a near miss of a `group/Kind` among the
/// objects (equal ignoring case, or within two edits: argo-cd #14043's `app/Deployment` for
/// `apps/Deployment`), with that key in the fix. What `health` warns about on every run: a key
/// for a kind the input simply does not hold (the shipped CoderTemplateTest key on Pactos alone)
/// says nothing.
pub fn mistyped_health_keys(overrides: &Overrides, group_kinds: &[String]) -> Vec<Finding> {
    unused_health_keys(overrides, group_kinds)
        .into_iter()
        .filter_map(|mut f| {
            let key = f.finding.split('"').nth(1)?.to_string();
            let near = group_kinds
                .iter()
                .find(|k| super::near::near_miss(&key, k, 2))?;
            f.fix = format!(
                "{key:?} matches no object, and {near:?} is one letter or case away: if the script is meant for it, key it resource.customizations.health.{}",
                near.replace('/', "_")
            );
            Some(f)
        })
        .collect()
}

/// An argocd-cm as read: its name for findings, its data, and the parsed overrides (or why Argo
/// refuses them).
pub struct ArgoCm<'a> {
    pub object: String,
    pub cm: &'a Value,
    pub data: Vec<(String, String)>,
    pub overrides: Result<Overrides, String>,
    /// The data key Argo CD refuses the configuration for, when it does.
    pub refused_key: Option<String>,
}

impl<'a> ArgoCm<'a> {
    /// Reads an argocd-cm ConfigMap object.
    pub fn new(cm: &'a Value) -> ArgoCm<'a> {
        let ns = cm
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("");
        let name = cm
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("argocd-cm");
        let data = cm
            .get("data")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        let parsed = settings::parse_configmap(cm);
        ArgoCm {
            object: if ns.is_empty() {
                format!("ConfigMap {name}")
            } else {
                format!("ConfigMap {ns}/{name}")
            },
            cm,
            data,
            refused_key: match &parsed {
                Err(settings::ConfigMapError::Load(e)) => Some(e.key.clone()),
                _ => None,
            },
            overrides: parsed.map_err(|e| e.to_string()),
        }
    }
}

/// The static checks of one argocd-cm: a configuration Argo refuses, near misses of the Pacto
/// and CoderTemplateTest keys (A01), the legacy blob beside a split key (A02), string or math
/// library calls in a restricted script (A03), a whole-ConfigMap apply (A09). `kinds_present` says which of Pacto and CoderTemplateTest objects exist, to
/// flag a missing customization.
pub fn static_checks(cm: &ArgoCm, pactos_present: bool, ctts_present: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    let o = &cm.object;
    if let Err(e) = &cm.overrides {
        // A refused key that is a near miss of a gate's key: one finding, with the rename.
        let rename = cm.refused_key.as_deref().and_then(|k| {
            [PACTO_KEY, CTT_KEY]
                .into_iter()
                .find(|want| near_miss(k, want, 4))
                .map(|want| format!("rename the data key {k:?} to {want}"))
        });
        out.push(Finding::new("A01", Severity::Error, o, e.clone(),
            format!("Argo CD refuses this configuration ({e}): every application's health is Unknown and every sync fails"),
            rename.unwrap_or_else(|| "fix the key named in the error; `kubectl pacto health --argocd-cm FILE` shows what Argo makes of it".to_string())));
    }
    let keys: Vec<&str> = cm.data.iter().map(|(k, _)| k.as_str()).collect();
    for (want, override_key, kind, present) in [
        (
            PACTO_KEY,
            "pacto.trianalab.io/Pacto",
            "Pacto",
            pactos_present,
        ),
        (
            CTT_KEY,
            "coder.com/CoderTemplateTest",
            "CoderTemplateTest",
            ctts_present,
        ),
    ] {
        // The keys Argo CD resolves to this kind's override work, whatever their spelling
        // (settings.go convertToOverrideKey takes `group/Kind` as well as `group_Kind`).
        let effective: Vec<&str> = cm
            .overrides
            .as_ref()
            .ok()
            .and_then(|o| o.by_key.get(override_key))
            .filter(|o| !o.health_lua.is_empty())
            .map(|o| o.keys.iter().map(String::as_str).collect())
            .unwrap_or_default();
        // The key Argo refuses is reported once, above.
        let misses: Vec<&&str> = keys
            .iter()
            .filter(|k| near_miss(k, want, 4) && !effective.contains(*k))
            .filter(|k| cm.refused_key.as_deref() != Some(**k))
            .collect();
        for k in &misses {
            if effective.is_empty() {
                out.push(Finding::new("A01", Severity::Error, o, format!("data key {k:?}"),
                    format!("the data key {k:?} looks like the {kind} health key but is not it: Argo CD ignores it without a word, which looks exactly like no configuration"),
                    format!("rename the key to {want}")));
            } else {
                out.push(Finding::new("A01", Severity::Warning, o, format!("data keys {k:?} and {want}"),
                    format!("the data key {k:?} is a leftover beside the working {kind} key: Argo CD ignores it, and whoever edits it edits nothing"),
                    format!("delete the data key {k:?}")));
            }
        }
        if effective.is_empty() && present && misses.is_empty() && cm.overrides.is_ok() {
            out.push(Finding::new(if kind == "Pacto" { "A01" } else { "C01" }, Severity::Error, o, format!("no data key {want}"),
                format!("no health customization for {kind}: Argo CD has no check for it, so the roll-up ignores it and the gate gates nothing"),
                format!("kubectl pacto snippet argocd --for {} > patch.yaml && kubectl -n argocd patch configmap argocd-cm --type merge --patch-file patch.yaml", kind.to_ascii_lowercase())));
        }
    }
    if keys.contains(&"resource.customizations.health") {
        out.push(Finding::new("A01", Severity::Error, o, "data key \"resource.customizations.health\"".to_string(),
            "a blob under resource.customizations.health: Argo CD reads per-kind keys there (resource.customizations.health.<group>_<Kind>), not a blob".to_string(),
            format!("move each script under its own key, e.g. {PACTO_KEY}")));
    }
    let blob = cm
        .data
        .iter()
        .find(|(k, _)| k == LEGACY_KEY)
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    if blob.contains("pacto.trianalab.io/Pacto") && keys.contains(&PACTO_KEY) {
        out.push(Finding::new("A02", Severity::Warning, o, format!("data keys {LEGACY_KEY} (pacto.trianalab.io/Pacto) and {PACTO_KEY}"),
            "the Pacto health script is configured twice: in the legacy resource.customizations blob and under its own key (the split key wins)".to_string(),
            "delete the Pacto entry from the resource.customizations blob".to_string()));
    }
    if let Ok(overrides) = &cm.overrides {
        for (key, ov) in &overrides.by_key {
            if ov.health_lua.is_empty() {
                continue;
            }
            if !ov.use_open_libs {
                if let Some(call) = library_call(&ov.health_lua) {
                    out.push(Finding::new("A03", Severity::Error, o, format!("{} uses {call}", ov.keys.join(", ")),
                        format!("the health script for {key} calls {call}, but Argo CD runs custom scripts without the string and math libraries: it fails at run time and the resource shows Unknown"),
                        format!("rewrite it with .., comparisons, ipairs and tostring only, or set resource.customizations.useOpenLibs.{}: \"true\"", key.replacen('/', "_", 1))));
                }
            }
        }
    }
    let last_applied = cm
        .cm
        .pointer("/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration")
        .and_then(Value::as_str);
    if let Some(applied) = last_applied {
        let only_ours = serde_json::from_str::<Value>(applied).ok().and_then(|v| {
            let data = v.get("data")?.as_object()?.clone();
            Some(
                !data.is_empty()
                    && data
                        .keys()
                        .all(|k| k.starts_with("resource.customizations")),
            )
        });
        if only_ours == Some(true) {
            out.push(Finding::new("A09", Severity::Warning, o, "annotation kubectl.kubernetes.io/last-applied-configuration holds only resource.customizations keys".to_string(),
                "argocd-cm was applied whole with kubectl apply and a file holding only the health customizations: Argo CD's own keys were dropped".to_string(),
                "apply the customizations as a merge patch: kubectl -n argocd patch configmap argocd-cm --type merge --patch-file patch.yaml".to_string()));
        }
    }
    out
}

/// The first string or math library call in a script, as a restricted Argo CD script would
/// fail on it (`string.format`, `s:gsub(`, `math.floor`, ...).
pub fn library_call(script: &str) -> Option<String> {
    let code: String = script
        .lines()
        .map(|l| l.split("--").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    for lib in ["string.", "math."] {
        if let Some(at) = code.find(lib) {
            let name: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
                .collect();
            return Some(name);
        }
    }
    for m in [
        "gsub", "format", "match", "gmatch", "find", "sub", "lower", "upper", "len", "rep", "byte",
        "reverse",
    ] {
        if code.contains(&format!(":{m}(")) {
            return Some(format!(":{m}()"));
        }
    }
    None
}

fn outcome(g: Gate) -> Must {
    match g {
        Gate::Pass => Must::Pass,
        Gate::Hold => Must::Hold,
        Gate::Fail => Must::Fail,
    }
}

/// What Argo CD's verdict on a probe does: the gate word, the status, its message, and whether
/// evaluation failed.
fn judge(engine: &ArgoHealth, p: &Probe) -> Option<(Must, String, bool, bool, bool)> {
    let v = engine.evaluate(&p.object);
    let timed_out = v
        .error
        .as_deref()
        .is_some_and(|e| e.contains("context deadline exceeded"));
    let h = v.health.as_ref()?;
    let words = format!(
        "{} {:?}",
        if h.status.is_empty() {
            "<empty>"
        } else {
            &h.status
        },
        h.message
    );
    let returned_unknown = v.error.is_none() && h.status == "Unknown";
    Some((
        outcome(argo_gate(&v)),
        words,
        v.error.is_some(),
        returned_unknown,
        timed_out,
    ))
}

/// The checks that run the configured scripts, as Argo CD would, on the probes of "GitOps promotion
/// gates" and "Gate template promotion with GitOps": a script that errors on a fresh object (A06),
/// passes a stale generation (A05) or a verdict it does not know (A04), fails open or never passes
/// (A07), and where the Warning knob sits (A10). `now_unix` is the clock of `os.time`.
pub fn evaluated(cm: &ArgoCm, now_unix: i64) -> Vec<Finding> {
    let Ok(overrides) = &cm.overrides else {
        return Vec::new();
    };
    let engine = ArgoHealth::new(overrides.clone(), None, now_unix);
    let mut out = Merged::default();
    let o = &cm.object;
    for (key, probes, kind_id) in [
        ("pacto.trianalab.io/Pacto", probes::pactos(), "A07"),
        (
            "coder.com/CoderTemplateTest",
            probes::coder_template_tests(),
            "C01",
        ),
    ] {
        let Some(ov) = overrides.by_key.get(key) else {
            continue;
        };
        // A script that calls a library Argo does not open fails everywhere: A03 says so once.
        if !ov.use_open_libs && library_call(&ov.health_lua).is_some() {
            continue;
        }
        let keys = ov.keys.join(", ");
        for p in &probes {
            let Some((got, words, errored, returned_unknown, timed_out)) = judge(&engine, p) else {
                continue;
            };
            let evidence = format!("{keys} on {}: {words}", p.name);
            if timed_out {
                // Every probe would wait out the limit again: one finding says it.
                out.add(
                    Finding::new("A07", Severity::Error, o, String::new(), String::new(),
                        "make the script finish: no loop may depend on the object without a bound".to_string()),
                    &format!("the {key} script does not finish within Argo CD's 1 s limit on {{}}: the resource shows Unknown"),
                    p.name,
                    evidence,
                );
                break;
            }
            let mut add = |id: &'static str, severity: Severity, template: String, fix: &str| {
                out.add(
                    Finding::new(
                        id,
                        severity,
                        o,
                        String::new(),
                        String::new(),
                        fix.to_string(),
                    ),
                    &template,
                    p.name,
                    evidence.clone(),
                );
            };
            if returned_unknown {
                add("A04", Severity::Warning,
                    format!("the {key} script returns Unknown for {{}}: Argo CD ranks Unknown worse than Degraded, so it masks genuinely broken workloads and fires no on-degraded trigger"),
                    "return Progressing for anything unrecognised");
            }
            if errored && p.fresh {
                add("A06", Severity::Error,
                    format!("the {key} script fails on {{}}: Argo CD shows the application Unknown until the first status lands"),
                    "guard the status first: if obj.status == nil then return {status = \"Progressing\", message = \"...\"} end");
                continue;
            }
            match (p.must, got) {
                (Must::Hold, Must::Pass) if p.name.contains("older generation") => add("A05", Severity::Warning,
                    format!("the {key} script passes {{}}: Argo CD has no generation check of its own, so a verdict about the previous spec lets the rollout go on"),
                    "compare obj.status.observedGeneration with obj.metadata.generation and return Progressing when they differ"),
                (Must::Hold | Must::Fail, Must::Pass) => add(
                    if p.name.contains("added later") { "A04" } else { kind_id },
                    Severity::Error,
                    format!("the {key} gate fails open: it passes {{}}"),
                    "return Progressing for anything the script does not recognise, Degraded for a violation"),
                (Must::Pass, Must::Hold | Must::Fail) => add(kind_id, Severity::Error,
                    format!("the {key} gate never passes {{}}: every rollout would stall or fail"),
                    "return Healthy for a satisfied contract (or a Succeeded test with Ready=True)"),
                (Must::Fail, Must::Hold) => add(kind_id, Severity::Warning,
                    format!("the {key} gate only holds {{}}: Argo CD waits instead of failing the sync"),
                    "return Degraded for a violation"),
                (Must::Knob, got) => add("A10", Severity::Info,
                    format!("the Warning knob of {key}: {{}} {} (Argo CD health customizations are instance-global: one policy for every team)", if got == Must::Pass { "passes" } else { "blocks" }),
                    if got == Must::Pass { "to make warnings block: kubectl pacto snippet argocd --warning-blocks" } else { "to let warnings pass: kubectl pacto snippet argocd" }),
                _ => {}
            }
        }
    }
    out.finish()
}

/// A08: the application controller started before the Pacto key was last written, so it runs
/// without it until a restart ("GitOps promotion gates", "Argo CD": the restart is not optional).
/// Times are Unix seconds.
pub fn restart_needed(
    cm: &ArgoCm,
    key_written: i64,
    controller_started: i64,
    controller: &str,
) -> Option<Finding> {
    (controller_started < key_written).then(|| Finding::new("A08", Severity::Error, &cm.object,
        format!("{PACTO_KEY} last written at {}, {controller} started at {}", crate::k8s::time::format_rfc3339_utc(key_written), crate::k8s::time::format_rfc3339_utc(controller_started)),
        "the application controller started before the health customization was written: it compares cached verdicts without it until it restarts".to_string(),
        "kubectl -n argocd rollout restart statefulset/argocd-application-controller".to_string()))
}

/// A12: `controller.resource.health.persist: "false"` in argocd-cmd-params-cm: per-resource
/// health is not in the Application's status.
pub fn params_checks(params: &Value) -> Vec<Finding> {
    let v = params
        .pointer("/data/controller.resource.health.persist")
        .and_then(Value::as_str);
    match v {
        Some("false") => vec![Finding::new("A12", Severity::Info, "ConfigMap argocd-cmd-params-cm",
            "controller.resource.health.persist: \"false\"".to_string(),
            "Argo CD keeps per-resource health out of Application.status.resources: tools reading it see none; `kubectl pacto` recomputes it".to_string(),
            String::new())],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::argo::settings::parse_configmap;
    use serde_json::json;

    fn overrides(data: serde_json::Value) -> Overrides {
        parse_configmap(&json!({"kind": "ConfigMap", "data": data})).unwrap()
    }

    #[test]
    fn a_key_no_object_uses_is_reported_once_with_its_argocd_cm_key() {
        // argo-cd #14043: `app_Deployment` was meant as `apps_Deployment`.
        let o = overrides(json!({
            "resource.customizations.health.app_Deployment": "return {status = 'Healthy'}",
            "resource.customizations.health.pacto.trianalab.io_Pacto": "return {status = 'Healthy'}",
        }));
        let found = unused_health_keys(
            &o,
            &[
                "apps/Deployment".to_string(),
                "pacto.trianalab.io/Pacto".to_string(),
            ],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, "A01");
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(
            found[0].finding,
            "the health customization for \"app/Deployment\" (resource.customizations.health.app_Deployment) matched none of the objects given"
        );
    }

    /// Only a near miss of an object's group/Kind is a likely typo; a key for a kind the input
    /// does not hold is not.
    #[test]
    fn mistyped_keys_are_the_near_misses_of_an_object() {
        let o = overrides(json!({
            "resource.customizations.health.app_Deployment": "return {status = 'Healthy'}",
            "resource.customizations.health.coder.com_CoderTemplateTest": "return {status = 'Healthy'}",
            "resource.customizations.health.pacto.trianalab.io_pacto": "return {status = 'Healthy'}",
        }));
        let kinds = [
            "apps/Deployment".to_string(),
            "pacto.trianalab.io/Pacto".to_string(),
        ];
        let found = mistyped_health_keys(&o, &kinds);
        let keys: Vec<&str> = found.iter().map(|f| f.evidence.as_str()).collect();
        assert_eq!(
            keys,
            [
                "resource.customizations.health.app_Deployment",
                "resource.customizations.health.pacto.trianalab.io_pacto"
            ]
        );
        assert!(
            found[0]
                .fix
                .contains("resource.customizations.health.apps_Deployment"),
            "{}",
            found[0].fix
        );
    }

    #[test]
    fn used_keys_wildcards_and_script_less_entries_are_not_reported() {
        let o = overrides(json!({
            "resource.customizations.health.pacto.trianalab.io_Pacto": "return {}",
            "resource.customizations.ignoreDifferences.x.io_Y": "jsonPointers: [/spec]",
            "resource.customizations": "\"*.io/*\":\n  health.lua: return {}\n",
        }));
        assert!(unused_health_keys(&o, &["pacto.trianalab.io/Pacto".to_string()]).is_empty());
    }

    #[test]
    fn library_calls_a_restricted_script_fails_on() {
        assert_eq!(
            library_call("local m = string.format('%s', x)").as_deref(),
            Some("string.format")
        );
        assert_eq!(
            library_call("return s:gsub('a', 'b')").as_deref(),
            Some(":gsub()")
        );
        assert_eq!(
            library_call("-- string.format in a comment\nreturn {}"),
            None
        );
        assert_eq!(
            library_call("return math.floor(1.5)").as_deref(),
            Some("math.floor")
        );
    }
}

#[cfg(test)]
mod wildcard_tests {
    use super::*;
    use std::collections::BTreeMap;

    fn overrides(block: &str) -> Overrides {
        let data = BTreeMap::from([("resource.customizations".to_string(), block.to_string())]);
        settings::parse_data(&data).unwrap()
    }

    /// A13 for a kind of the objects that two wildcard keys with health scripts match and no
    /// exact key judges (argo-cd issue 16905: the pick is random); none when an exact key
    /// decides, when one wildcard matches, or for a kind no object has.
    #[test]
    fn two_wildcards_for_one_kind_are_a_random_pick() {
        let globs = "\"*.trianalab.io/*\":\n  health.lua: return {status='Healthy'}\n\"pacto.*/*\":\n  health.lua: return {status='Degraded'}\n";
        let kinds = [
            "pacto.trianalab.io/Pacto".to_string(),
            "pacto.trianalab.io/Pacto".to_string(),
            "apps/Deployment".to_string(),
        ];
        let found = random_wildcards(&overrides(globs), &kinds);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, "A13");
        assert_eq!(found[0].evidence, "*.trianalab.io/*, pacto.*/*");
        assert_eq!(
            found[0].finding,
            "2 wildcard keys with a health script match pacto.trianalab.io/Pacto and no key of its own does: Argo CD runs one of them, picked at random on each evaluation (*.trianalab.io/*, pacto.*/*)"
        );
        assert_eq!(
            found[0].fix,
            "give pacto.trianalab.io/Pacto its own key (resource.customizations.health.pacto.trianalab.io_Pacto), or make the wildcards match apart"
        );
        let exact = format!(
            "{globs}pacto.trianalab.io/Pacto:\n  health.lua: return {{status='Healthy'}}\n"
        );
        assert!(random_wildcards(&overrides(&exact), &kinds).is_empty());
        let one = "\"*.trianalab.io/*\":\n  health.lua: return {status='Healthy'}\n";
        assert!(random_wildcards(&overrides(one), &kinds).is_empty());
        assert!(random_wildcards(&overrides(globs), &kinds[2..]).is_empty());
    }
}
