//! Field ownership (`metadata.managedFields`): which manager owns which
//! fields, recorded per (manager, operation, subresource).
//!
//! An owned field is a path from the object root. It ends at a leaf (a
//! scalar, an atomic list, an empty or atomic map), at an element of a
//! list-map (`k:` keys, the element itself: `"."` in `fieldsV1`) or at an
//! element of a set (`v:` keys). Which lists are sets or maps comes from the
//! resource's schema ([`crate::schema`]); without one every list is atomic.
//! Identity and bookkeeping fields (`apiVersion`, `kind`, `metadata.name`,
//! `metadata.resourceVersion`, ...) are never owned.
//!
//! A manager may also own a map or a list itself (a *container*; `"."` in
//! `fieldsV1`), as structured-merge-diff records it: a non-apply write owns
//! each map and non-atomic list it adds (`typed/compare.go`: a node absent
//! before is `Added`), and an apply owns the maps it sets through a key the
//! schema does not declare (`typed/tofieldset.go`). Containers take no part
//! in conflicts; they are kept while they exist in the object.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::schema::{ListType, Schema};

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Seg {
    /// A field of a map (`f:name`).
    Field(String),
    /// The element of a list-map with these key fields, sorted by name,
    /// each value JSON-encoded (`k:{"type":"Ready"}`).
    Key(Vec<(String, String)>),
    /// The element of a set with this JSON-encoded value (`v:"a"`).
    Value(String),
}

/// A field path from the object root, e.g. `.spec.replicas`.
pub(crate) type FieldPath = Vec<Seg>;

/// What an owned path holds in an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// A leaf and its value.
    Leaf(Value),
    /// A list-map element (its fields are paths of their own).
    Element,
}

/// A path of map fields, e.g. `field_path(&["spec", "size"])`.
#[cfg(test)]
pub(crate) fn field_path(names: &[&str]) -> FieldPath {
    names.iter().map(|n| Seg::Field(n.to_string())).collect()
}

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
    /// Owned paths.
    pub fields: BTreeSet<FieldPath>,
    /// Owned maps and lists (see the module documentation).
    pub containers: BTreeSet<FieldPath>,
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
            && self.containers == other.containers
    }

    /// Whether the entry owns nothing (and is dropped).
    fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.containers.is_empty()
    }
}

/// Whether two ownership lists differ only in timestamps.
pub(crate) fn same_ownership(a: &[ManagedEntry], b: &[ManagedEntry]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_ownership(y))
}

/// Puts entries in the order kube-apiserver stores them (apiserver `fieldmanager`
/// `sortEncodedManagedFields`): by operation (`Apply` before `Update`), then by time (whole
/// seconds; these timestamps are RFC 3339 in UTC with no fraction, so text order is time
/// order), manager, apiVersion and subresource.
pub(crate) fn sort_entries(entries: &mut [ManagedEntry]) {
    let op = |e: &ManagedEntry| match e.operation {
        Operation::Apply => 0,
        Operation::Update => 1,
    };
    entries.sort_by(|a, b| {
        op(a)
            .cmp(&op(b))
            .then_with(|| a.time.cmp(&b.time))
            .then_with(|| a.manager.cmp(&b.manager))
            .then_with(|| a.api_version.cmp(&b.api_version))
            .then_with(|| a.subresource.cmp(&b.subresource))
    });
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
    /// Everything but `apiVersion` and `kind`.
    pub(crate) const WHOLE: Scope = Scope::Main {
        include_status: true,
    };

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

/// Whether a path ends at a list-map element.
pub(crate) fn is_element(path: &[Seg]) -> bool {
    matches!(path.last(), Some(Seg::Key(_)))
}

/// The key of a list-map element: its key fields sorted by name, each
/// value JSON-encoded. `Err` names the first key field it lacks (or `""`
/// when the element is not a map).
pub(crate) fn element_key(
    element: &Value,
    keys: &[String],
) -> Result<Vec<(String, String)>, String> {
    let Some(map) = element.as_object() else {
        return Err(String::new());
    };
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        match map.get(key) {
            Some(value) if !value.is_null() => out.push((key.clone(), value.to_string())),
            _ => return Err(key.clone()),
        }
    }
    out.sort();
    Ok(out)
}

