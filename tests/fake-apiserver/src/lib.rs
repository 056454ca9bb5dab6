//! A stateful fake Kubernetes API server for end-to-end tests and benchmarks.
//!
//! [`FakeApiServer::start`] listens on `127.0.0.1` (ephemeral port) and
//! serves plain HTTP/1.1 with keep-alive, one thread per connection. It
//! models the parts of kube-apiserver that clients such as kube-rs and
//! kubectl rely on:
//!
//! * discovery: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/{g}`,
//!   `/apis/{g}/{v}`, and `/openapi/v3` (paths and operations, enough for
//!   kubectl to opt into server-side field validation, plus the schema of
//!   each resource that has one under `components.schemas`);
//! * resources registered with [`FakeApiServer::register`] (core v1
//!   ConfigMap, Secret and Namespace are built in; a custom resource from
//!   its CRD with [`Resource::from_crd`]): list (label and field
//!   selectors, `limit`/`continue` paging, a finite `watch=true` stream),
//!   get, create, update, delete (finalizers honoured), merge patch, JSON
//!   patch, strategic merge patch for core kinds, and server-side apply with
//!   field-manager conflicts and `metadata.managedFields`, merging lists as
//!   the resource's schema declares them (list-maps by key, sets by value,
//!   anything else atomic);
//! * a status subresource per resource, `metadata.resourceVersion` from one
//!   global counter, and `metadata.generation` bumped on spec changes;
//! * errors as `Status` objects shaped like the real server's.
//!
//! Tests can seed objects ([`FakeApiServer::insert`]), read them back
//! ([`FakeApiServer::get`]), inspect every request ([`FakeApiServer::requests`])
//! and inject faults ([`Fault`]).

#![warn(missing_docs)]

mod apply;
mod discovery;
mod fault;
mod http;
mod managed;
mod openapi;
mod patch;
mod resource;
mod route;
mod schema;
mod selector;
mod server;
mod status;
mod store;
mod time;
mod validate;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use serde_json::{json, Value};

pub use fault::{Fault, FaultAction};

use server::{lock, Shared};
use store::{Store, Stored};

/// A resource type the server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// API group; `""` for the core group.
    pub group: String,
    /// API version, e.g. `v1`.
    pub version: String,
    /// Kind, e.g. `ConfigMap`.
    pub kind: String,
    /// Plural resource name used in URLs, e.g. `configmaps`.
    pub plural: String,
    /// Singular name for discovery, e.g. `configmap`.
    pub singular: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Whether `.status` is a separate subresource (`{plural}/status`): the
    /// main resource then ignores status changes and the subresource only
    /// changes status.
    pub status_subresource: bool,
    /// Short names for discovery (`shortNames`), e.g. `cm`.
    pub short_names: Vec<String>,
    /// The OpenAPI v3 schema of the kind (a CRD version's
    /// `openAPIV3Schema`), if any. Server-side apply follows its list types
    /// (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`,
    /// `set`, `atomic`) and `x-kubernetes-map-type: atomic` at any depth,
    /// and `/openapi/v3` serves it under `components.schemas`. Without one,
    /// every list is atomic.
    pub schema: Option<Value>,
}

impl Resource {
    /// A resource from an apiVersion (`v1` or `group/version`), kind and
    /// plural; the singular name is the lowercased kind and there are no
    /// short names.
    pub fn new(
        api_version: &str,
        kind: &str,
        plural: &str,
        namespaced: bool,
        status_subresource: bool,
    ) -> Resource {
        let (group, version) = match api_version.split_once('/') {
            Some((group, version)) => (group, version),
            None => ("", api_version),
        };
        Resource {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            plural: plural.to_string(),
            singular: kind.to_ascii_lowercase(),
            namespaced,
            status_subresource,
            short_names: Vec::new(),
            schema: None,
        }
    }

