//! Which objects a command shows: those of the namespace `-n` names, the one named, those the
//! label selector matches, as the API server would pick them (so that objects read from files
//! are picked as a cluster's would be), and the errors for a named object that is not there.

use anyhow::{anyhow, Result};
use kubectl_pacto::resource::ResourceType;
use pacto_gates::cluster::ClusterError;
use pacto_gates::k8s::selector::Selector;
use serde_json::Value;

/// `metadata.name`, if it is a string.
pub(crate) fn name_of(o: &Value) -> Option<&str> {
    o.pointer("/metadata/name").and_then(Value::as_str)
}

/// With `-n`, only the objects of that namespace (kubectl would refuse the others); an object
/// without a namespace is in `default`.
pub(crate) fn in_namespace(o: &Value, namespace: Option<&str>) -> bool {
    namespace.is_none_or(|ns| {
        o.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default")
            == ns
    })
}

/// `-l` read here, to be matched here (objects of files, or a listing picked from a wider
/// one). Errors name the flag.
pub(crate) fn selector(given: Option<&str>) -> Result<Selector> {
    match given {
        None => Ok(Selector::default()),
        Some(s) => Selector::parse(s).map_err(|e| anyhow!("-l/--selector {e}")),
    }
}

/// The objects of a listing that are shown: in the namespace (None: all), with the name,
/// matching the selector.
pub(crate) fn shown(
    all: &[Value],
    namespace: Option<&str>,
    name: Option<&str>,
    selector: &Selector,
) -> Vec<Value> {
    shown_in(all, namespace, name, selector)
        .into_iter()
        .cloned()
        .collect()
}

/// [`shown`], borrowed from `all`.
pub(crate) fn shown_in<'v>(
    all: &'v [Value],
    namespace: Option<&str>,
    name: Option<&str>,
    selector: &Selector,
) -> Vec<&'v Value> {
    all.iter()
        .filter(|o| in_namespace(o, namespace))
        .filter(|o| name.is_none_or(|n| name_of(o) == Some(n)))
        .filter(|o| selector.matches(o))
        .collect()
}

/// The error for a named object that was not read: the API server's NotFound for a cluster's
/// namespace, else that the files given lack it.
pub(crate) fn not_found(
    listed: ResourceType,
    name: &str,
    namespace: Option<&str>,
) -> anyhow::Error {
    match namespace {
        Some(ns) => ClusterError::NotFound {
            resource: listed.resource(),
            name: name.to_string(),
            scope: format!(" in namespace \"{ns}\""),
        }
        .into(),
        None => anyhow!(
            "{} \"{name}\" not found in the files given",
            listed.kind().to_ascii_lowercase()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// As the API server picks them: `-n` (an object without a namespace is in `default`), the
    /// name, the label selector; and kubectl's words for a name that is not there.
    #[test]
    fn objects_are_picked_as_the_api_server_picks_them() {
        let all = [
            json!({"metadata": {"name": "a", "namespace": "shop", "labels": {"team": "x"}}}),
            json!({"metadata": {"name": "b", "namespace": "shop"}}),
            json!({"metadata": {"name": "a"}}),
        ];
        let names = |v: Vec<Value>| -> Vec<String> {
            v.iter()
                .map(|o| format!("{}/{}", o["metadata"]["namespace"], name_of(o).unwrap()))
                .collect()
        };
        let any = Selector::default();
        assert_eq!(
            names(shown(&all, Some("shop"), None, &any)),
            ["\"shop\"/a", "\"shop\"/b"]
        );
        assert_eq!(names(shown(&all, Some("default"), None, &any)), ["null/a"]);
        assert_eq!(names(shown(&all, None, Some("a"), &any)).len(), 2);
        let team = selector(Some("team=x")).unwrap();
        assert_eq!(names(shown(&all, None, None, &team)), ["\"shop\"/a"]);
        assert!(selector(Some("a in ("))
            .unwrap_err()
            .to_string()
            .starts_with("-l/--selector "));
        assert_eq!(
            not_found(ResourceType::Stages, "x", Some("shop")).to_string(),
            ClusterError::NotFound {
                resource: "stages.delivery.pacto.trianalab.io".into(),
                name: "x".into(),
                scope: " in namespace \"shop\"".into(),
            }
            .to_string()
        );
        assert_eq!(
            not_found(ResourceType::Operations, "x", None).to_string(),
            "operation \"x\" not found in the files given"
        );
    }
}
