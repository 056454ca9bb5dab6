//! argocd-cm resource customizations, parsed as argo-cd `util/settings/settings.go`
//! (`GetResourceOverrides`, `appendResourceOverridesFromSplitKeys`, `convertToOverrideKey`) and
//! `pkg/apis/application/v1alpha1/types.go` (`rawResourceOverride`) parse them.

use serde_json::Value;
use std::collections::BTreeMap;

/// Data key of the legacy YAML blob.
pub const LEGACY_KEY: &str = "resource.customizations";

/// The customization types a split key may name (`resource.customizations.<type>.<group_kind>`).
pub const SPLIT_KEY_TYPES: [&str; 6] = [
    "health",
    "useOpenLibs",
    "actions",
    "ignoreDifferences",
    "ignoreResourceUpdates",
    "knownTypeFields",
];

/// The health part of one resource override: Argo's `ResourceOverride.HealthLua` and
/// `UseOpenLibs`, plus where each came from (for explanations).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Override {
    pub health_lua: String,
    pub use_open_libs: bool,
    /// The argocd-cm data keys that contributed to this override, in the order applied.
    pub keys: Vec<String>,
}

/// The overrides of one argocd-cm, by override key (`group/Kind`, `Kind` for the core group, or a
/// glob such as `*.crossplane.io/*`; `*/*` for the `all` alias).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub by_key: BTreeMap<String, Override>,
}

/// Why Argo CD would refuse the whole configuration: the controller then logs "Basic comparison
/// settings cannot be loaded, using unknown comparison" and shows every application's health as
/// `Unknown`; `argocd admin settings` exits 20.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    /// The data key at fault.
    pub key: String,
    /// The error text, as close to Argo's own as the source allows.
    pub message: String,
}

/// Parses the `data` of an argocd-cm ConfigMap object.
///
/// Errors (each fatal for the whole configuration in Argo CD): `data` not a map of strings; the
/// legacy blob not a YAML map of override entries, or an entry field of the wrong type (e.g.
/// `health.lua.useOpenLibs: "true"`, a string where a bool is expected); a split key whose type
/// is not one of [`SPLIT_KEY_TYPES`]; a group_kind with more than one `_`; a `useOpenLibs` value
/// that Go's `strconv.ParseBool` rejects; a `resource.compareoptions` that is not YAML.
pub fn parse_configmap(cm: &Value) -> Result<Overrides, ConfigMapError> {
    let kind = cm.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != "ConfigMap" {
        return Err(ConfigMapError::NotAConfigMap(
            if kind.is_empty() { "(none)" } else { kind }.to_string(),
        ));
    }
    data_strings(cm).map_err(|e| ConfigMapError::InvalidData(e.message))?;
    parse_data_of(cm).map_err(ConfigMapError::Load)
}

/// Why an argocd-cm file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigMapError {
    /// The file holds another kind of object.
    #[error("expected the argocd-cm ConfigMap, found kind {0}")]
    NotAConfigMap(String),
    /// `data` is not a map of strings: the API server would refuse to store such a ConfigMap.
    #[error("{0}")]
    InvalidData(String),
    /// A configuration Argo CD itself would refuse.
    #[error(transparent)]
    Load(#[from] LoadError),
}

impl ConfigMapError {
    /// The error for the file or object at `origin` (`cm.yaml: document 1`), one line. A
    /// configuration Argo CD refuses names the data key at fault and says what Argo CD does
    /// with it: the controller cannot load its comparison settings and every application's
    /// health becomes Unknown (argo-cd `controller/state.go`, "using unknown comparison").
    pub fn at(&self, origin: &str) -> String {
        match self {
            ConfigMapError::NotAConfigMap(_) | ConfigMapError::InvalidData(_) => {
                format!("{origin}: {self}")
            }
            ConfigMapError::Load(e) => {
                let key = if e.key.is_empty() {
                    String::new()
                } else {
                    format!(" data key {:?}:", e.key)
                };
                format!(
                    "{origin}:{key} {} (Argo CD refuses the whole configuration: every application's health becomes Unknown)",
                    e.message
                )
            }
        }
    }
}