/// Whether `element` is the set element JSON-encoded as `text`.
fn same_value(element: &Value, text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|value| value == *element)
}

fn key_matches(element: &Value, key: &[(String, String)]) -> bool {
    let names: Vec<String> = key.iter().map(|(name, _)| name.clone()).collect();
    element_key(element, &names).is_ok_and(|k| k == key)
}

/// Walks an object collecting its ownable paths.
struct Walker {
    /// Reject list-map elements without their keys and duplicate entries
    /// (an applied configuration); otherwise skip them (a stored object).
    strict: bool,
    path: FieldPath,
    out: BTreeMap<FieldPath, Node>,
    /// The maps and non-atomic lists met (only those reached through an
    /// undeclared key when `strict`: what an apply owns of them).
    containers: BTreeSet<FieldPath>,
}

impl Walker {
    /// `declared`: whether the key that leads here is a declared field.
    fn walk(&mut self, value: &Value, schema: Schema<'_>, declared: bool) -> Result<(), String> {
        match value {
            Value::Null => {}
            Value::Object(map) if !map.is_empty() && !schema.atomic_map() => {
                self.container(declared);
                for (key, child) in map {
                    self.path.push(Seg::Field(key.clone()));
                    self.walk(child, schema.field(key), schema.declares(key))?;
                    self.path.pop();
                }
            }
            Value::Array(items) => match schema.list_type() {
                ListType::Atomic => self.leaf(value),
                ListType::Set => {
                    if !items.is_empty() {
                        self.container(declared);
                    }
                    self.set(items)?
                }
                ListType::Map(keys) => {
                    if !items.is_empty() {
                        self.container(declared);
                    }
                    self.list_map(items, &keys, schema.items())?
                }
            },
            leaf => self.leaf(leaf),
        }
        Ok(())
    }

    fn container(&mut self, declared: bool) {
        if !self.strict || !declared {
            self.containers.insert(self.path.clone());
        }
    }

    fn leaf(&mut self, value: &Value) {
        self.out
            .insert(self.path.clone(), Node::Leaf(value.clone()));
    }

    fn set(&mut self, items: &[Value]) -> Result<(), String> {
        for item in items {
            self.path.push(Seg::Value(item.to_string()));
            let fresh = !self.out.contains_key(&self.path);
            if !fresh && self.strict {
                let last = self.path.pop().expect("just pushed");
                return Err(format!(
                    "{}: duplicate entries for key {}",
                    dotted(&self.path),
                    dotted(&[last])
                ));
            }
            if fresh {
                self.leaf(item);
            }
            self.path.pop();
        }
        Ok(())
    }

    fn list_map(
        &mut self,
        items: &[Value],
        keys: &[String],
        item_schema: Schema<'_>,
    ) -> Result<(), String> {
        for (index, item) in items.iter().enumerate() {
            let key = match element_key(item, keys) {
                Ok(key) => key,
                Err(_) if !self.strict => continue,
                Err(missing) if missing.is_empty() => {
                    return Err(format!(
                        "{}: element {index}: associative list with keys has an element that is not a map",
                        dotted(&self.path)
                    ))
                }
                Err(missing) => {
                    return Err(format!(
                        "{}: element {index}: associative list with keys has an element that omits key field \"{missing}\" (and doesn't have default value)",
                        dotted(&self.path)
                    ))
                }
            };
            self.path.push(Seg::Key(key));
            if self.out.contains_key(&self.path) {
                if self.strict {
                    let last = self.path.pop().expect("just pushed");
                    return Err(format!(
                        "{}: duplicate entries for key {}",
                        dotted(&self.path),
                        dotted(&[last])
                    ));
                }
                self.path.pop();
                continue;
            }
            self.out.insert(self.path.clone(), Node::Element);
            if let Some(map) = item.as_object() {
                for (field, child) in map {
                    self.path.push(Seg::Field(field.clone()));
                    self.walk(child, item_schema.field(field), item_schema.declares(field))?;
                    self.path.pop();
                }
            }
            self.path.pop();
        }
        Ok(())
    }
}

