//! Group, version and kind: apimachinery `pkg/runtime/schema/group_version.go`
//! (`ParseGroupVersion`, `FromAPIVersionAndKind`) and Argo CD's `group/Kind` key form.

use serde_json::Value;

/// Group, version and kind of an object, split from `apiVersion` and `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Gvk {
    /// API group; empty for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    /// `schema.FromAPIVersionAndKind`: the `apiVersion` split as `ParseGroupVersion` splits it
    /// (empty or `v1`: core group, version alone; `group/version`; anything with two or more
    /// slashes is an error, which `FromAPIVersionAndKind` turns into an empty group and version,
    /// keeping only the kind).
    pub fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        let (group, version) = match api_version.split('/').count() {
            1 => ("", api_version),
            2 => api_version.split_once('/').unwrap_or(("", "")),
            _ => ("", ""),
        };
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    /// `group/Kind`, or `Kind` for the core group: Argo CD's `GetConfigMapKey` form.
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}/{}", self.group, self.kind)
        }
    }
}

/// The GVK of an object's `apiVersion` and `kind` (missing or non-string fields read as empty),
/// as `unstructured.Unstructured.GroupVersionKind` gives it.
pub fn gvk_of(obj: &Value) -> Gvk {
    Gvk::from_api_version(
        obj.get("apiVersion").and_then(Value::as_str).unwrap_or(""),
        obj.get("kind").and_then(Value::as_str).unwrap_or(""),
    )
}

/// The string at JSON pointer `p` (`/metadata/name`), or `""` when absent or not a string.
pub fn str_at<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or("")
}

/// An object's identity as Argo CD's `status.resources` and Flux's inventory name it: (API
/// group, kind, namespace, name); the version does not count.
pub type Identity<'a> = (String, &'a str, &'a str, &'a str);

/// Live objects by [`Identity`] ([`index_by_identity`]): built once, looked up by each rule
/// that names objects (an Application's resources, a wait's objects, a tree's every level).
pub type Index<'a> = std::collections::HashMap<Identity<'a>, &'a Value>;

/// `live` indexed by [`Identity`]; the first of two objects with one identity is kept.
pub fn index_by_identity(live: &[Value]) -> Index<'_> {
    let mut index = std::collections::HashMap::with_capacity(live.len());
    for o in live {
        index
            .entry((
                gvk_of(o).group,
                str_at(o, "/kind"),
                str_at(o, "/metadata/namespace"),
                str_at(o, "/metadata/name"),
            ))
            .or_insert(o);
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values from apimachinery `ParseGroupVersion` (`""` and `/` empty; no slash: core
    /// group; one slash: group/version; more: an error) through `FromAPIVersionAndKind` (an
    /// error keeps only the kind).
    #[test]
    fn parse_group_version_rules() {
        let cases = [
            ("", "", ""),
            ("v1", "", "v1"),
            ("extensions/v1beta1", "extensions", "v1beta1"),
            (
                "pacto.trianalab.io/v1alpha1",
                "pacto.trianalab.io",
                "v1alpha1",
            ),
            ("a/b/c", "", ""),
            ("/v1", "", "v1"),
            ("group/", "group", ""),
        ];
        for (api_version, group, version) in cases {
            let g = Gvk::from_api_version(api_version, "K");
            assert_eq!(
                (g.group.as_str(), g.version.as_str(), g.kind.as_str()),
                (group, version, "K"),
                "{api_version:?}"
            );
        }
    }

    #[test]
    fn group_kind_of_core_and_grouped_kinds() {
        let g = Gvk::from_api_version("v1", "Pod");
        assert_eq!((g.group.as_str(), g.group_kind()), ("", "Pod".to_string()));
        let g = Gvk::from_api_version("batch/v1", "Job");
        assert_eq!(g.group_kind(), "batch/Job");
        let g = gvk_of(&serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment"}));
        assert_eq!(g.group_kind(), "apps/Deployment");
        assert_eq!(gvk_of(&serde_json::json!({"kind": 5})).group_kind(), "");
    }
}