/// Parses the `data` of an object read as a ConfigMap, whatever its kind (as
/// `argocd admin settings --argocd-cm-path` does). Errors: see [`parse_configmap`].
pub fn parse_data_of(cm: &Value) -> Result<Overrides, LoadError> {
    parse_data(&data_strings(cm)?)
}

/// `data` as a map of strings. Errors: a value that is not a string, or `data` not a map.
fn data_strings(cm: &Value) -> Result<BTreeMap<String, String>, LoadError> {
    let mut data = BTreeMap::new();
    match cm.get("data") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                match v {
                    Value::String(s) => {
                        data.insert(k.clone(), s.clone());
                    }
                    Value::Null => {
                        data.insert(k.clone(), String::new());
                    }
                    other => {
                        return Err(LoadError {
                            key: k.clone(),
                            message: format!(
                                "data.{k}: ConfigMap values must be strings, found {} (quote it: \"{}\"); the API server would refuse this ConfigMap",
                                crate::object::json_type(other),
                                other
                            ),
                        })
                    }
                }
            }
        }
        Some(other) => {
            return Err(LoadError {
                key: String::new(),
                message: format!(
                    "data: expected a map of strings, found {}",
                    crate::object::json_type(other)
                ),
            })
        }
    }
    Ok(data)
}

/// Parses argocd-cm data (see [`parse_configmap`]).
pub fn parse_data(data: &BTreeMap<String, String>) -> Result<Overrides, LoadError> {
    let mut by_key: BTreeMap<String, Override> = BTreeMap::new();
    if let Some(blob) = data.get(LEGACY_KEY).filter(|b| !b.is_empty()) {
        by_key = parse_legacy_blob(blob)?;
    }
    // Go iterates the data map in random order and stops at the first bad key; we go in key order
    // so that the error named is always the same.
    for (k, v) in data {
        if !k.starts_with(LEGACY_KEY) {
            continue;
        }
        let parts: Vec<&str> = k.splitn(4, '.').collect();
        if parts.len() < 4 {
            continue;
        }
        let key_err = |message: String| LoadError {
            key: k.clone(),
            message,
        };
        let override_key = convert_to_override_key(parts[3]).map_err(key_err)?;
        let override_key = if override_key == "all" {
            "*/*".to_string()
        } else {
            override_key
        };
        let entry = by_key.entry(override_key).or_default();
        match parts[2] {
            "health" => entry.health_lua = v.clone(),
            "useOpenLibs" => {
                entry.use_open_libs = parse_go_bool(v).ok_or_else(|| LoadError {
                    key: k.clone(),
                    message: format!("strconv.ParseBool: parsing \"{v}\": invalid syntax"),
                })?
            }
            "actions" => {}
            "ignoreDifferences" | "ignoreResourceUpdates" | "knownTypeFields" => {
                crate::object::parse_documents(v, k).map_err(|e| LoadError {
                    key: k.clone(),
                    message: e.to_string(),
                })?;
            }
            other => {
                return Err(LoadError {
                    key: k.clone(),
                    message: format!("resource customization type {other} not supported"),
                })
            }
        }
        entry.keys.push(k.clone());
    }
    if let Some(v) = data.get("resource.compareoptions") {
        if let Err(e) = crate::object::parse_documents(v, "resource.compareoptions") {
            return Err(LoadError {
                key: "resource.compareoptions".into(),
                message: format!("failed to get compare options: {e}"),
            });
        }
    }
    Ok(Overrides { by_key })
}

/// argo-cd `convertToOverrideKey`: `group_Kind` → `group/Kind`, `Kind` → `Kind`, anything with
/// more than one `_` (or empty) is an error.
fn convert_to_override_key(group_kind: &str) -> Result<String, String> {
    let parts: Vec<&str> = group_kind.split('_').collect();
    match parts.as_slice() {
        [g, k] => Ok(format!("{g}/{k}")),
        [_] if !group_kind.is_empty() => Ok(group_kind.to_string()),
        _ => Err(format!(
            "group kind should be in format `resource.customizations.<type>.<group_kind>` or resource.customizations.<type>.<kind>`, got group kind: '{group_kind}'"
        )),
    }
}

