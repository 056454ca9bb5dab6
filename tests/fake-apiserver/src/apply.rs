//! Server-side apply: merge an applied configuration into an object,
//! detect field-manager conflicts, transfer ownership on `force`, and remove
//! fields the applier stopped listing.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::managed::{self, FieldPath, ManagedEntry, Operation, Scope};
use crate::patch::merge_patch;

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
}

/// A field owned by another manager with a different value:
/// `(manager, ".dotted.field")`.
pub(crate) type Conflict = (String, String);

/// Reduces an applied configuration to what `scope` lets it change.
fn scoped(applied: &Value, scope: Scope) -> Value {
    let mut out = serde_json::Map::new();
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

/// Whether owning `owned` collides with applying `value` at `applied`,
/// given the current object `base`.
fn collides(owned: &FieldPath, applied: &FieldPath, value: &Value, base: &Value) -> bool {
    if owned == applied {
        managed::value_at(base, applied) != Some(value)
    } else if applied.starts_with(owned) {
        // The owned field is a scalar or list that the apply turns into a map.
        managed::value_at(base, owned).is_some_and(|v| !v.is_object())
    } else if owned.starts_with(applied) {
        // The apply replaces a map holding the owned field with a non-map.
        !value.is_object()
    } else {
        false
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
) -> Result<(Value, Vec<ManagedEntry>), Vec<Conflict>> {
    let applied = scoped(applied, request.scope);
    let applied_leaves: BTreeMap<FieldPath, Value> = managed::leaves(&applied, request.scope);
    let subresource = request.scope.subresource();

    let mut conflicts: Vec<Conflict> = Vec::new();
    let mut released: Vec<(usize, FieldPath)> = Vec::new();
    for (path, value) in &applied_leaves {
        for (index, entry) in entries.iter().enumerate() {
            if entry.manager == request.manager {
                continue;
            }
            for owned in &entry.fields {
                if collides(owned, path, value, base) {
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
        return Err(conflicts);
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
        let still_applied = applied_leaves.iter().any(|(path, value)| {
            path == dropped
                || path.starts_with(dropped)
                || (dropped.starts_with(path) && !value.is_object())
        });
        if still_applied {
            continue;
        }
        let owned_elsewhere = entries.iter().enumerate().any(|(i, entry)| {
            Some(i) != mine
                && entry.fields.iter().any(|owned| {
                    owned.starts_with(dropped)
                        || (dropped.starts_with(owned)
                            && managed::value_at(&object, owned).is_some_and(|v| !v.is_object()))
                })
        });
        if !owned_elsewhere {
            managed::remove_path(&mut object, dropped);
        }
    }
    merge_patch(&mut object, &applied);

    let fields = applied_leaves.into_keys().collect();
    match mine {
        Some(index) => {
            let entry = &mut entries[index];
            entry.fields = fields;
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
        }),
    }
    Ok((object, entries))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call<'a>(manager: &'a str, force: bool) -> Apply<'a> {
        Apply {
            manager,
            force,
            scope: Scope::Main {
                include_status: true,
            },
            api_version: "v1",
            now: "t",
        }
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
        assert_eq!(err, vec![("one".to_string(), ".spec.a".to_string())]);
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
        assert_eq!(err, vec![("one".to_string(), ".spec.l.y".to_string())]);
        let err = server_side_apply(
            &obj,
            entries.clone(),
            &json!({"spec": {"m": 3}}),
            &call("two", false),
        )
        .unwrap_err();
        assert_eq!(err, vec![("one".to_string(), ".spec.m".to_string())]);
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
}
