//! Field ownership (`metadata.managedFields`): which manager owns which leaf
//! field paths, recorded per (manager, operation, subresource).
//!
//! A leaf is any value that is not a non-empty map: scalars, arrays (atomic)
//! and empty maps. Identity and bookkeeping fields (`apiVersion`, `kind`,
//! `metadata.name`, `metadata.resourceVersion`, ...) are never owned.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

/// A field path from the object root, e.g. `["spec", "replicas"]`.
pub(crate) type FieldPath = Vec<String>;

/// Metadata fields the server manages itself; never owned by a manager.
const SYSTEM_METADATA: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// The kind of write that gave a manager its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    /// Server-side apply.
    Apply,
    /// Any other write (create, update, merge or JSON patch).
    Update,
}

/// One `metadata.managedFields` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ManagedEntry {
    /// Field manager name.
    pub manager: String,
    /// Apply or Update.
    pub operation: Operation,
    /// apiVersion the manager wrote with.
    pub api_version: String,
    /// When the manager last changed its fields.
    pub time: String,
    /// `Some("status")` for writes to the status subresource.
    pub subresource: Option<String>,
    /// Owned leaf paths.
    pub fields: BTreeSet<FieldPath>,
}

impl ManagedEntry {
    /// Whether this entry has the given identity.
    pub(crate) fn is(
        &self,
        manager: &str,
        operation: Operation,
        subresource: Option<&str>,
    ) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource.as_deref() == subresource
    }

    /// Equality ignoring `time`.
    fn same_ownership(&self, other: &ManagedEntry) -> bool {
        self.manager == other.manager
            && self.operation == other.operation
            && self.api_version == other.api_version
            && self.subresource == other.subresource
            && self.fields == other.fields
    }
}

/// Whether two ownership lists differ only in timestamps.
pub(crate) fn same_ownership(a: &[ManagedEntry], b: &[ManagedEntry]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_ownership(y))
}

/// Which part of an object a write may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// The main resource; `.status` is part of it only when the resource has
    /// no status subresource.
    Main { include_status: bool },
    /// The status subresource: only `.status`.
    Status,
}

impl Scope {
    fn includes(self, top_level_key: &str) -> bool {
        match (self, top_level_key) {
            (_, "apiVersion" | "kind") => false,
            (Scope::Status, key) => key == "status",
            (Scope::Main { include_status }, "status") => include_status,
            (Scope::Main { .. }, _) => true,
        }
    }

    /// The subresource name a write in this scope is recorded under.
    pub(crate) fn subresource(self) -> Option<&'static str> {
        match self {
            Scope::Status => Some("status"),
            Scope::Main { .. } => None,
        }
    }
}

/// The ownable leaves of `obj` within `scope`, with their values.
pub(crate) fn leaves(obj: &Value, scope: Scope) -> BTreeMap<FieldPath, Value> {
    let mut out = BTreeMap::new();
    let Some(map) = obj.as_object() else {
        return out;
    };
    for (key, value) in map {
        if !scope.includes(key) {
            continue;
        }
        let mut path = vec![key.clone()];
        match (key.as_str(), value) {
            ("metadata", Value::Object(meta)) => {
                for (meta_key, meta_value) in meta {
                    if SYSTEM_METADATA.contains(&meta_key.as_str()) {
                        continue;
                    }
                    path.push(meta_key.clone());
                    collect(meta_value, &mut path, &mut out);
                    path.pop();
                }
            }
            _ => collect(value, &mut path, &mut out),
        }
    }
    out
}

fn collect(value: &Value, path: &mut FieldPath, out: &mut BTreeMap<FieldPath, Value>) {
    match value {
        Value::Null => {}
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                path.push(key.clone());
                collect(child, path, out);
                path.pop();
            }
        }
        leaf => {
            out.insert(path.clone(), leaf.clone());
        }
    }
}

/// The value at `path`, descending through maps only.
pub(crate) fn value_at<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |current, key| current.get(key))
}

fn map_at_mut<'a>(obj: &'a mut Value, path: &[String]) -> Option<&'a mut Map<String, Value>> {
    path.iter()
        .try_fold(obj, |current, key| current.get_mut(key))?
        .as_object_mut()
}

/// Removes the field at `path`, then removes maps it leaves empty (but
/// never a top-level field such as `.spec` or `.status`).
pub(crate) fn remove_path(obj: &mut Value, path: &[String]) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    if let Some(map) = map_at_mut(obj, parent) {
        map.remove(last);
    }
    for depth in (2..path.len()).rev() {
        let container = &path[..depth];
        let empty = value_at(obj, container)
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty);
        if !empty {
            break;
        }
        if let Some(map) = map_at_mut(obj, &container[..depth - 1]) {
            map.remove(&container[depth - 1]);
        }
    }
}