/// Go's `strconv.ParseBool`.
fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// The legacy `resource.customizations` blob: a YAML map of override key → entry, decoded as Go's
/// `json.Unmarshal` into `rawResourceOverride` decodes it (field names case-insensitive, a value
/// of the wrong type is an error, unknown fields ignored).
fn parse_legacy_blob(blob: &str) -> Result<BTreeMap<String, Override>, LoadError> {
    let err = |message: String| LoadError {
        key: LEGACY_KEY.into(),
        message,
    };
    let docs = crate::object::parse_documents(blob, LEGACY_KEY).map_err(|e| err(e.to_string()))?;
    let mut out = BTreeMap::new();
    let Some(Some(root)) = docs.into_iter().next() else {
        return Ok(out);
    };
    let Value::Object(map) = root else {
        return Err(err(format!(
            "error unmarshaling JSON: json: cannot unmarshal {} into Go value of type map[string]v1alpha1.ResourceOverride",
            crate::argo::builtin::golang::json_word(&root)
        )));
    };
    for (key, entry) in map {
        let mut o = Override {
            keys: vec![LEGACY_KEY.to_string()],
            ..Override::default()
        };
        match entry {
            Value::Null => {}
            Value::Object(fields) => {
                for (f, v) in fields {
                    let field_type_error = |want: &str| {
                        err(format!(
                            "error unmarshaling JSON: json: cannot unmarshal {} into Go struct field rawResourceOverride.{f} of type {want}",
                            crate::argo::builtin::golang::json_word(&v)
                        ))
                    };
                    let lower = f.to_ascii_lowercase();
                    match lower.as_str() {
                        "health.lua" => match &v {
                            Value::String(s) => o.health_lua = s.clone(),
                            Value::Null => {}
                            _ => return Err(field_type_error("string")),
                        },
                        "health.lua.useopenlibs" => match &v {
                            Value::Bool(b) => o.use_open_libs = *b,
                            Value::Null => {}
                            _ => return Err(field_type_error("bool")),
                        },
                        "actions" | "ignoredifferences" | "ignoreresourceupdates"
                            if !(v.is_string() || v.is_null()) =>
                        {
                            return Err(field_type_error("string"));
                        }
                        "knowntypefields" if !(v.is_array() || v.is_null()) => {
                            return Err(field_type_error("[]v1alpha1.KnownTypeField"));
                        }
                        _ => {}
                    }
                }
            }
            other => {
                return Err(err(format!(
                    "error unmarshaling JSON: json: cannot unmarshal {} into Go value of type v1alpha1.rawResourceOverride",
                    crate::argo::builtin::golang::json_word(&other)
                )))
            }
        }
        out.insert(key, o);
    }
    Ok(out)
}

/// argo-cd `util/glob` `Match`: gobwas/glob compiled without separators, so `*` matches any run
/// of characters including `/` and `.`; `?` one character; `[abc]`, `[a-z]`, `[!a]` classes;
/// `{a,b}` alternatives. Case-sensitive. An invalid pattern matches nothing.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Alternatives are expanded first (each `{a,b}` once), then every pattern is matched with
    // a memo of (pattern position, text position), so no input makes the match exponential.
    expand_braces(&p, 0)
        .iter()
        .any(|alt| glob_at(alt, &t, 0, 0, &mut std::collections::HashMap::new()))
}

/// The patterns a `{a,b}` pattern stands for; at most 1,024 (further alternatives are dropped).
fn expand_braces(p: &[char], depth: usize) -> Vec<Vec<char>> {
    let Some(open) = p.iter().position(|&c| c == '{') else {
        return vec![p.to_vec()];
    };
    let Some(close) = p[open..].iter().position(|&c| c == '}').map(|i| i + open) else {
        return vec![p.to_vec()];
    };
    if depth > 10 {
        return vec![p.to_vec()];
    }
    let mut out = Vec::new();
    for alt in p[open + 1..close].split(|&c| c == ',') {
        let mut candidate = p[..open].to_vec();
        candidate.extend_from_slice(alt);
        candidate.extend_from_slice(&p[close + 1..]);
        for e in expand_braces(&candidate, depth + 1) {
            if out.len() < 1024 {
                out.push(e);
            }
        }
    }
    out
}

