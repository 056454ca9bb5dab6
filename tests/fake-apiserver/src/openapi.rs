//! A minimal OpenAPI v3 surface: the `/openapi/v3` index and one document
//! per group/version listing each resource's paths and operations with the
//! `x-kubernetes-group-version-kind` extension and the `fieldValidation`
//! query parameter. That is what kubectl looks at before `apply` to learn
//! that the server validates fields itself; there are no schemas.

use serde_json::{json, Map, Value};

use crate::http::Response;
use crate::status;
use crate::Resource;

/// `api/v1` or `apis/{group}/{version}`.
fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// FNV-1a, for the content hashes clients use as cache keys.
fn content_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `GET /openapi/v3`: one entry per served group/version, each URL
/// carrying a hash of its document.
pub(crate) fn index(resources: &[Resource]) -> Response {
    let mut paths = Map::new();
    for res in resources {
        let path = gv_path(&res.group, &res.version);
        if paths.contains_key(&path) {
            continue;
        }
        let document = document(resources, &res.group, &res.version).unwrap_or_default();
        let hash = content_hash(&serde_json::to_vec(&document).unwrap_or_default());
        let url = format!("/openapi/v3/{path}?hash={hash:016X}");
        paths.insert(path, json!({"serverRelativeURL": url}));
    }
    Response::json(200, &json!({"paths": paths}))
}

fn operation(res: &Resource, action: &str, id: &str) -> Value {
    json!({
        "operationId": id,
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {
            "group": res.group,
            "version": res.version,
            "kind": res.kind,
        },
        "parameters": [
            {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
            {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
        ],
        "responses": {"200": {"description": "OK"}},
    })
}

/// `GET /openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`.
pub(crate) fn group_version(resources: &[Resource], group: &str, version: &str) -> Response {
    match document(resources, group, version) {
        Some(document) => Response::json(200, &document),
        None => status::not_found_generic(),
    }
}

fn document(resources: &[Resource], group: &str, version: &str) -> Option<Value> {
    let served: Vec<&Resource> = resources
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .collect();
    if served.is_empty() {
        return None;
    }
    let mut paths = Map::new();
    for res in served {
        let prefix = format!("/{}/", gv_path(group, version));
        let scope = if res.namespaced {
            "namespaces/{namespace}/"
        } else {
            ""
        };
        let collection = format!("{prefix}{scope}{}", res.plural);
        let id = |verb: &str| format!("{verb}{}", res.kind);
        paths.insert(
            collection.clone(),
            json!({
                "get": operation(res, "list", &id("list")),
                "post": operation(res, "post", &id("create")),
            }),
        );
        paths.insert(
            format!("{collection}/{{name}}"),
            json!({
                "get": operation(res, "get", &id("read")),
                "put": operation(res, "put", &id("replace")),
                "patch": operation(res, "patch", &id("patch")),
                "delete": operation(res, "delete", &id("delete")),
            }),
        );
        if res.status_subresource {
            paths.insert(
                format!("{collection}/{{name}}/status"),
                json!({
                    "get": operation(res, "get", &id("readStatus")),
                    "put": operation(res, "put", &id("replaceStatus")),
                    "patch": operation(res, "patch", &id("patchStatus")),
                }),
            );
        }
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": {}},
    }))
}