/// What [`walk_root`] finds: the ownable paths, and the containers.
type Walked = (BTreeMap<FieldPath, Node>, BTreeSet<FieldPath>);

fn walk_root(
    obj: &Value,
    scope: Scope,
    schema: Option<&Value>,
    strict: bool,
) -> Result<Walked, String> {
    let mut walker = Walker {
        strict,
        path: Vec::new(),
        out: BTreeMap::new(),
        containers: BTreeSet::new(),
    };
    let Some(map) = obj.as_object() else {
        return Ok((walker.out, walker.containers));
    };
    let root = Schema::root(schema);
    for (key, value) in map {
        if !scope.includes(key) {
            continue;
        }
        walker.path.push(Seg::Field(key.clone()));
        match (key.as_str(), value) {
            ("metadata", Value::Object(meta)) => {
                let meta_schema = root.field("metadata");
                for (meta_key, meta_value) in meta {
                    if SYSTEM_METADATA.contains(&meta_key.as_str()) {
                        continue;
                    }
                    walker.path.push(Seg::Field(meta_key.clone()));
                    let declared = meta_schema.declares(meta_key);
                    walker.walk(meta_value, meta_schema.field(meta_key), declared)?;
                    walker.path.pop();
                }
            }
            _ => walker.walk(value, root.field(key), root.declares(key))?,
        }
        walker.path.pop();
    }
    Ok((walker.out, walker.containers))
}

/// The ownable paths of a stored object within `scope`, with what they
/// hold. List-map elements without their keys, and repeated entries, are
/// left out.
#[cfg(test)]
pub(crate) fn fields(
    obj: &Value,
    scope: Scope,
    schema: Option<&Value>,
) -> BTreeMap<FieldPath, Node> {
    walk_root(obj, scope, schema, false)
        .map(|(fields, _)| fields)
        .unwrap_or_default()
}

/// The paths an applied configuration sets; `Err` describes a list-map
/// element without its keys or a repeated entry.
pub(crate) fn applied_fields(
    obj: &Value,
    scope: Scope,
    schema: Option<&Value>,
) -> Result<BTreeMap<FieldPath, Node>, String> {
    walk_root(obj, scope, schema, true).map(|(fields, _)| fields)
}

/// The containers an applied configuration owns: those it sets through a key
/// the schema does not declare.
pub(crate) fn applied_containers(
    obj: &Value,
    scope: Scope,
    schema: Option<&Value>,
) -> BTreeSet<FieldPath> {
    walk_root(obj, scope, schema, true)
        .map(|(_, containers)| containers)
        .unwrap_or_default()
}

/// The value at `path`: map fields by name, list elements by key or value.
pub(crate) fn value_at<'a>(obj: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |current, seg| match seg {
        Seg::Field(name) => current.as_object()?.get(name),
        Seg::Key(key) => current.as_array()?.iter().find(|e| key_matches(e, key)),
        Seg::Value(text) => current.as_array()?.iter().find(|e| same_value(e, text)),
    })
}

fn value_at_mut<'a>(obj: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    path.iter().try_fold(obj, |current, seg| match seg {
        Seg::Field(name) => current.as_object_mut()?.get_mut(name),
        Seg::Key(key) => current
            .as_array_mut()?
            .iter_mut()
            .find(|e| key_matches(e, key)),
        Seg::Value(text) => current
            .as_array_mut()?
            .iter_mut()
            .find(|e| same_value(e, text)),
    })
}

/// Removes what `path` names from its parent (a map field or a list
/// element); `false` when it was not there.
fn remove_at(obj: &mut Value, path: &[Seg]) -> bool {
    let Some((last, parent)) = path.split_last() else {
        return false;
    };
    let Some(parent) = value_at_mut(obj, parent) else {
        return false;
    };
    match (last, parent) {
        (Seg::Field(name), Value::Object(map)) => map.remove(name).is_some(),
        (Seg::Key(key), Value::Array(items)) => {
            let before = items.len();
            items.retain(|e| !key_matches(e, key));
            items.len() != before
        }
        (Seg::Value(text), Value::Array(items)) => {
            let before = items.len();
            items.retain(|e| !same_value(e, text));
            items.len() != before
        }
        _ => false,
    }
}

