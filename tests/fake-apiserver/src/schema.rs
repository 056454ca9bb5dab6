//! Reading an OpenAPI v3 schema (a CRD version's `openAPIV3Schema`) the
//! way server-side apply does: which lists are atomic, sets or maps keyed
//! by some of their elements' fields, and which maps are atomic.
//!
//! Without a schema (or below a part the schema does not describe) maps are
//! merged field by field and lists are atomic, which is also the default of
//! a list in a CRD that carries no `x-kubernetes-list-type`.

use std::sync::OnceLock;

use serde_json::{json, Value};

/// How server-side apply merges and owns a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ListType {
    /// One value: the applier replaces it whole and owns it as one field.
    Atomic,
    /// Elements are scalars identified by their value (`v:` keys).
    Set,
    /// Elements are objects identified by these fields (`k:` keys).
    Map(Vec<String>),
}

/// A position in a schema; `None` where the schema says nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schema<'a> {
    node: Option<&'a Value>,
    /// The node is the object root, where `metadata` is ObjectMeta.
    root: bool,
    /// The resource has a schema (below a part it does not describe, structured-merge-diff
    /// deduces the type: a map there declares no field).
    typed: bool,
}

/// The list types ObjectMeta declares, as kube-apiserver applies them to
/// every kind, custom ones included.
fn object_meta() -> &'static Value {
    static META: OnceLock<Value> = OnceLock::new();
    META.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "finalizers": {
                    "type": "array",
                    "items": {"type": "string"},
                    "x-kubernetes-list-type": "set",
                },
                "ownerReferences": {
                    "type": "array",
                    "items": {"type": "object"},
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["uid"],
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        })
    })
}

impl<'a> Schema<'a> {
    /// The root of a resource's schema (or no schema at all).
    pub(crate) fn root(schema: Option<&'a Value>) -> Schema<'a> {
        Schema {
            node: schema,
            root: schema.is_some(),
            typed: schema.is_some(),
        }
    }

    /// Whether `key` is a field this map declares (a property; ObjectMeta's fields at the
    /// root), as structured-merge-diff's `Map.FindField` answers: server-side apply owns a map
    /// reached through a key it does not declare (an `additionalProperties` key, or any key of
    /// a part the schema does not describe) as a field of its own. A resource without a schema
    /// declares every key.
    pub(crate) fn declares(self, key: &str) -> bool {
        if !self.typed || (self.root && key == "metadata") {
            return true;
        }
        self.node
            .and_then(|node| node.get("properties"))
            .is_some_and(|p| p.get(key).is_some())
    }

    /// The schema of the map field `key`: a declared property, else the
    /// `additionalProperties` schema of a map.
    pub(crate) fn field(self, key: &str) -> Schema<'a> {
        if self.root && key == "metadata" {
            return Schema {
                node: Some(object_meta()),
                root: false,
                typed: self.typed,
            };
        }
        let node = self.node.and_then(|node| {
            node.get("properties")
                .and_then(|p| p.get(key))
                .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()))
        });
        Schema {
            node,
            root: false,
            typed: self.typed,
        }
    }

    /// The schema of a list's elements.
    pub(crate) fn items(self) -> Schema<'a> {
        Schema {
            node: self.node.and_then(|node| node.get("items")),
            root: false,
            typed: self.typed,
        }
    }

    /// The list type declared here; atomic when undeclared.
    pub(crate) fn list_type(self) -> ListType {
        let Some(node) = self.node else {
            return ListType::Atomic;
        };
        match node.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => ListType::Set,
            Some("map") => {
                let keys: Vec<String> = node
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .map(|keys| {
                        keys.iter()
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
            _ => ListType::Atomic,
        }
    }

    /// Whether a map here is atomic (`x-kubernetes-map-type: atomic`):
    /// replaced whole and owned as one field.
    pub(crate) fn atomic_map(self) -> bool {
        self.node
            .and_then(|node| node.get("x-kubernetes-map-type"))
            .and_then(Value::as_str)
            == Some("atomic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_list_and_map_types() {
        let schema = json!({
            "type": "object",
            "properties": {
                "status": {"type": "object", "properties": {
                    "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["type"], "items": {"type": "object"}},
                    "tags": {"type": "array", "x-kubernetes-list-type": "set"},
                    "plain": {"type": "array"},
                    "selector": {"type": "object", "x-kubernetes-map-type": "atomic"},
                    "byName": {"type": "object", "additionalProperties": {"type": "array",
                        "x-kubernetes-list-type": "set"}},
                }},
            },
        });
        let status = Schema::root(Some(&schema)).field("status");
        assert_eq!(
            status.field("conditions").list_type(),
            ListType::Map(vec!["type".into()])
        );
        assert_eq!(status.field("tags").list_type(), ListType::Set);
        assert_eq!(status.field("plain").list_type(), ListType::Atomic);
        assert_eq!(status.field("nope").list_type(), ListType::Atomic);
        assert!(status.field("selector").atomic_map());
        assert_eq!(
            status.field("byName").field("any").list_type(),
            ListType::Set
        );
        let meta = Schema::root(Some(&schema)).field("metadata");
        assert_eq!(meta.field("finalizers").list_type(), ListType::Set);
        assert_eq!(
            Schema::root(None)
                .field("metadata")
                .field("finalizers")
                .list_type(),
            ListType::Atomic
        );
    }
}