/// `.a.b.c` notation for a path, as used in conflict messages.
pub(crate) fn dotted(path: &[String]) -> String {
    path.iter().map(|seg| format!(".{seg}")).collect()
}

fn is_leaf_at(obj: &Value, path: &[String]) -> bool {
    match value_at(obj, path) {
        None | Some(Value::Null) => false,
        Some(Value::Object(map)) => map.is_empty(),
        Some(_) => true,
    }
}

/// Drops owned paths that are no longer leaves of `obj`, then entries left
/// with no fields.
pub(crate) fn prune(entries: &mut Vec<ManagedEntry>, obj: &Value) {
    for entry in entries.iter_mut() {
        entry.fields.retain(|path| is_leaf_at(obj, path));
    }
    entries.retain(|entry| !entry.fields.is_empty());
}

/// Who made a non-apply write, for [`record_update`].
pub(crate) struct Writer<'a> {
    /// `fieldManager` query parameter, or `unknown`.
    pub manager: &'a str,
    /// apiVersion of the write.
    pub api_version: &'a str,
    /// Part of the object the write may touch.
    pub scope: Scope,
    /// Timestamp for the entry.
    pub now: &'a str,
}

/// Records a non-apply write: the leaves it changed (relative to `old`)
/// move to the writer's Update entry, taken from any other owner.
pub(crate) fn record_update(
    entries: &mut Vec<ManagedEntry>,
    writer: &Writer<'_>,
    old: Option<&Value>,
    new: &Value,
) {
    let old_leaves = old.map(|o| leaves(o, writer.scope)).unwrap_or_default();
    let changed: Vec<FieldPath> = leaves(new, writer.scope)
        .into_iter()
        .filter(|(path, value)| old_leaves.get(path) != Some(value))
        .map(|(path, _)| path)
        .collect();
    if changed.is_empty() {
        return;
    }
    let subresource = writer.scope.subresource();
    for entry in entries.iter_mut() {
        if !entry.is(writer.manager, Operation::Update, subresource) {
            entry
                .fields
                .retain(|owned| !changed.iter().any(|p| p.starts_with(owned)));
        }
    }
    let index = match entries
        .iter()
        .position(|e| e.is(writer.manager, Operation::Update, subresource))
    {
        Some(index) => index,
        None => {
            entries.push(ManagedEntry {
                manager: writer.manager.to_string(),
                operation: Operation::Update,
                api_version: writer.api_version.to_string(),
                time: String::new(),
                subresource: subresource.map(str::to_string),
                fields: BTreeSet::new(),
            });
            entries.len() - 1
        }
    };
    let entry = &mut entries[index];
    entry.fields.extend(changed);
    entry.time = writer.now.to_string();
    entry.api_version = writer.api_version.to_string();
}

/// Renders entries in the Kubernetes `metadata.managedFields` form.
pub(crate) fn render(entries: &[ManagedEntry]) -> Value {
    Value::Array(
        entries
            .iter()
            .map(|entry| {
                let mut fields = Map::new();
                for path in &entry.fields {
                    let mut node = &mut fields;
                    for seg in path {
                        node = node
                            .entry(format!("f:{seg}"))
                            .or_insert_with(|| json!({}))
                            .as_object_mut()
                            .expect("fieldsV1 nodes are maps");
                    }
                }
                let mut out = Map::new();
                out.insert("manager".into(), json!(entry.manager));
                let operation = match entry.operation {
                    Operation::Apply => "Apply",
                    Operation::Update => "Update",
                };
                out.insert("operation".into(), json!(operation));
                out.insert("apiVersion".into(), json!(entry.api_version));
                out.insert("time".into(), json!(entry.time));
                out.insert("fieldsType".into(), json!("FieldsV1"));
                out.insert("fieldsV1".into(), Value::Object(fields));
                if let Some(sub) = &entry.subresource {
                    out.insert("subresource".into(), json!(sub));
                }
                Value::Object(out)
            })
            .collect(),
    )
}