/// Removes the field or element at `path`, then the maps and lists it
/// leaves empty (but never a top-level field such as `.spec` or
/// `.status`, nor a list element).
pub(crate) fn remove_path(obj: &mut Value, path: &[Seg]) {
    if !remove_at(obj, path) {
        return;
    }
    for depth in (2..path.len()).rev() {
        let container = &path[..depth];
        if !matches!(container.last(), Some(Seg::Field(_))) {
            break;
        }
        let empty = match value_at(obj, container) {
            Some(Value::Object(map)) => map.is_empty(),
            Some(Value::Array(items)) => items.is_empty(),
            _ => false,
        };
        if !empty {
            break;
        }
        remove_at(obj, container);
    }
}

/// `.a.b[type="Ready"].c` notation for a path, as used in conflict
/// messages (`[=value]` for a set element).
pub(crate) fn dotted(path: &[Seg]) -> String {
    path.iter()
        .map(|seg| match seg {
            Seg::Field(name) => format!(".{name}"),
            Seg::Key(key) => {
                let pairs: Vec<String> = key.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("[{}]", pairs.join(","))
            }
            Seg::Value(value) => format!("[={value}]"),
        })
        .collect()
}

/// Drops owned paths that are no longer fields of `obj`, then entries left
/// with no fields.
pub(crate) fn prune(entries: &mut Vec<ManagedEntry>, obj: &Value, schema: Option<&Value>) {
    let (present, maps) = walk_root(obj, Scope::WHOLE, schema, false).unwrap_or_default();
    for entry in entries.iter_mut() {
        entry.fields.retain(|path| present.contains_key(path));
        entry.containers.retain(|path| maps.contains(path));
    }
    entries.retain(|entry| !entry.is_empty());
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
    /// The resource's schema, if it has one.
    pub schema: Option<&'a Value>,
}

/// Records a non-apply write: the fields it changed or added (relative to
/// `old`) move to the writer's Update entry, taken from any other owner.
pub(crate) fn record_update(
    entries: &mut Vec<ManagedEntry>,
    writer: &Writer<'_>,
    old: Option<&Value>,
    new: &Value,
) {
    let (old_fields, old_containers) = old
        .map(|o| walk_root(o, writer.scope, writer.schema, false).unwrap_or_default())
        .unwrap_or_default();
    let (new_fields, new_containers) =
        walk_root(new, writer.scope, writer.schema, false).unwrap_or_default();
    let changed: Vec<FieldPath> = new_fields
        .into_iter()
        .filter(|(path, node)| old_fields.get(path) != Some(node))
        .map(|(path, _)| path)
        .collect();
    let added: Vec<FieldPath> = new_containers
        .into_iter()
        .filter(|path| !old_containers.contains(path))
        .collect();
    if changed.is_empty() && added.is_empty() {
        return;
    }
    let subresource = writer.scope.subresource();
    for entry in entries.iter_mut() {
        if !entry.is(writer.manager, Operation::Update, subresource) {
            // A changed field is taken, and so is a leaf it now lies under;
            // an element keeps its owners when only its fields change.
            entry.fields.retain(|owned| {
                !changed
                    .iter()
                    .any(|p| p == owned || (p.starts_with(owned) && !is_element(owned)))
            });
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
                containers: BTreeSet::new(),
            });
            entries.len() - 1
        }
    };
    let entry = &mut entries[index];
    entry.fields.extend(changed);
    entry.containers.extend(added);
    entry.time = writer.now.to_string();
    entry.api_version = writer.api_version.to_string();
}

/// The `fieldsV1` key of a path step.
fn render_seg(seg: &Seg) -> String {
    match seg {
        Seg::Field(name) => format!("f:{name}"),
        Seg::Key(key) => {
            let mut map = Map::new();
            for (name, value) in key {
                let value = serde_json::from_str(value).unwrap_or(Value::Null);
                map.insert(name.clone(), value);
            }
            format!("k:{}", Value::Object(map))
        }
        Seg::Value(value) => format!("v:{value}"),
    }
}

