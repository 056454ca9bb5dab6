//! Discovery documents: `/version`, `/api`, `/apis`, `/apis/{group}`,
//! `/api/v1` and `/apis/{group}/{version}` (the unaggregated forms), plus
//! the OpenAPI v3 routes.

use std::net::SocketAddr;

use serde_json::{json, Value};

use crate::http::Response;
use crate::openapi;
use crate::route::Route;
use crate::status;
use crate::Resource;

/// Verbs advertised for every resource.
const VERBS: [&str; 7] = [
    "create", "delete", "get", "list", "patch", "update", "watch",
];

/// Answers a discovery route (`GET` only; the caller checks the method).
pub(crate) fn handle(resources: &[Resource], route: &Route, addr: SocketAddr) -> Response {
    let body = match route {
        Route::Version => Some(version()),
        Route::Api => Some(api_versions(addr)),
        Route::Apis => Some(group_list(resources)),
        Route::Group(group) => group_doc(resources, group),
        Route::GroupVersion { group, version } => resource_list(resources, group, version),
        Route::OpenApiIndex => return openapi::index(resources),
        Route::OpenApiGroupVersion { group, version } => {
            return openapi::group_version(resources, group, version)
        }
        Route::Resource(_) | Route::Unknown => None,
    };
    match body {
        Some(body) => Response::json(200, &body),
        None => status::not_found_generic(),
    }
}

fn version() -> Value {
    json!({
        "major": "1",
        "minor": "32",
        "gitVersion": "v1.32.0",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.23.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

fn api_versions(addr: SocketAddr) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": addr.to_string()}
        ],
    })
}

/// Registered non-core groups in registration order, each with its versions.
fn groups(resources: &[Resource]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for res in resources.iter().filter(|r| !r.group.is_empty()) {
        let index = match groups.iter().position(|(g, _)| *g == res.group) {
            Some(index) => index,
            None => {
                groups.push((res.group.clone(), Vec::new()));
                groups.len() - 1
            }
        };
        if !groups[index].1.contains(&res.version) {
            groups[index].1.push(res.version.clone());
        }
    }
    groups
}

fn group_value(name: &str, versions: &[String]) -> Value {
    let entry = |v: &String| json!({"groupVersion": format!("{name}/{v}"), "version": v});
    json!({
        "name": name,
        "versions": versions.iter().map(entry).collect::<Vec<_>>(),
        "preferredVersion": entry(&versions[0]),
    })
}

fn group_list(resources: &[Resource]) -> Value {
    let groups: Vec<Value> = groups(resources)
        .iter()
        .map(|(name, versions)| group_value(name, versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

fn group_doc(resources: &[Resource], group: &str) -> Option<Value> {
    let (name, versions) = groups(resources).into_iter().find(|(g, _)| g == group)?;
    let mut doc = json!({"kind": "APIGroup", "apiVersion": "v1"});
    if let (Some(doc), Value::Object(fields)) = (doc.as_object_mut(), group_value(&name, &versions))
    {
        doc.extend(fields);
    }
    Some(doc)
}

fn resource_list(resources: &[Resource], group: &str, version: &str) -> Option<Value> {
    let served: Vec<&Resource> = resources
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .collect();
    if served.is_empty() {
        return None;
    }
    let mut entries = Vec::new();
    for res in served {
        let mut entry = json!({
            "name": res.plural,
            "singularName": res.singular,
            "namespaced": res.namespaced,
            "kind": res.kind,
            "verbs": VERBS,
        });
        if !res.short_names.is_empty() {
            entry["shortNames"] = json!(res.short_names);
        }
        entries.push(entry);
        if res.status_subresource {
            entries.push(json!({
                "name": format!("{}/status", res.plural),
                "singularName": "",
                "namespaced": res.namespaced,
                "kind": res.kind,
                "verbs": ["get", "patch", "update"],
            }));
        }
    }
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": if group.is_empty() { version.to_string() } else { format!("{group}/{version}") },
        "resources": entries,
    }))
}
