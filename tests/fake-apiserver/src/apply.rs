//! Server-side apply: merge an applied configuration into an object the way
//! the resource's schema says (maps by field, list-maps by key, sets by
//! value, atomic lists and maps whole), detect field-manager conflicts,
//! transfer ownership on `force`, and remove fields the applier stopped
//! listing.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::managed::{
    self, element_key, is_element, FieldPath, ManagedEntry, Node, Operation, Scope, Seg,
};
use crate::schema::{ListType, Schema};

/// Metadata keys an applied configuration cannot set.
const IGNORED_METADATA: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// One server-side apply call.
pub(crate) struct Apply<'a> {
    /// `fieldManager` of the request.
    pub manager: &'a str,
    /// `force=true`: take conflicting fields instead of failing.
    pub force: bool,
    /// Part of the object the apply may touch.
    pub scope: Scope,
    /// apiVersion recorded in the manager's entry.
    pub api_version: &'a str,
    /// Timestamp recorded in the manager's entry.
    pub now: &'a str,
    /// The resource's schema (`openAPIV3Schema`), if it has one.
    pub schema: Option<&'a Value>,
}

/// A field owned by another manager with a different value:
/// `(manager, ".dotted.field")`.
pub(crate) type Conflict = (String, String);

/// Why an apply was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ApplyError {
    /// Fields owned by other managers would change (and `force` is off).
    Conflicts(Vec<Conflict>),
    /// The configuration does not fit the schema: a list-map element
    /// without its key fields, or an entry given twice.
    Invalid(String),
}

/// Reduces an applied configuration to what `scope` lets it change.
fn scoped(applied: &Value, scope: Scope) -> Value {
    let mut out = Map::new();
    if let Some(map) = applied.as_object() {
        for (key, value) in map {
            let keep = match (scope, key.as_str()) {
                (_, "apiVersion" | "kind") => false,
                (Scope::Status, key) => key == "status",
                (Scope::Main { include_status }, "status") => include_status,
                (Scope::Main { .. }, _) => true,
            };
            if !keep {
                continue;
            }
            let mut value = value.clone();
            if key == "metadata" {
                if let Some(meta) = value.as_object_mut() {
                    meta.retain(|k, _| !IGNORED_METADATA.contains(&k.as_str()));
                }
            }
            out.insert(key.clone(), value);
        }
    }
    Value::Object(out)
}

fn is_empty_map(value: &Value) -> bool {
    value.as_object().is_some_and(Map::is_empty)
}

/// Whether owning `owned` collides with the apply setting `applied` to
/// `node`, given the current object `base`.
fn collides(owned: &FieldPath, applied: &FieldPath, node: &Node, base: &Value) -> bool {
    if owned == applied {
        // Listing the same list-map element is shared ownership, not a clash.
        match node {
            Node::Element => false,
            Node::Leaf(value) => managed::value_at(base, applied) != Some(value),
        }
    } else if applied.starts_with(owned) {
        // The owned field is a scalar or atomic list that the apply turns
        // into a map or into list elements.
        !is_element(owned) && managed::value_at(base, owned).is_some_and(|v| !v.is_object())
    } else if owned.starts_with(applied) {
        // The apply replaces what holds the owned field with a leaf.
        match node {
            Node::Element => false,
            Node::Leaf(value) => {
                !is_empty_map(value) && managed::value_at(base, applied) != Some(value)
            }
        }
    } else {
        false
    }
}

/// Whether `path` is a key field of the list-map element it lies in
/// (`.conditions[type="Ready"].type`): it goes only with its element.
fn is_key_field(path: &[Seg]) -> bool {
    match path {
        [.., Seg::Key(key), Seg::Field(name)] => key.iter().any(|(k, _)| k == name),
        _ => false,
    }
}