/// A `fieldsV1` tree being built: whether the path itself is owned, and the
/// steps below it.
#[derive(Default)]
struct Tree {
    member: bool,
    children: BTreeMap<Seg, Tree>,
}

impl Tree {
    fn insert(&mut self, path: &[Seg]) {
        let mut node = self;
        for seg in path {
            node = node.children.entry(seg.clone()).or_default();
        }
        node.member = true;
    }

    /// structured-merge-diff's `Set.ToJSON`: an owned path with steps below it
    /// carries `"."` first, one without is `{}`.
    fn json(&self) -> Map<String, Value> {
        let mut out = Map::new();
        if self.member && !self.children.is_empty() {
            out.insert(".".into(), json!({}));
        }
        for (seg, child) in &self.children {
            out.insert(render_seg(seg), Value::Object(child.json()));
        }
        out
    }
}

/// One entry's owned paths (fields, list-map elements, containers) as a
/// `fieldsV1` tree.
fn render_fields(entry: &ManagedEntry) -> Map<String, Value> {
    let mut root = Tree::default();
    for path in entry.fields.iter().chain(&entry.containers) {
        root.insert(path);
    }
    root.json()
}

/// Renders entries in the Kubernetes `metadata.managedFields` form.
pub(crate) fn render(entries: &[ManagedEntry]) -> Value {
    Value::Array(
        entries
            .iter()
            .map(|entry| {
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
                out.insert("fieldsV1".into(), Value::Object(render_fields(entry)));
                if let Some(sub) = &entry.subresource {
                    out.insert("subresource".into(), json!(sub));
                }
                Value::Object(out)
            })
            .collect(),
    )
}

/// Reads a `metadata.managedFields` array (as given to `insert`). `k:` and
/// `v:` keys name elements where the schema makes the list a map or a set;
/// elsewhere (and for `i:` keys) the list itself is the owned leaf.
pub(crate) fn parse(value: Option<&Value>, schema: Option<&Value>) -> Vec<ManagedEntry> {
    let Some(items) = value.and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let text = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_string);
            let mut fields = BTreeSet::new();
            let mut containers = BTreeSet::new();
            if let Some(root) = item.get("fieldsV1").and_then(Value::as_object) {
                let mut out = Parsed {
                    fields: &mut fields,
                    containers: &mut containers,
                };
                parse_fields(root, Schema::root(schema), &mut Vec::new(), &mut out);
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
                containers,
            })
        })
        .collect()
}

/// Whether a `fieldsV1` node has children besides `"."`.
fn has_children(node: &Value) -> bool {
    node.as_object()
        .is_some_and(|map| map.keys().any(|k| k != "."))
}

/// The key fields of a `k:` step, sorted by name with JSON-encoded values.
fn parse_key(text: &str) -> Option<Vec<(String, String)>> {
    let Value::Object(map) = serde_json::from_str::<Value>(text).ok()? else {
        return None;
    };
    let mut key: Vec<(String, String)> = map.into_iter().map(|(k, v)| (k, v.to_string())).collect();
    key.sort();
    Some(key)
}

/// What [`parse_fields`] reads into.
struct Parsed<'a> {
    fields: &'a mut BTreeSet<FieldPath>,
    containers: &'a mut BTreeSet<FieldPath>,
}