/// Reads a `metadata.managedFields` array (as given to `insert`). List
/// element keys (`k:`, `v:`, `i:`) make the list itself the owned leaf.
pub(crate) fn parse(value: Option<&Value>) -> Vec<ManagedEntry> {
    let Some(items) = value.and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let text = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_string);
            let mut fields = BTreeSet::new();
            if let Some(root) = item.get("fieldsV1").and_then(Value::as_object) {
                parse_fields(root, &mut Vec::new(), &mut fields);
            }
            Some(ManagedEntry {
                manager: text("manager")?,
                operation: if text("operation").as_deref() == Some("Apply") {
                    Operation::Apply
                } else {
                    Operation::Update
                },
                api_version: text("apiVersion").unwrap_or_default(),
                time: text("time").unwrap_or_default(),
                subresource: text("subresource").filter(|s| !s.is_empty()),
                fields,
            })
        })
        .collect()
}

fn parse_fields(node: &Map<String, Value>, path: &mut FieldPath, out: &mut BTreeSet<FieldPath>) {
    for (key, child) in node {
        if let Some(name) = key.strip_prefix("f:") {
            path.push(name.to_string());
            match child.as_object() {
                Some(map) if map.keys().any(|k| k != ".") => parse_fields(map, path, out),
                _ => {
                    out.insert(path.clone());
                }
            }
            path.pop();
        } else if ["k:", "v:", "i:"].iter().any(|p| key.starts_with(p)) && !path.is_empty() {
            out.insert(path.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> FieldPath {
        s.split('.').map(str::to_string).collect()
    }

    #[test]
    fn leaves_skip_identity_and_respect_scope() {
        let obj = json!({
            "apiVersion": "v1", "kind": "X",
            "metadata": {"name": "a", "resourceVersion": "3", "labels": {"k": "v"}},
            "spec": {"list": [1], "empty": {}, "n": null},
            "status": {"ok": true}
        });
        let main: Vec<FieldPath> = leaves(
            &obj,
            Scope::Main {
                include_status: false,
            },
        )
        .into_keys()
        .collect();
        assert_eq!(
            main,
            vec![p("metadata.labels.k"), p("spec.empty"), p("spec.list")]
        );
        let status: Vec<FieldPath> = leaves(&obj, Scope::Status).into_keys().collect();
        assert_eq!(status, vec![p("status.ok")]);
    }

    #[test]
    fn render_and_parse_round_trip() {
        let entry = ManagedEntry {
            manager: "m".into(),
            operation: Operation::Apply,
            api_version: "v1".into(),
            time: "t".into(),
            subresource: Some("status".into()),
            fields: [p("status.a.b"), p("status.c")].into_iter().collect(),
        };
        let rendered = render(std::slice::from_ref(&entry));
        assert_eq!(
            rendered[0]["fieldsV1"],
            json!({"f:status": {"f:a": {"f:b": {}}, "f:c": {}}})
        );
        assert_eq!(rendered[0]["subresource"], "status");
        assert_eq!(parse(Some(&rendered)), vec![entry]);
        let listed = json!([{"manager": "k", "operation": "Update",
            "fieldsV1": {"f:spec": {"f:containers": {"k:{\"name\":\"a\"}": {".": {}, "f:image": {}}}, "f:x": {".": {}}}}}]);
        let parsed = parse(Some(&listed));
        assert_eq!(
            parsed[0].fields,
            [p("spec.containers"), p("spec.x")].into_iter().collect()
        );
    }

    #[test]
    fn remove_path_prunes_emptied_maps_below_top_level() {
        let mut obj = json!({"spec": {"a": {"b": {"c": 1}}, "d": 2}});
        remove_path(&mut obj, &p("spec.a.b.c"));
        assert_eq!(obj, json!({"spec": {"d": 2}}));
        remove_path(&mut obj, &p("spec.d"));
        assert_eq!(obj, json!({"spec": {}}));
    }

    #[test]
    fn update_takes_changed_fields_from_other_managers() {
        let old = json!({"spec": {"a": 1, "b": 2}});
        let new = json!({"spec": {"a": 5, "b": 2}});
        let mut entries = vec![ManagedEntry {
            manager: "first".into(),
            operation: Operation::Apply,
            api_version: "v1".into(),
            time: "t".into(),
            subresource: None,
            fields: [p("spec.a"), p("spec.b")].into_iter().collect(),
        }];
        let writer = Writer {
            manager: "second",
            api_version: "v1",
            scope: Scope::Main {
                include_status: true,
            },
            now: "t2",
        };
        record_update(&mut entries, &writer, Some(&old), &new);
        assert_eq!(entries[0].fields, [p("spec.b")].into_iter().collect());
        assert_eq!(entries[1].manager, "second");
        assert_eq!(entries[1].fields, [p("spec.a")].into_iter().collect());
    }
}