/// Applies `applied` to `base` (the stored object, or a skeleton for a
/// create) on behalf of `request.manager`, returning the new object and
/// ownership, or every conflict when there are some and `force` is off.
pub(crate) fn server_side_apply(
    base: &Value,
    mut entries: Vec<ManagedEntry>,
    applied: &Value,
    request: &Apply<'_>,
) -> Result<(Value, Vec<ManagedEntry>), ApplyError> {
    let applied = scoped(applied, request.scope);
    let applied_fields: BTreeMap<FieldPath, Node> =
        managed::applied_fields(&applied, request.scope, request.schema)
            .map_err(ApplyError::Invalid)?;
    let subresource = request.scope.subresource();

    let mut conflicts: Vec<Conflict> = Vec::new();
    let mut released: Vec<(usize, FieldPath)> = Vec::new();
    for (path, node) in &applied_fields {
        for (index, entry) in entries.iter().enumerate() {
            if entry.manager == request.manager {
                continue;
            }
            for owned in &entry.fields {
                if collides(owned, path, node, base) {
                    let conflict = (entry.manager.clone(), managed::dotted(path));
                    if !conflicts.contains(&conflict) {
                        conflicts.push(conflict);
                    }
                    released.push((index, owned.clone()));
                }
            }
        }
    }
    if !conflicts.is_empty() && !request.force {
        return Err(ApplyError::Conflicts(conflicts));
    }
    for (index, owned) in released {
        entries[index].fields.remove(&owned);
    }

    let mine = entries
        .iter()
        .position(|e| e.is(request.manager, Operation::Apply, subresource));
    let previous = mine.map(|i| entries[i].fields.clone()).unwrap_or_default();
    let mut object = base.clone();
    for dropped in &previous {
        if applied_fields.contains_key(dropped) || is_key_field(dropped) {
            continue;
        }
        let still_applied = applied_fields.iter().any(|(path, node)| {
            path.starts_with(dropped)
                || (dropped.starts_with(path)
                    && matches!(node, Node::Leaf(value) if !is_empty_map(value)))
        });
        if still_applied {
            continue;
        }
        let owned_elsewhere = entries.iter().enumerate().any(|(i, entry)| {
            Some(i) != mine
                && entry.fields.iter().any(|owned| {
                    owned.starts_with(dropped) || (dropped.starts_with(owned) && !is_element(owned))
                })
        });
        if !owned_elsewhere {
            managed::remove_path(&mut object, dropped);
        }
    }
    merge(&mut object, &applied, Schema::root(request.schema));

    let fields: BTreeSet<FieldPath> = applied_fields.into_keys().collect();
    let containers = managed::applied_containers(&applied, request.scope, request.schema);
    match mine {
        Some(index) => {
            let entry = &mut entries[index];
            entry.fields = fields;
            entry.containers = containers;
            entry.api_version = request.api_version.to_string();
            entry.time = request.now.to_string();
        }
        None => entries.push(ManagedEntry {
            manager: request.manager.to_string(),
            operation: Operation::Apply,
            api_version: request.api_version.to_string(),
            time: request.now.to_string(),
            subresource: subresource.map(str::to_string),
            fields,
            containers,
        }),
    }
    Ok((object, entries))
}

/// Merges an applied value into `target`: maps field by field (`null`
/// removes a field), list-maps element by key, sets by value; atomic lists
/// and maps, and scalars, are replaced.
fn merge(target: &mut Value, applied: &Value, schema: Schema<'_>) {
    match applied {
        Value::Object(fields) if !schema.atomic_map() => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let Value::Object(map) = target else {
                unreachable!("target was just made an object")
            };
            for (key, value) in fields {
                if value.is_null() {
                    map.remove(key);
                } else {
                    merge(
                        map.entry(key.clone()).or_insert(Value::Null),
                        value,
                        schema.field(key),
                    );
                }
            }
        }
        Value::Array(items) => {
            let live: &[Value] = target.as_array().map_or(&[], Vec::as_slice);
            let merged = match schema.list_type() {
                ListType::Atomic => items.clone(),
                ListType::Set => merge_list(
                    live,
                    items,
                    |v| Some(Seg::Value(v.to_string())),
                    |_: Option<&Value>, applied: &Value| applied.clone(),
                ),
                ListType::Map(keys) => {
                    let item_schema = schema.items();
                    merge_list(
                        live,
                        items,
                        |v| element_key(v, &keys).ok().map(Seg::Key),
                        |live: Option<&Value>, applied: &Value| {
                            let mut out = live.cloned().unwrap_or(Value::Null);
                            merge(&mut out, applied, item_schema);
                            out
                        },
                    )
                }
            };
            *target = Value::Array(merged);
        }
        other => *target = other.clone(),
    }
}