/// Reads one `fieldsV1` node; `schema` describes the value at `path`. A
/// field with steps below it and `"."` is an owned container.
fn parse_fields(
    node: &Map<String, Value>,
    schema: Schema<'_>,
    path: &mut FieldPath,
    out: &mut Parsed<'_>,
) {
    for (key, child) in node {
        if let Some(name) = key.strip_prefix("f:") {
            path.push(Seg::Field(name.to_string()));
            if has_children(child) {
                if child.get(".").is_some() {
                    out.containers.insert(path.clone());
                }
                if let Some(map) = child.as_object() {
                    parse_fields(map, schema.field(name), path, out);
                }
            } else {
                out.fields.insert(path.clone());
            }
            path.pop();
            continue;
        }
        if path.is_empty() {
            continue;
        }
        let element = match (key.split_at_checked(2), schema.list_type()) {
            (Some(("k:", text)), ListType::Map(_)) => parse_key(text).map(Seg::Key),
            (Some(("v:", text)), ListType::Set) => serde_json::from_str::<Value>(text)
                .ok()
                .map(|v| Seg::Value(v.to_string())),
            _ => None,
        };
        match element {
            Some(seg @ Seg::Key(_)) => {
                path.push(seg);
                let member = child.get(".").is_some() || !has_children(child);
                if member {
                    out.fields.insert(path.clone());
                }
                if let Some(map) = child.as_object() {
                    parse_fields(map, schema.items(), path, out);
                }
                path.pop();
            }
            Some(seg) => {
                path.push(seg);
                out.fields.insert(path.clone());
                path.pop();
            }
            None if ["k:", "v:", "i:"].iter().any(|p| key.starts_with(p)) => {
                // A list the schema does not make a map or a set: owned whole
                // (not as a container of elements).
                out.containers.remove(path.as_slice());
                out.fields.insert(path.clone());
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> FieldPath {
        field_path(&s.split('.').collect::<Vec<_>>())
    }

    fn conditions_schema() -> Value {
        json!({"type": "object", "properties": {"status": {"type": "object", "properties": {
            "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["type"], "items": {"type": "object"}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set"},
        }}}})
    }

    fn ready() -> Seg {
        Seg::Key(vec![("type".into(), "\"Ready\"".into())])
    }

    fn under(base: &str, tail: &[Seg]) -> FieldPath {
        let mut path = p(base);
        path.extend_from_slice(tail);
        path
    }

    #[test]
    fn fields_skip_identity_and_respect_scope() {
        let obj = json!({
            "apiVersion": "v1", "kind": "X",
            "metadata": {"name": "a", "resourceVersion": "3", "labels": {"k": "v"}},
            "spec": {"list": [1], "empty": {}, "n": null},
            "status": {"ok": true}
        });
        let main: Vec<FieldPath> = fields(
            &obj,
            Scope::Main {
                include_status: false,
            },
            None,
        )
        .into_keys()
        .collect();
        assert_eq!(
            main,
            vec![p("metadata.labels.k"), p("spec.empty"), p("spec.list")]
        );
        let status: Vec<FieldPath> = fields(&obj, Scope::Status, None).into_keys().collect();
        assert_eq!(status, vec![p("status.ok")]);
    }

    #[test]
    fn fields_follow_list_types() {
        let schema = conditions_schema();
        let obj = json!({"status": {
            "conditions": [{"type": "Ready", "status": "True"}, {"status": "keyless"}],
            "tags": ["a", "b"],
        }});
        let found = fields(&obj, Scope::Status, Some(&schema));
        let paths: Vec<FieldPath> = found.keys().cloned().collect();
        assert_eq!(
            paths,
            vec![
                under("status.conditions", &[ready()]),
                under("status.conditions", &[ready(), Seg::Field("status".into())]),
                under("status.conditions", &[ready(), Seg::Field("type".into())]),
                under("status.tags", &[Seg::Value("\"a\"".into())]),
                under("status.tags", &[Seg::Value("\"b\"".into())]),
            ]
        );
        assert_eq!(found[&paths[0]], Node::Element);
        let err = applied_fields(&obj, Scope::Status, Some(&schema)).unwrap_err();
        assert_eq!(
            err,
            ".status.conditions: element 1: associative list with keys has an element that omits key field \"type\" (and doesn't have default value)"
        );
        let twice = json!({"status": {"conditions": [{"type": "Ready"}, {"type": "Ready"}]}});
        assert_eq!(
            applied_fields(&twice, Scope::Status, Some(&schema)).unwrap_err(),
            ".status.conditions: duplicate entries for key [type=\"Ready\"]"
        );
        let plain: Vec<FieldPath> = fields(&obj, Scope::Status, None).into_keys().collect();
        assert_eq!(plain, vec![p("status.conditions"), p("status.tags")]);
    }

    #[test]
    fn value_at_and_remove_path_follow_keys_and_values() {
        let mut obj = json!({"status": {
            "conditions": [{"type": "Ready", "status": "True", "reason": "Ok"}, {"type": "Other"}],
            "tags": ["a", "b"],
        }});
        let reason = under("status.conditions", &[ready(), Seg::Field("reason".into())]);
        assert_eq!(value_at(&obj, &reason), Some(&json!("Ok")));
        remove_path(&mut obj, &reason);
        remove_path(
            &mut obj,
            &under("status.tags", &[Seg::Value("\"a\"".into())]),
        );
        assert_eq!(
            obj["status"],
            json!({"conditions": [{"type": "Ready", "status": "True"}, {"type": "Other"}], "tags": ["b"]})
        );
        remove_path(&mut obj, &under("status.conditions", &[ready()]));
        remove_path(
            &mut obj,
            &under("status.tags", &[Seg::Value("\"b\"".into())]),
        );
        assert_eq!(obj["status"], json!({"conditions": [{"type": "Other"}]}));
        assert_eq!(dotted(&reason), ".status.conditions[type=\"Ready\"].reason");
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
            containers: BTreeSet::new(),
        };
        let rendered = render(std::slice::from_ref(&entry));
        assert_eq!(
            rendered[0]["fieldsV1"],
            json!({"f:status": {"f:a": {"f:b": {}}, "f:c": {}}})
        );
        assert_eq!(rendered[0]["subresource"], "status");
        assert_eq!(parse(Some(&rendered), None), vec![entry]);
        let listed = json!([{"manager": "k", "operation": "Update",
            "fieldsV1": {"f:spec": {"f:containers": {"k:{\"name\":\"a\"}": {".": {}, "f:image": {}}}, "f:x": {".": {}}}}}]);
        let parsed = parse(Some(&listed), None);
        assert_eq!(
            parsed[0].fields,
            [p("spec.containers"), p("spec.x")].into_iter().collect()
        );
    }

    #[test]
    fn elements_render_and_parse_with_their_keys() {
        let schema = conditions_schema();
        let entry = ManagedEntry {
            manager: "m".into(),
            operation: Operation::Apply,
            api_version: "v1".into(),
            time: "t".into(),
            subresource: Some("status".into()),
            fields: [
                under("status.conditions", &[ready()]),
                under("status.conditions", &[ready(), Seg::Field("type".into())]),
                under("status.tags", &[Seg::Value("\"a\"".into())]),
            ]
            .into_iter()
            .collect(),
            containers: BTreeSet::new(),
        };
        let rendered = render(std::slice::from_ref(&entry));
        assert_eq!(
            rendered[0]["fieldsV1"],
            json!({"f:status": {
                "f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:type": {}}},
                "f:tags": {"v:\"a\"": {}},
            }})
        );
        assert_eq!(parse(Some(&rendered), Some(&schema)), vec![entry]);
    }

    /// The order of `sortEncodedManagedFields`: Apply entries first, then by time and manager.
    #[test]
    fn entries_are_ordered_as_the_api_server_orders_them() {
        let entry = |manager: &str, operation, time: &str| ManagedEntry {
            manager: manager.into(),
            operation,
            api_version: "v1".into(),
            time: time.into(),
            subresource: None,
            fields: [p("spec.a")].into_iter().collect(),
            containers: BTreeSet::new(),
        };
        let mut entries = vec![
            entry("creator", Operation::Update, "2026-01-01T00:00:01Z"),
            entry("b", Operation::Apply, "2026-01-01T00:00:05Z"),
            entry("a", Operation::Apply, "2026-01-01T00:00:05Z"),
            entry("writer", Operation::Update, "2026-01-01T00:00:00Z"),
        ];
        sort_entries(&mut entries);
        let names: Vec<&str> = entries.iter().map(|e| e.manager.as_str()).collect();
        assert_eq!(names, ["a", "b", "writer", "creator"]);
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
            containers: BTreeSet::new(),
        }];
        let writer = Writer {
            manager: "second",
            api_version: "v1",
            scope: Scope::WHOLE,
            now: "t2",
            schema: None,
        };
        record_update(&mut entries, &writer, Some(&old), &new);
        assert_eq!(entries[0].fields, [p("spec.b")].into_iter().collect());
        assert_eq!(entries[1].manager, "second");
        assert_eq!(entries[1].fields, [p("spec.a")].into_iter().collect());
    }
}
