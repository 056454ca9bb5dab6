//! How server-side apply merges a list field, read from the field's OpenAPI schema as
//! kube-apiserver reads it for structured-merge-diff (kube-openapi `pkg/schemaconv/smd.go`,
//! `VisitArray`): `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys` makes an
//! associative list keyed by those fields, `set` an associative list keyed by value, `atomic`
//! (and, for a custom resource, no marker at all, an unknown marker, or a schema that does not
//! describe the field) one value. Which managers own what follows from it
//! (structured-merge-diff `fieldpath`): in an associative list each entry is owned on its own
//! (`k:{"type":"Ready"}`), while whoever last set an atomic list, by apply or by update, owns
//! the whole list (`f:conditions`), so another manager's next apply of its own entry conflicts.
//! Pure.

use serde_json::Value;

/// How a list merges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType {
    /// `x-kubernetes-list-type: map`: entries are keyed by these fields
    /// (`x-kubernetes-list-map-keys`), each owned by the manager that set it.
    Map(Vec<String>),
    /// `x-kubernetes-list-type: set`: entries are keyed by their value.
    Set,
    /// One value, replaced whole and owned whole.
    Atomic,
}

impl ListType {
    /// The list type a field's schema declares (None: the schema does not describe the field,
    /// as under `x-kubernetes-preserve-unknown-fields`, which structured-merge-diff deduces as
    /// atomic). A `map` without keys is not a map kube-apiserver accepts: read as atomic.
    pub fn of(field: Option<&Value>) -> ListType {
        let Some(field) = field else {
            return ListType::Atomic;
        };
        match field.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("map") => {
                let keys: Vec<String> = field
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .map(|k| {
                        k.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                if keys.is_empty() {
                    ListType::Atomic
                } else {
                    ListType::Map(keys)
                }
            }
            Some("set") => ListType::Set,
            _ => ListType::Atomic,
        }
    }

    /// Whoever writes the list owns all of it (no entry is owned on its own).
    pub fn is_atomic(&self) -> bool {
        *self == ListType::Atomic
    }

    /// How the schema says it, for evidence: `x-kubernetes-list-type: map` with
    /// `x-kubernetes-list-map-keys: [type]`, `x-kubernetes-list-type: atomic`, or that no
    /// `x-kubernetes-list-type` is declared.
    pub fn declared(field: Option<&Value>) -> String {
        let Some(field) = field else {
            return "the schema does not describe the field".to_string();
        };
        let list_type = field.get("x-kubernetes-list-type");
        let keys = field.get("x-kubernetes-list-map-keys");
        match (list_type, keys) {
            (None, _) => "no x-kubernetes-list-type".to_string(),
            (Some(t), None) => format!("x-kubernetes-list-type: {}", scalar(t)),
            (Some(t), Some(k)) => format!(
                "x-kubernetes-list-type: {}, x-kubernetes-list-map-keys: {k}",
                scalar(t)
            ),
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The schema of one kind in an OpenAPI v3 group-version document
/// (`/openapi/v3/apis/GROUP/VERSION`): the entry of `components.schemas` whose
/// `x-kubernetes-group-version-kind` names `group`, `version` and `kind`.
pub fn kind_schema<'a>(
    document: &'a Value,
    group: &str,
    version: &str,
    kind: &str,
) -> Option<&'a Value> {
    let is_it = |s: &&Value| {
        s.get("x-kubernetes-group-version-kind")
            .and_then(Value::as_array)
            .is_some_and(|gvks| {
                gvks.iter().any(|g| {
                    g.get("group").and_then(Value::as_str) == Some(group)
                        && g.get("version").and_then(Value::as_str) == Some(version)
                        && g.get("kind").and_then(Value::as_str) == Some(kind)
                })
            })
    };
    document
        .pointer("/components/schemas")
        .and_then(Value::as_object)?
        .values()
        .find(is_it)
}

/// The schema of the field at `path` (`["status", "conditions"]`) of an object schema, through
/// `properties` (None where a level does not describe the next).
pub fn field_schema<'a>(object: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(object, |s, name| s.get("properties")?.get(*name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// kube-openapi's `VisitArray`: map with keys, set, atomic; no marker and unknown markers
    /// are atomic, and so is a field the schema does not describe (a deduced list).
    #[test]
    fn each_marker_as_structured_merge_diff_reads_it() {
        let table = [
            (
                Some(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]}),
                ),
                ListType::Map(vec!["type".into()]),
            ),
            (
                Some(
                    json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type", "reason"]}),
                ),
                ListType::Map(vec!["type".into(), "reason".into()]),
            ),
            (
                Some(json!({"x-kubernetes-list-type": "set"})),
                ListType::Set,
            ),
            (
                Some(json!({"x-kubernetes-list-type": "atomic"})),
                ListType::Atomic,
            ),
            (Some(json!({"type": "array"})), ListType::Atomic),
            (
                Some(json!({"x-kubernetes-list-type": "Map"})),
                ListType::Atomic,
            ),
            (None, ListType::Atomic),
        ];
        for (field, want) in table {
            assert_eq!(ListType::of(field.as_ref()), want, "{field:?}");
        }
    }

    #[test]
    fn the_schema_of_a_kind_and_of_its_fields() {
        let doc = json!({"components": {"schemas": {
            "other": {"x-kubernetes-group-version-kind": [{"group": "g", "version": "v1", "kind": "Other"}]},
            "ours": {"x-kubernetes-group-version-kind": [{"group": "g", "version": "v1", "kind": "Stage"}],
                     "properties": {"status": {"properties": {"conditions": {"type": "array"}}}}}}}});
        let stage = kind_schema(&doc, "g", "v1", "Stage").unwrap();
        assert_eq!(
            field_schema(stage, &["status", "conditions"]),
            Some(&json!({"type": "array"}))
        );
        assert_eq!(field_schema(stage, &["status", "phase"]), None);
        assert!(kind_schema(&doc, "g", "v2", "Stage").is_none());
        assert_eq!(
            ListType::declared(Some(
                &json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]})
            )),
            "x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [\"type\"]"
        );
        assert_eq!(
            ListType::declared(Some(&json!({"type": "array"}))),
            "no x-kubernetes-list-type"
        );
    }
}