/// Merges the elements of an applied list into the live one, elements
/// being the same when `identity` gives the same key.
///
/// The order follows kube-apiserver's structured merge: live elements the
/// apply does not list keep their places; listed elements come out in the
/// applied order, each new one right after the listed element before it.
/// Walking both lists, a live element that the apply lists further on is
/// passed over and comes out when the applied list reaches it.
fn merge_list(
    live: &[Value],
    applied: &[Value],
    identity: impl Fn(&Value) -> Option<Seg>,
    merge_item: impl Fn(Option<&Value>, &Value) -> Value,
) -> Vec<Value> {
    let live_ids: Vec<Option<Seg>> = live.iter().map(&identity).collect();
    let applied_ids: Vec<Option<Seg>> = applied.iter().map(&identity).collect();
    let listed = |id: &Seg| applied_ids.iter().flatten().any(|a| a == id);
    let live_of = |id: &Seg| {
        live_ids
            .iter()
            .position(|l| l.as_ref() == Some(id))
            .map(|i| &live[i])
    };
    // Elements both lists hold, in the applied order.
    let shared: Vec<&Seg> = applied_ids
        .iter()
        .flatten()
        .filter(|id| live_ids.iter().flatten().any(|l| l == *id))
        .collect();
    let mut next_shared = 0;
    let mut emitted: BTreeSet<Seg> = BTreeSet::new();
    let mut out = Vec::with_capacity(live.len() + applied.len());
    let (mut i, mut j) = (0, 0);
    while i < live.len() || j < applied.len() {
        if i < live.len() {
            match &live_ids[i] {
                None => {
                    out.push(live[i].clone());
                    i += 1;
                    continue;
                }
                Some(id) if !listed(id) => {
                    out.push(live[i].clone());
                    i += 1;
                    continue;
                }
                Some(id) if emitted.contains(id) => {
                    i += 1;
                    continue;
                }
                Some(id) if j >= applied.len() || shared.get(next_shared) != Some(&id) => {
                    // Listed later in the apply: it comes out there.
                    i += 1;
                    continue;
                }
                Some(_) => {}
            }
        }
        let Some(item) = applied.get(j) else {
            break;
        };
        match &applied_ids[j] {
            Some(id) => {
                if emitted.insert(id.clone()) {
                    out.push(merge_item(live_of(id), item));
                }
                if shared.get(next_shared) == Some(&id) {
                    next_shared += 1;
                }
            }
            None => out.push(merge_item(None, item)),
        }
        j += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call<'a>(manager: &'a str, force: bool) -> Apply<'a> {
        Apply {
            manager,
            force,
            scope: Scope::WHOLE,
            api_version: "v1",
            now: "t",
            schema: None,
        }
    }

    fn conflicts(list: &[(&str, &str)]) -> ApplyError {
        ApplyError::Conflicts(
            list.iter()
                .map(|(m, f)| (m.to_string(), f.to_string()))
                .collect(),
        )
    }

    #[test]
    fn shared_values_do_not_conflict_but_different_ones_do() {
        let base = json!({"spec": {"a": 1}});
        let (obj, entries) = server_side_apply(
            &base,
            Vec::new(),
            &json!({"spec": {"a": 1, "b": 2}}),
            &call("one", false),
        )
        .unwrap();
        let (_, entries) = server_side_apply(
            &obj,
            entries.clone(),
            &json!({"spec": {"a": 1}}),
            &call("two", false),
        )
        .unwrap();
        assert_eq!(entries.len(), 2);
        let err = server_side_apply(
            &obj,
            entries,
            &json!({"spec": {"a": 9, "b": 2}}),
            &call("two", false),
        )
        .unwrap_err();
        assert_eq!(err, conflicts(&[("one", ".spec.a")]));
    }

    #[test]
    fn list_replaced_by_map_and_map_replaced_by_scalar_conflict() {
        let base = json!({"spec": {"l": [1], "m": {"x": 1}}});
        let (obj, entries) =
            server_side_apply(&base, Vec::new(), &base, &call("one", false)).unwrap();
        let err = server_side_apply(
            &obj,
            entries.clone(),
            &json!({"spec": {"l": {"y": 1}}}),
            &call("two", false),
        )
        .unwrap_err();
        assert_eq!(err, conflicts(&[("one", ".spec.l.y")]));
        let err = server_side_apply(
            &obj,
            entries.clone(),
            &json!({"spec": {"m": 3}}),
            &call("two", false),
        )
        .unwrap_err();
        assert_eq!(err, conflicts(&[("one", ".spec.m")]));
        assert!(server_side_apply(
            &obj,
            entries,
            &json!({"spec": {"m": {}}}),
            &call("two", false)
        )
        .is_ok());
    }

    #[test]
    fn dropped_fields_survive_when_another_manager_owns_them() {
        let base = json!({});
        let (obj, entries) = server_side_apply(
            &base,
            Vec::new(),
            &json!({"spec": {"a": 1, "b": 2}}),
            &call("one", false),
        )
        .unwrap();
        let (obj, entries) = server_side_apply(
            &obj,
            entries,
            &json!({"spec": {"b": 2}}),
            &call("two", false),
        )
        .unwrap();
        let (obj, _) =
            server_side_apply(&obj, entries, &json!({"spec": {}}), &call("one", false)).unwrap();
        assert_eq!(obj, json!({"spec": {"b": 2}}));
    }

    fn ids(list: &[Value]) -> Vec<String> {
        list.iter()
            .map(|v| v["k"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    fn keyed(names: &[&str]) -> Vec<Value> {
        names.iter().map(|n| json!({"k": n})).collect()
    }

    fn merged_order(live: &[&str], applied: &[&str]) -> Vec<String> {
        let keys = vec!["k".to_string()];
        ids(&merge_list(
            &keyed(live),
            &keyed(applied),
            |v| element_key(v, &keys).ok().map(Seg::Key),
            |_, a| a.clone(),
        ))
    }

    #[test]
    fn merged_lists_keep_unlisted_elements_in_place_and_follow_the_applied_order() {
        assert_eq!(merged_order(&["x"], &["n"]), ["x", "n"]);
        assert_eq!(merged_order(&["a"], &["n", "a"]), ["n", "a"]);
        assert_eq!(
            merged_order(&["a", "x", "b"], &["a", "n"]),
            ["a", "x", "b", "n"]
        );
        assert_eq!(merged_order(&["a", "b"], &["b", "a"]), ["b", "a"]);
        assert_eq!(merged_order(&["b", "x", "a"], &["a", "b"]), ["x", "a", "b"]);
        assert_eq!(merged_order(&[], &["a", "b"]), ["a", "b"]);
        assert_eq!(merged_order(&["a", "b"], &[]), ["a", "b"]);
    }

    #[test]
    fn list_maps_merge_elements_by_key_and_sets_by_value() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {"type": "object", "properties": {
                    "names": {"type": "array", "x-kubernetes-list-type": "set"}}}},
        }}}});
        let request = |manager| Apply {
            schema: Some(&schema),
            ..call(manager, false)
        };
        let (obj, entries) = server_side_apply(
            &json!({}),
            Vec::new(),
            &json!({"spec": {"ports": [{"port": 80, "protocol": "TCP", "names": ["web"]}]}}),
            &request("one"),
        )
        .unwrap();
        let (obj, entries) = server_side_apply(
            &obj,
            entries,
            &json!({"spec": {"ports": [
                {"port": 80, "protocol": "TCP", "names": ["http"]},
                {"port": 53, "protocol": "UDP"},
            ]}}),
            &request("two"),
        )
        .unwrap();
        assert_eq!(
            obj["spec"]["ports"],
            json!([
                {"port": 80, "protocol": "TCP", "names": ["web", "http"]},
                {"port": 53, "protocol": "UDP"},
            ])
        );
        let rendered = managed::render(&entries);
        assert_eq!(
            rendered[1]["fieldsV1"]["f:spec"]["f:ports"]["k:{\"port\":80,\"protocol\":\"TCP\"}"],
            json!({".": {}, "f:port": {}, "f:protocol": {}, "f:names": {"v:\"http\"": {}}})
        );
        let err = server_side_apply(
            &obj,
            entries,
            &json!({"spec": {"ports": [{"port": 80}]}}),
            &request("three"),
        )
        .unwrap_err();
        assert_eq!(
            err,
            ApplyError::Invalid(".spec.ports: element 0: associative list with keys has an element that omits key field \"protocol\" (and doesn't have default value)".into())
        );
    }
}