    /// The resource one version of a CustomResourceDefinition serves: group,
    /// kind, plural, singular and short names from `spec.names`, scope from
    /// `spec.scope`, the status subresource and `openAPIV3Schema` from the
    /// version named `version`.
    ///
    /// Panics (a test-setup error) if the CRD lacks `spec.group`,
    /// `spec.names.kind` or `spec.names.plural`, or serves no such version.
    pub fn from_crd(crd: &Value, version: &str) -> Resource {
        let text = |pointer: &str| {
            crd.pointer(pointer)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let required = |pointer: &str| {
            text(pointer).unwrap_or_else(|| panic!("Resource::from_crd: the CRD has no {pointer}"))
        };
        let group = required("/spec/group");
        let kind = required("/spec/names/kind");
        let plural = required("/spec/names/plural");
        let served = crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .and_then(|versions| {
                versions
                    .iter()
                    .find(|v| v.get("name").and_then(Value::as_str) == Some(version))
            })
            .unwrap_or_else(|| panic!("Resource::from_crd: the CRD has no version {version}"));
        let mut resource = Resource::new(
            &format!("{group}/{version}"),
            kind,
            plural,
            text("/spec/scope") != Some("Cluster"),
            served.pointer("/subresources/status").is_some(),
        );
        if let Some(singular) = text("/spec/names/singular") {
            resource.singular = singular.to_string();
        }
        if let Some(short_names) = crd
            .pointer("/spec/names/shortNames")
            .and_then(Value::as_array)
        {
            resource.short_names = short_names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
        }
        match served.pointer("/schema/openAPIV3Schema") {
            Some(schema) => resource.with_schema(schema.clone()),
            None => resource,
        }
    }

    /// [`Resource::from_crd`] of a CRD given as YAML (or JSON) text, e.g.
    /// the contents of a `CustomResourceDefinition` manifest. Panics if the
    /// text does not parse.
    pub fn from_crd_yaml(text: &str, version: &str) -> Resource {
        let crd: Value = serde_saphyr::from_str(text)
            .unwrap_or_else(|e| panic!("Resource::from_crd_yaml: not YAML: {e}"));
        Resource::from_crd(&crd, version)
    }

    /// The same resource with this OpenAPI v3 schema (a CRD version's
    /// `openAPIV3Schema`): see [`Resource::schema`].
    pub fn with_schema(mut self, schema: Value) -> Resource {
        self.schema = Some(schema);
        self
    }

    /// The Pacto resource as its CRD serves it: `pacto.trianalab.io/v1alpha1` `Pacto`, plural
    /// `pactos`, namespaced, with a status subresource.
    pub fn pacto() -> Resource {
        Resource::new("pacto.trianalab.io/v1alpha1", "Pacto", "pactos", true, true)
    }

    /// The same resource with these discovery short names.
    pub fn with_short_names(mut self, short_names: &[&str]) -> Resource {
        self.short_names = short_names.iter().map(|s| s.to_string()).collect();
        self
    }

    /// `version` for core resources, `group/version` otherwise.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// One request as the server received it (recorded before fault handling).
/// Count the writes of a test with [`Request::is_write`], `method` and
/// `path`, e.g. the `PATCH`es of one object's `/status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Method, upper case, e.g. `PATCH`.
    pub method: String,
    /// URL path without the query, as sent (not percent-decoded).
    pub path: String,
    /// Raw query string without the `?` (not decoded).
    pub query: String,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The `User-Agent` header, if any.
    pub user_agent: Option<String>,
    /// The body (chunked framing removed), lossily decoded as UTF-8.
    pub body: String,
    /// Every header as sent (names as the client wrote them), in order.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The values of a header, case-insensitively, in the order sent (e.g.
    /// `header_values("impersonate-group")`).
    pub fn header_values(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The first value of a query parameter, percent-decoded (`+` read as a
    /// space), e.g. `query_param("fieldManager")`.
    pub fn query_param(&self, key: &str) -> Option<String> {
        route::query_pairs(&self.query)
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Whether the request writes: `POST`, `PUT`, `PATCH` or `DELETE`.
    pub fn is_write(&self) -> bool {
        matches!(self.method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE")
    }
}

/// A running fake API server. Dropping it stops accepting new connections;
/// threads serving already-open connections may linger until their clients
/// hang up.
pub struct FakeApiServer {
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl FakeApiServer {
    /// Binds `127.0.0.1:0` and starts serving, with core v1 `ConfigMap`
    /// (`configmaps`, short name `cm`), `Secret` (`secrets`) and the
    /// cluster-scoped `Namespace` (`namespaces`, short name `ns`, with a
    /// status subresource) registered. Panics if the socket cannot be bound.
    pub fn start() -> FakeApiServer {
        let listener =
            TcpListener::bind("127.0.0.1:0").expect("fake-apiserver: cannot bind 127.0.0.1:0");
        let addr = listener
            .local_addr()
            .expect("fake-apiserver: listener has no local address");
        let mut store = Store::new();
        store.register(
            Resource::new("v1", "ConfigMap", "configmaps", true, false).with_short_names(&["cm"]),
        );
        store.register(Resource::new("v1", "Secret", "secrets", true, false));
        store.register(
            Resource::new("v1", "Namespace", "namespaces", false, true).with_short_names(&["ns"]),
        );
        let shared = Arc::new(Shared {
            store: Mutex::new(store),
            requests: Mutex::new(Vec::new()),
            faults: Mutex::new(Vec::new()),
            addr,
            restarts: std::sync::atomic::AtomicU64::new(0),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let shared = Arc::clone(&shared);
            let stop = Arc::clone(&stop);
            thread::Builder::new()
                .name("fake-apiserver-accept".into())
                .spawn(move || server::accept_loop(listener, shared, stop))
                .expect("fake-apiserver: cannot spawn the accept thread")
        };
        FakeApiServer {
            shared,
            stop,
            accept: Some(accept),
        }
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.shared.addr)
    }

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.shared.addr
    }

    /// Serves a resource type (replacing a registration with the same
    /// group, version and plural). Its group and version appear in
    /// discovery.
    pub fn register(&self, resource: Resource) {
        lock(&self.shared.store).register(resource);
    }

    /// Stores an object as given, including `.status` and any
    /// `metadata.managedFields` (which then seed field ownership). Fills
    /// `metadata.uid` and `metadata.creationTimestamp`
    /// (`2026-01-01T00:00:00Z`) and `metadata.generation` (1) when missing,
    /// `metadata.namespace` (`default`) for namespaced kinds when missing,
    /// and always stamps a new `metadata.resourceVersion`. Replaces an
    /// existing object with the same name.
    ///
    /// Panics (a test-setup error) if the object has no apiVersion, kind or
    /// `metadata.name`, or its kind is not registered.
    pub fn insert(&self, mut obj: Value) {
        let text = |obj: &Value, pointer: &str| {
            obj.pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| panic!("FakeApiServer::insert: object has no {pointer}: {obj}"))
        };
        let api_version = text(&obj, "/apiVersion");
        let kind = text(&obj, "/kind");
        let name = text(&obj, "/metadata/name");
        let mut store = lock(&self.shared.store);
        let res = store
            .resource_by_kind(&api_version, &kind)
            .cloned()
            .unwrap_or_else(|| {
                panic!(
                    "FakeApiServer::insert: kind {kind} of {api_version} is not registered; call register() first"
                )
            });
        let uid = store.next_uid();
        let version = store.next_resource_version().to_string();
        let meta = obj["metadata"]
            .as_object_mut()
            .expect("metadata.name was found, so metadata is an object");
        let namespace = if res.namespaced {
            meta.entry("namespace")
                .or_insert_with(|| json!("default"))
                .as_str()
                .unwrap_or("default")
                .to_string()
        } else {
            String::new()
        };
        meta.entry("uid").or_insert_with(|| json!(uid));
        meta.entry("creationTimestamp")
            .or_insert_with(|| json!("2026-01-01T00:00:00Z"));
        meta.entry("generation").or_insert_with(|| json!(1));
        meta.insert("resourceVersion".into(), json!(version));
        let managed = managed::parse(meta.get("managedFields"), res.schema.as_ref());
        store.put(
            &res,
            (namespace, name),
            Stored {
                object: obj,
                managed,
            },
        );
    }

    /// The stored object (as a GET would return it), if any. For namespaced
    /// kinds `namespace` defaults to `default`; cluster-scoped kinds ignore it.
    pub fn get(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        let store = lock(&self.shared.store);
        let res = store.resource_by_kind(api_version, kind)?.clone();
        let namespace = if res.namespaced {
            namespace.unwrap_or("default").to_string()
        } else {
            String::new()
        };
        store
            .get(&res, &(namespace, name.to_string()))
            .map(|stored| stored.object.clone())
    }

    /// Removes a stored object at once, as a DELETE of an object without
    /// finalizers does (watches see `DELETED`). Returns whether it existed.
    /// `namespace` defaults as in [`FakeApiServer::get`].
    pub fn remove(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> bool {
        let mut store = lock(&self.shared.store);
        let Some(res) = store.resource_by_kind(api_version, kind).cloned() else {
            return false;
        };
        let namespace = if res.namespaced {
            namespace.unwrap_or("default").to_string()
        } else {
            String::new()
        };
        store.next_resource_version();
        store.remove(&res, &(namespace, name.to_string())).is_some()
    }

    /// All stored objects of a kind (every namespace), sorted by namespace
    /// then name; empty when the kind is not registered.
    pub fn list(&self, api_version: &str, kind: &str) -> Vec<Value> {
        let store = lock(&self.shared.store);
        let Some(res) = store.resource_by_kind(api_version, kind).cloned() else {
            return Vec::new();
        };
        store
            .objects(&res)
            .map(|(_, stored)| stored.object.clone())
            .collect()
    }

    /// The current global resourceVersion (bumped by every successful write).
    pub fn resource_version(&self) -> u64 {
        lock(&self.shared.store).resource_version()
    }

    /// Compacts the history up to the current resourceVersion (etcd's compaction, as the API
    /// server's own compactor runs it): a watch from an older resourceVersion is then answered
    /// with one `ERROR` event, a `410 Gone` Status (reason `Expired`, message `too old resource
    /// version: RV (OLDEST)`), as kube-apiserver answers it once its watch cache no longer
    /// holds that resourceVersion. Returns the resourceVersion compacted to.
    pub fn compact(&self) -> u64 {
        lock(&self.shared.store).compact()
    }

    /// What a kube-apiserver restart does to its clients: every open watch ends (the stream
    /// closes) and the history is compacted ([`FakeApiServer::compact`]: the new watch cache
    /// starts at the current resourceVersion, so a watch from an older one is `410 Gone`).
    /// The objects stay (they live in etcd). Refused connections while the server is down are
    /// [`FaultAction::Drop`] faults. Returns the resourceVersion the history starts after.
    pub fn restart(&self) -> u64 {
        let compacted = self.compact();
        self.shared.restarts.fetch_add(1, Ordering::SeqCst);
        compacted
    }

    /// Every request received so far, in arrival order, including faulted
    /// and dropped ones.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.requests).clone()
    }

    /// Forgets the recorded requests.
    pub fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }

    /// Adds a fault rule after the existing ones.
    pub fn fault(&self, fault: Fault) {
        lock(&self.shared.faults).push(fault);
    }

    /// Removes every fault rule.
    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
    }

    /// Writes `dir/kubeconfig` pointing at this server: cluster `fake`
    /// (`server: <url>`), user `fake` (`token: fake-token`), context `fake`
    /// (with `namespace` when given), `current-context: fake`. Returns the
    /// file's path. Panics if the file cannot be written.
    pub fn write_kubeconfig(&self, dir: &Path, namespace: Option<&str>) -> PathBuf {
        let quote = |s: &str| Value::String(s.to_string()).to_string();
        let namespace_line = namespace
            .map(|ns| format!("    namespace: {}\n", quote(ns)))
            .unwrap_or_default();
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\nusers:\n- name: fake\n  user:\n    token: fake-token\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n{namespace_line}current-context: fake\npreferences: {{}}\n",
            quote(&self.url()),
        );
        let path = dir.join("kubeconfig");
        std::fs::write(&path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }
}

impl Drop for FakeApiServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag and closes the listener.
        if TcpStream::connect(self.shared.addr).is_ok() {
            if let Some(accept) = self.accept.take() {
                let _ = accept.join();
            }
        }
    }
}
