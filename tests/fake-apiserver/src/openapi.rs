//! A minimal OpenAPI v3 surface: the `/openapi/v3` index and one document
//! per group/version listing each resource's paths and operations with the
//! `x-kubernetes-group-version-kind` extension and the `fieldValidation`
//! query parameter. That is what kubectl looks at before `apply` to learn
//! that the server validates fields itself.
//!
//! A resource registered with a schema ([`Resource::with_schema`],
//! [`Resource::from_crd`]) also has it under `components.schemas`, named as
//! kube-apiserver names a CRD's schemas (the group reversed, then version
//! and kind: `io.trianalab.pacto.delivery.v1alpha1.Stage`), with its list
//! kind beside it, and its operations reference them in their request
//! bodies and responses. Resources without a schema have bare operations.

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

/// The `components.schemas` name of a kind of this resource's group and
/// version: `io.trianalab.pacto.delivery.v1alpha1.Stage` for
/// `delivery.pacto.trianalab.io/v1alpha1` `Stage` (`io.k8s.api.core.v1.…`
/// for the core group).
pub(crate) fn schema_name(res: &Resource, kind: &str) -> String {
    let group = if res.group.is_empty() {
        "io.k8s.api.core".to_string()
    } else {
        res.group.split('.').rev().collect::<Vec<_>>().join(".")
    };
    format!("{group}.{}.{kind}", res.version)
}

/// The name of the schema every PATCH body refers to.
const PATCH_SCHEMA: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn gvk(res: &Resource, kind: &str) -> Value {
    json!([{"group": res.group, "kind": kind, "version": res.version}])
}

/// The schemas a resource with a schema adds: its kind and its list kind.
fn components(res: &Resource, schema: &Value, out: &mut Map<String, Value>) {
    let mut kind = schema.clone();
    if let Some(map) = kind.as_object_mut() {
        map.insert(
            "x-kubernetes-group-version-kind".into(),
            gvk(res, &res.kind),
        );
    }
    let name = schema_name(res, &res.kind);
    let list_kind = format!("{}List", res.kind);
    out.insert(
        schema_name(res, &list_kind),
        json!({
            "description": format!("{list_kind} is a list of {}", res.kind),
            "type": "object",
            "required": ["items"],
            "properties": {
                "apiVersion": {"type": "string"},
                "items": {"type": "array", "items": reference(&name)},
                "kind": {"type": "string"},
                "metadata": {"type": "object"},
            },
            "x-kubernetes-group-version-kind": gvk(res, &list_kind),
        }),
    );
    out.insert(name, kind);
    out.insert(
        PATCH_SCHEMA.into(),
        json!({
            "description": "The body of a PATCH request: a JSON patch, a merge patch, a strategic merge patch or an apply configuration.",
            "type": "object",
        }),
    );
}

/// A response carrying the schema `name`.
fn returns(name: &str) -> Value {
    json!({"description": "OK", "content": {"application/json": {"schema": reference(name)}}})
}

/// Request bodies and responses of an operation on a resource with a
/// schema, referring to its components.
fn typed(res: &Resource, action: &str, op: &mut Value) {
    let kind = schema_name(res, &res.kind);
    let (body, responses) = match action {
        "list" => (
            None,
            json!({"200": returns(&schema_name(res, &format!("{}List", res.kind)))}),
        ),
        "get" => (None, json!({"200": returns(&kind)})),
        "put" => (
            Some(json!({"required": true, "content": {"*/*": {"schema": reference(&kind)}}})),
            json!({"200": returns(&kind), "201": returns(&kind)}),
        ),
        "post" => (
            Some(json!({"required": true, "content": {"*/*": {"schema": reference(&kind)}}})),
            json!({"200": returns(&kind), "201": returns(&kind), "202": returns(&kind)}),
        ),
        "patch" => {
            let patch = json!({"schema": reference(PATCH_SCHEMA)});
            (
                Some(json!({"required": true, "content": {
                    "application/apply-patch+yaml": patch,
                    "application/json-patch+json": patch,
                    "application/merge-patch+json": patch,
                }})),
                json!({"200": returns(&kind), "201": returns(&kind)}),
            )
        }
        _ => return,
    };
    if let Some(body) = body {
        op["requestBody"] = body;
    }
    op["responses"] = responses;
}

fn operation(res: &Resource, action: &str, id: &str) -> Value {
    let mut op = bare_operation(res, action, id);
    if res.schema.is_some() {
        typed(res, action, &mut op);
    }
    op
}

fn bare_operation(res: &Resource, action: &str, id: &str) -> Value {
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
    let mut schemas = Map::new();
    for res in served {
        if let Some(schema) = &res.schema {
            components(res, schema, &mut schemas);
        }
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
        "components": {"schemas": schemas},
    }))
}