fn glob_at(
    p: &[char],
    t: &[char],
    pi: usize,
    ti: usize,
    memo: &mut std::collections::HashMap<(usize, usize), bool>,
) -> bool {
    if let Some(&r) = memo.get(&(pi, ti)) {
        return r;
    }
    let r = match p.get(pi) {
        None => ti == t.len(),
        Some('*') => (ti..=t.len()).any(|i| glob_at(p, t, pi + 1, i, memo)),
        Some('?') => ti < t.len() && glob_at(p, t, pi + 1, ti + 1, memo),
        Some('[') => {
            let Some(end) = p[pi + 1..]
                .iter()
                .position(|&c| c == ']')
                .map(|e| e + pi + 1)
            else {
                memo.insert((pi, ti), false);
                return false;
            };
            match t.get(ti) {
                None => false,
                Some(&c) => {
                    let class = &p[pi + 1..end];
                    let (negate, class) = match class.first() {
                        Some('!') => (true, &class[1..]),
                        _ => (false, class),
                    };
                    let mut hit = false;
                    let mut i = 0;
                    while i < class.len() {
                        if i + 2 < class.len() && class[i + 1] == '-' {
                            hit |= class[i] <= c && c <= class[i + 2];
                            i += 3;
                        } else {
                            hit |= class[i] == c;
                            i += 1;
                        }
                    }
                    hit != negate && glob_at(p, t, end + 1, ti + 1, memo)
                }
            }
        }
        Some('\\') if pi + 1 < p.len() => {
            t.get(ti) == Some(&p[pi + 1]) && glob_at(p, t, pi + 2, ti + 1, memo)
        }
        Some(&c) => t.get(ti) == Some(&c) && glob_at(p, t, pi + 1, ti + 1, memo),
    };
    memo.insert((pi, ti), r);
    r
}

