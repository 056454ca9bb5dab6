//! Discovery documents.

mod common;

use common::{call, get, server_with_widgets};
use fake_apiserver::{FakeApiServer, Resource};
use serde_json::json;

#[test]
fn version_document() {
    let server = FakeApiServer::start();
    let response = get(&server, "/version");
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    assert_eq!(body["major"], "1");
    assert_eq!(body["minor"], "32");
    assert_eq!(body["gitVersion"], "v1.32.0");
    assert_eq!(body["platform"], "linux/amd64");
}

#[test]
fn core_api_versions_name_the_server_address() {
    let server = FakeApiServer::start();
    let body = get(&server, "/api").json();
    let address = server.url().trim_start_matches("http://").to_string();
    assert_eq!(
        body,
        json!({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}],
        })
    );
}

#[test]
fn core_resource_list() {
    let server = FakeApiServer::start();
    let body = get(&server, "/api/v1").json();
    assert_eq!(body["kind"], "APIResourceList");
    assert_eq!(body["apiVersion"], "v1");
    assert_eq!(body["groupVersion"], "v1");
    let verbs = json!(["create", "delete", "get", "list", "patch", "update", "watch"]);
    assert_eq!(
        body["resources"],
        json!([
            {"name": "configmaps", "singularName": "configmap", "namespaced": true, "kind": "ConfigMap", "verbs": verbs, "shortNames": ["cm"]},
            {"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret", "verbs": verbs},
            {"name": "namespaces", "singularName": "namespace", "namespaced": false, "kind": "Namespace", "verbs": verbs, "shortNames": ["ns"]},
            {"name": "namespaces/status", "singularName": "", "namespaced": false, "kind": "Namespace", "verbs": ["get", "patch", "update"]},
        ])
    );
}

#[test]
fn group_documents_for_registered_groups() {
    let server = server_with_widgets();
    server.register(Resource::new(
        "example.com/v2",
        "Widget",
        "widgets",
        true,
        false,
    ));
    server.register(
        Resource::new("other.io/v1beta1", "Gadget", "gadgets", false, false)
            .with_short_names(&["gd"]),
    );
    let list = get(&server, "/apis").json();
    assert_eq!(
        list,
        json!({
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": [
                {
                    "name": "example.com",
                    "versions": [
                        {"groupVersion": "example.com/v1", "version": "v1"},
                        {"groupVersion": "example.com/v2", "version": "v2"},
                    ],
                    "preferredVersion": {"groupVersion": "example.com/v1", "version": "v1"},
                },
                {
                    "name": "other.io",
                    "versions": [{"groupVersion": "other.io/v1beta1", "version": "v1beta1"}],
                    "preferredVersion": {"groupVersion": "other.io/v1beta1", "version": "v1beta1"},
                },
            ],
        })
    );
    let group = get(&server, "/apis/other.io").json();
    assert_eq!(
        group,
        json!({
            "kind": "APIGroup",
            "apiVersion": "v1",
            "name": "other.io",
            "versions": [{"groupVersion": "other.io/v1beta1", "version": "v1beta1"}],
            "preferredVersion": {"groupVersion": "other.io/v1beta1", "version": "v1beta1"},
        })
    );
    let resources = get(&server, "/apis/example.com/v1").json();
    assert_eq!(resources["groupVersion"], "example.com/v1");
    assert_eq!(resources["resources"][0]["name"], "widgets");
    assert_eq!(resources["resources"][0]["singularName"], "widget");
    assert!(resources["resources"][0].get("shortNames").is_none());
    assert_eq!(resources["resources"][1]["name"], "widgets/status");
    assert_eq!(
        resources["resources"][1]["verbs"],
        json!(["get", "patch", "update"])
    );
    let gadgets = get(&server, "/apis/other.io/v1beta1").json();
    assert_eq!(gadgets["resources"][0]["shortNames"], json!(["gd"]));
    assert_eq!(gadgets["resources"].as_array().unwrap().len(), 1);
}

#[test]
fn unknown_groups_and_versions_are_404_status() {
    let server = server_with_widgets();
    for path in [
        "/apis/nope.io",
        "/apis/example.com/v9",
        "/api/v2",
        "/healthz/nope",
    ] {
        let response = get(&server, path);
        assert_eq!(response.status, 404, "{path}");
        let body = response.json();
        assert_eq!(body["kind"], "Status", "{path}");
        assert_eq!(body["reason"], "NotFound", "{path}");
        assert_eq!(body["code"], 404, "{path}");
    }
}

#[test]
fn aggregated_discovery_accept_gets_the_plain_form() {
    let server = server_with_widgets();
    let mut conn = common::Conn::open(&server);
    conn.send_raw(
        b"GET /apis HTTP/1.1\r\nHost: x\r\nAccept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json\r\n\r\n",
    );
    let response = conn.read_response().unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["kind"], "APIGroupList");
    assert_eq!(call(&server, "POST", "/version", None, "").status, 405);
}

#[test]
fn openapi_v3_lists_operations_with_field_validation() {
    let server = server_with_widgets();
    let index = get(&server, "/openapi/v3").json();
    let url = index["paths"]["apis/example.com/v1"]["serverRelativeURL"]
        .as_str()
        .expect("group/version entry")
        .to_string();
    assert!(
        url.starts_with("/openapi/v3/apis/example.com/v1?hash="),
        "{url}"
    );
    assert!(index["paths"]["api/v1"]["serverRelativeURL"].is_string());
    let doc = get(&server, &url).json();
    let patch =
        &doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]["patch"];
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        json!({"group": "example.com", "version": "v1", "kind": "Widget"})
    );
    let params: Vec<&str> = patch["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(params.contains(&"fieldValidation"));
    assert!(
        doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status"]
            .is_object()
    );
    let core = get(&server, "/openapi/v3/api/v1").json();
    assert!(core["paths"]["/api/v1/namespaces/{name}"]["put"].is_object());
    assert_eq!(get(&server, "/openapi/v3/apis/nope.io/v1").status, 404);
    assert_eq!(get(&server, "/openapi/v2").status, 404);
}
