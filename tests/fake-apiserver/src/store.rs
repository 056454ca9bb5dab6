//! The object store: registered resources, objects keyed by namespace and
//! name, their field ownership, and the global resourceVersion counter.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::managed::ManagedEntry;
use crate::Resource;

/// `(namespace, name)`; the namespace is `""` for cluster-scoped objects.
/// Ordering by this key sorts lists by namespace, then name.
pub(crate) type ObjKey = (String, String);

/// `(group, version, plural)`.
type ResKey = (String, String, String);

/// One stored object and its field ownership.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    /// The object as served (apiVersion, kind, metadata incl. managedFields).
    pub object: Value,
    /// Ownership behind `metadata.managedFields`.
    pub managed: Vec<ManagedEntry>,
}

/// One change to an object, as a watch reports it.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    res: ResKey,
    /// Where the object lives.
    pub key: ObjKey,
    /// `ADDED`, `MODIFIED` or `DELETED`.
    pub kind: &'static str,
    /// The object after the change (before it, for `DELETED`).
    pub object: Value,
    /// The global resourceVersion at the change (the counter after it).
    pub version: u64,
}

/// Everything the server knows.
#[derive(Debug)]
pub(crate) struct Store {
    resources: Vec<Resource>,
    objects: HashMap<ResKey, BTreeMap<ObjKey, Stored>>,
    resource_version: u64,
    uid_counter: u64,
    /// Every change, in order, for watches.
    changes: Vec<Change>,
    /// The oldest resourceVersion a watch may start from (0: any); see [`Store::compact`].
    compacted: u64,
}

fn res_key(res: &Resource) -> ResKey {
    (res.group.clone(), res.version.clone(), res.plural.clone())
}

impl Store {
    /// An empty store; resourceVersions start above 100.
    pub(crate) fn new() -> Store {
        Store {
            resources: Vec::new(),
            objects: HashMap::new(),
            resource_version: 100,
            uid_counter: 0,
            changes: Vec::new(),
            compacted: 0,
        }
    }

    /// Registers a resource, replacing one with the same group, version and
    /// plural (its objects are kept).
    pub(crate) fn register(&mut self, res: Resource) {
        match self
            .resources
            .iter_mut()
            .find(|r| r.group == res.group && r.version == res.version && r.plural == res.plural)
        {
            Some(existing) => *existing = res,
            None => self.resources.push(res),
        }
    }

    /// Registered resources, in registration order.
    pub(crate) fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The resource served at `group/version/plural`.
    pub(crate) fn resource(&self, group: &str, version: &str, plural: &str) -> Option<&Resource> {
        self.resources
            .iter()
            .find(|r| r.group == group && r.version == version && r.plural == plural)
    }

    /// The resource for an `apiVersion` and `kind`.
    pub(crate) fn resource_by_kind(&self, api_version: &str, kind: &str) -> Option<&Resource> {
        self.resources
            .iter()
            .find(|r| r.api_version() == api_version && r.kind == kind)
    }

    /// Objects of a resource, sorted by namespace then name.
    pub(crate) fn objects<'a>(
        &'a self,
        res: &Resource,
    ) -> impl Iterator<Item = (&'a ObjKey, &'a Stored)> + 'a {
        self.objects
            .get(&res_key(res))
            .into_iter()
            .flat_map(|m| m.iter())
    }

    /// One object.
    pub(crate) fn get(&self, res: &Resource, key: &ObjKey) -> Option<&Stored> {
        self.objects.get(&res_key(res))?.get(key)
    }

    /// Stores an object, replacing any previous one (a change watches see).
    pub(crate) fn put(&mut self, res: &Resource, key: ObjKey, stored: Stored) {
        let object = stored.object.clone();
        let previous = self
            .objects
            .entry(res_key(res))
            .or_default()
            .insert(key.clone(), stored);
        self.changes.push(Change {
            res: res_key(res),
            key,
            kind: if previous.is_some() {
                "MODIFIED"
            } else {
                "ADDED"
            },
            object,
            version: self.resource_version,
        });
    }

    /// Removes an object (a change watches see).
    pub(crate) fn remove(&mut self, res: &Resource, key: &ObjKey) -> Option<Stored> {
        let removed = self.objects.get_mut(&res_key(res))?.remove(key)?;
        self.changes.push(Change {
            res: res_key(res),
            key: key.clone(),
            kind: "DELETED",
            object: removed.object.clone(),
            version: self.resource_version,
        });
        Some(removed)
    }

    /// The changes to objects of `res` at positions from `from` on, and the position after
    /// the last change of any resource.
    pub(crate) fn changes_from(&self, res: &Resource, from: usize) -> (Vec<Change>, usize) {
        let key = res_key(res);
        let list = self
            .changes
            .get(from..)
            .unwrap_or_default()
            .iter()
            .filter(|c| c.res == key)
            .cloned()
            .collect();
        (list, self.changes.len())
    }

    /// The position of the first change after resourceVersion `version`.
    pub(crate) fn changes_after_version(&self, version: u64) -> usize {
        self.changes.partition_point(|c| c.version <= version)
    }

    /// Forgets the history up to the current resourceVersion, as etcd's compaction does and as
    /// kube-apiserver's watch cache starts after a restart: a watch from an older
    /// resourceVersion is answered `410 Gone` from then on. Returns that resourceVersion.
    pub(crate) fn compact(&mut self) -> u64 {
        self.compacted = self.resource_version;
        self.compacted
    }

    /// The oldest resourceVersion a watch may start from (0 before any compaction).
    pub(crate) fn compacted(&self) -> u64 {
        self.compacted
    }

    /// The current global resourceVersion.
    pub(crate) fn resource_version(&self) -> u64 {
        self.resource_version
    }

    /// Advances the global resourceVersion and returns the new value.
    pub(crate) fn next_resource_version(&mut self) -> u64 {
        self.resource_version += 1;
        self.resource_version
    }

    /// A fresh UUID-shaped uid.
    pub(crate) fn next_uid(&mut self) -> String {
        self.uid_counter += 1;
        format!("00000000-0000-4000-8000-{:012x}", self.uid_counter)
    }

    /// A fresh five-character suffix for `metadata.generateName`.
    pub(crate) fn name_suffix(&mut self) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        self.uid_counter += 1;
        let mut n = self.uid_counter.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (0..5)
            .map(|_| {
                let c = ALPHABET[(n % ALPHABET.len() as u64) as usize] as char;
                n /= ALPHABET.len() as u64;
                c
            })
            .collect()
    }
}