/// doublestar `PathMatch` as argo-cd uses it for built-in wildcard directories: like
/// [`glob_match`] but `*` and `?` never cross `/`.
pub fn path_match(pattern: &str, text: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').collect();
    let t: Vec<&str> = text.split('/').collect();
    p.len() == t.len() && p.iter().zip(&t).all(|(a, b)| glob_match(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cm(data: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-cm"}, "data": data})
    }

    /// Key forms: settings.go convertToOverrideKey and the `all` alias.
    #[test]
    fn split_keys_map_to_override_keys() {
        let o = parse_configmap(&cm(json!({
            "resource.customizations.health.pacto.trianalab.io_Pacto": "return {}",
            "resource.customizations.useOpenLibs.pacto.trianalab.io_Pacto": "true",
            "resource.customizations.health.PersistentVolumeClaim": "return nil",
            "resource.customizations.health.all": "return {status='Healthy'}",
            "resource.customizations": "",
            "resource.customizations.health": "ignored: fewer than four parts",
        })))
        .unwrap();
        let keys: Vec<&str> = o.by_key.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["*/*", "PersistentVolumeClaim", "pacto.trianalab.io/Pacto"]
        );
        assert!(o.by_key["pacto.trianalab.io/Pacto"].use_open_libs);
        assert_eq!(o.by_key["*/*"].health_lua, "return {status='Healthy'}");
    }

    /// Fatal load errors: settings.go (unknown type, convertToOverrideKey, strconv.ParseBool).
    fn load_err(cm: Value) -> LoadError {
        match parse_configmap(&cm).unwrap_err() {
            ConfigMapError::Load(e) => e,
            other => panic!("expected a load error, got {other}"),
        }
    }

    #[test]
    fn fatal_configuration_errors() {
        let e = load_err(cm(
            json!({"resource.customizations.heath.x_Y": "return {}"}),
        ));
        assert_eq!(e.message, "resource customization type heath not supported");
        let e = load_err(cm(json!({"resource.customizations.health.a_b_C": "x"})));
        assert_eq!(e.message, "group kind should be in format `resource.customizations.<type>.<group_kind>` or resource.customizations.<type>.<kind>`, got group kind: 'a_b_C'");
        let e = load_err(cm(
            json!({"resource.customizations.useOpenLibs.a_B": "yes"}),
        ));
        assert_eq!(
            e.message,
            "strconv.ParseBool: parsing \"yes\": invalid syntax"
        );
        let e = parse_configmap(&json!({"kind": "Secret"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "expected the argocd-cm ConfigMap, found kind Secret"
        );
        // A non-string value is no Argo error: the API server would refuse the ConfigMap.
        let e = parse_configmap(&cm(
            json!({"resource.customizations.useOpenLibs.a_B": true}),
        ))
        .unwrap_err();
        assert!(matches!(e, ConfigMapError::InvalidData(_)), "{e}");
        assert!(e.to_string().contains("must be strings"), "{e}");
    }

    /// A refused configuration names the file and the key (settings.go's errors), and what
    /// Argo CD then does (controller/state.go: every application's health Unknown).
    #[test]
    fn refusals_name_the_file_and_the_key() {
        let e = parse_configmap(&cm(
            json!({"resource.customizations.useOpenLibs.a_B": "yes"}),
        ))
        .unwrap_err();
        assert_eq!(
            e.at("cm.yaml: document 1"),
            "cm.yaml: document 1: data key \"resource.customizations.useOpenLibs.a_B\": strconv.ParseBool: parsing \"yes\": invalid syntax (Argo CD refuses the whole configuration: every application's health becomes Unknown)"
        );
        let e = parse_configmap(&json!({"kind": "Secret"})).unwrap_err();
        assert_eq!(
            e.at("s.yaml"),
            "s.yaml: expected the argocd-cm ConfigMap, found kind Secret"
        );
    }

    /// Legacy blob merged per field with split keys (settings.go GetResourceOverrides).
    #[test]
    fn legacy_blob_and_split_keys_merge_per_field() {
        let blob = "pacto.trianalab.io/Pacto:\n  health.lua: return {status='Degraded'}\n  health.lua.useOpenLibs: true\n\"*.crossplane.io/*\":\n  health.lua: return {status='Healthy'}\n";
        let o = parse_configmap(&cm(json!({
            "resource.customizations": blob,
            "resource.customizations.health.pacto.trianalab.io_Pacto": "return {status='Healthy'}",
        })))
        .unwrap();
        let p = &o.by_key["pacto.trianalab.io/Pacto"];
        assert_eq!(p.health_lua, "return {status='Healthy'}");
        assert!(p.use_open_libs, "useOpenLibs from the blob survives");
        assert!(o.by_key.contains_key("*.crossplane.io/*"));
        // A quoted "true" cannot decode into bool: the whole load fails.
        let bad = "a/B:\n  health.lua.useOpenLibs: \"true\"\n";
        let e = load_err(cm(json!({"resource.customizations": bad})));
        assert!(e.message.contains("cannot unmarshal string into Go struct field rawResourceOverride.health.lua.useOpenLibs of type bool"), "{}", e.message);
    }

    /// Glob semantics: gobwas/glob without separators (util/glob) vs doublestar PathMatch.
    #[test]
    fn globs() {
        assert!(glob_match(
            "*.aws.crossplane.io/*",
            "ec2.aws.crossplane.io/Instance"
        ));
        assert!(glob_match("*", "apps/Deployment"));
        assert!(glob_match("*/*", "apps/Deployment"));
        assert!(!glob_match("*/*", "Pod"));
        assert!(glob_match("*.aws*", "ec2.aws.crossplane.io/Instance"));
        assert!(glob_match("{apps,batch}/?ob", "batch/Job"));
        assert!(glob_match("[a-c]pps/*", "apps/X"));
        assert!(!glob_match("[!a]pps/*", "apps/X"));
        assert!(path_match(
            "*.crossplane.io/*",
            "pkg.crossplane.io/Provider"
        ));
        assert!(!path_match("*", "pkg.crossplane.io/Provider"));
        // No exponential backtracking: a pattern with many stars against a long text.
        let long = "a".repeat(400);
        assert!(!glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", &long));
    }
}
