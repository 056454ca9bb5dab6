//! Checks of an Argo CD configuration (argocd-cm `resource.customizations*`), following how
//! argo-cd `util/settings/settings.go` reads the keys and `util/lua/lua.go` looks them up.

use super::{Finding, Severity};
use crate::argo::settings::Overrides;

/// A01 (pacto-domain §2.5): a custom health script whose key matches none of the objects
/// given. Argo CD looks a script up by the object's exact `group/Kind` (`GetConfigMapKey`), and
/// ignores a key that matches nothing without a word, so such a key is most often a typo of the
/// group or kind (argo-cd #14043: `app_Deployment` for `apps_Deployment`). Wildcard keys and
/// entries without a health script are not judged. `group_kinds` are the objects' keys in
/// Argo's `group/Kind` form (`Kind` alone for the core group).
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

    #[test]
    fn used_keys_wildcards_and_script_less_entries_are_not_reported() {
        let o = overrides(json!({
            "resource.customizations.health.pacto.trianalab.io_Pacto": "return {}",
            "resource.customizations.ignoreDifferences.x.io_Y": "jsonPointers: [/spec]",
            "resource.customizations": "\"*.io/*\":\n  health.lua: return {}\n",
        }));
        assert!(unused_health_keys(&o, &["pacto.trianalab.io/Pacto".to_string()]).is_empty());
    }
}
