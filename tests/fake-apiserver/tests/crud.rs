//! Get, create, update, patch, delete, status subresource, generation.

mod common;

use common::{call, delete, get, merge_patch, post, put, rv, server_with_widgets, WIDGETS};
use fake_apiserver::{FakeApiServer, Resource};
use serde_json::{json, Value};

fn widget(name: &str) -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"size": 1, "color": "red"},
        "status": {"ready": true},
    })
}

#[test]
fn get_missing_object_is_a_not_found_status() {
    let server = server_with_widgets();
    let response = get(&server, &format!("{WIDGETS}/nope"));
    assert_eq!(response.status, 404);
    assert_eq!(
        response.json(),
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "widgets.example.com \"nope\" not found",
            "reason": "NotFound",
            "details": {"name": "nope", "group": "example.com", "kind": "widgets"},
            "code": 404,
        })
    );
    let core = get(&server, "/api/v1/namespaces/default/configmaps/nope").json();
    assert_eq!(core["message"], "configmaps \"nope\" not found");
    // kube-apiserver omits the empty group of a core kind (`StatusDetails`' omitempty; the
    // conformance test against the real server pins it).
    assert_eq!(
        core["details"],
        json!({"name": "nope", "kind": "configmaps"})
    );
}

#[test]
fn insert_stores_as_is_and_fills_metadata() {
    let server = server_with_widgets();
    server.insert(widget("w"));
    let stored = server.get("example.com/v1", "Widget", None, "w").unwrap();
    assert_eq!(stored["status"], json!({"ready": true}));
    assert_eq!(stored["metadata"]["namespace"], "default");
    assert_eq!(
        stored["metadata"]["creationTimestamp"],
        "2026-01-01T00:00:00Z"
    );
    assert_eq!(stored["metadata"]["generation"], 1);
    assert!(!stored["metadata"]["uid"].as_str().unwrap().is_empty());
    assert_eq!(rv(&stored), server.resource_version().to_string());
    let fetched = get(&server, &format!("{WIDGETS}/w")).json();
    assert_eq!(fetched, stored);
    let status = get(&server, &format!("{WIDGETS}/w/status")).json();
    assert_eq!(status, stored);
    assert_eq!(server.list("example.com/v1", "Widget").len(), 1);
    assert!(server
        .get("example.com/v1", "Widget", Some("other"), "w")
        .is_none());
}

#[test]
#[should_panic(expected = "not registered")]
fn insert_of_an_unregistered_kind_panics() {
    let server = FakeApiServer::start();
    server.insert(json!({"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "a"}}));
}

#[test]
fn create_fills_metadata_drops_status_and_refuses_duplicates() {
    let server = server_with_widgets();
    let before = server.resource_version();
    let response = post(&server, WIDGETS, &widget("w"));
    assert_eq!(response.status, 201, "{}", response.body);
    let created = response.json();
    assert_eq!(created["apiVersion"], "example.com/v1");
    assert_eq!(created["kind"], "Widget");
    assert_eq!(created["metadata"]["namespace"], "default");
    assert_eq!(created["metadata"]["generation"], 1);
    assert_eq!(rv(&created), (before + 1).to_string());
    let created_at = created["metadata"]["creationTimestamp"].as_str().unwrap();
    assert_eq!(created_at.len(), 20);
    assert!(created_at.ends_with('Z') && created_at.starts_with("20"));
    assert!(
        created.get("status").is_none(),
        "status subresource: status dropped"
    );
    assert_eq!(
        created["metadata"]["managedFields"][0]["manager"],
        "unknown"
    );
    assert_eq!(
        created["metadata"]["managedFields"][0]["operation"],
        "Update"
    );

    let again = post(&server, WIDGETS, &widget("w"));
    assert_eq!(again.status, 409);
    let body = again.json();
    assert_eq!(body["reason"], "AlreadyExists");
    assert_eq!(body["message"], "widgets.example.com \"w\" already exists");

    // Without a status subresource, status is kept.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}});
    let created = post(&server, "/api/v1/namespaces/ns1/configmaps", &cm).json();
    assert_eq!(created["metadata"]["namespace"], "ns1");
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "tmp-"}});
    let response = post(&server, "/api/v1/namespaces", &ns);
    assert_eq!(response.status, 201);
    let name = response.json()["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(name.starts_with("tmp-") && name.len() == 9, "{name}");
    assert!(response.json()["metadata"].get("namespace").is_none());

    let mismatched = post(
        &server,
        WIDGETS,
        &json!({"metadata": {"name": "x", "namespace": "other"}}),
    );
    assert_eq!(mismatched.status, 400);
}

#[test]
fn put_replaces_and_checks_resource_version() {
    let server = server_with_widgets();
    server.insert(widget("w"));
    let stored = server.get("example.com/v1", "Widget", None, "w").unwrap();
    let mut update = stored.clone();
    update["spec"]["size"] = json!(2);
    update["status"] = json!({"ready": false});
    let response = put(&server, &format!("{WIDGETS}/w"), &update);
    assert_eq!(response.status, 200, "{}", response.body);
    let updated = response.json();
    assert_eq!(updated["spec"]["size"], 2);
    assert_eq!(
        updated["status"],
        json!({"ready": true}),
        "main PUT keeps status"
    );
    assert_eq!(updated["metadata"]["generation"], 2);
    assert_ne!(rv(&updated), rv(&stored));

    // The old resourceVersion is now stale.
    let response = put(&server, &format!("{WIDGETS}/w"), &update);
    assert_eq!(response.status, 409);
    assert_eq!(
        response.json(),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Operation cannot be fulfilled on widgets.example.com \"w\": the object has been modified; please apply your changes to the latest version and try again",
            "reason": "Conflict",
            "details": {"name": "w", "group": "example.com", "kind": "widgets"},
            "code": 409,
        })
    );
    assert_eq!(
        put(&server, &format!("{WIDGETS}/missing"), &widget("missing")).status,
        404
    );
    assert_eq!(
        put(&server, &format!("{WIDGETS}/w"), &widget("other")).status,
        400
    );
}

#[test]
fn status_subresource_isolation() {
    let server = server_with_widgets();
    server.insert(widget("w"));
    let path = format!("{WIDGETS}/w");
    // Main resource writes cannot change status.
    let patched = merge_patch(
        &server,
        &path,
        &json!({"spec": {"size": 3}, "status": {"ready": false}}),
    )
    .json();
    assert_eq!(patched["spec"]["size"], 3);
    assert_eq!(patched["status"], json!({"ready": true}));
    // Status writes change only status.
    let patched = merge_patch(
        &server,
        &format!("{path}/status"),
        &json!({"spec": {"size": 9}, "metadata": {"labels": {"app": "x"}}, "status": {"ready": false, "phase": "Down"}}),
    )
    .json();
    assert_eq!(patched["spec"]["size"], 3);
    assert_eq!(patched["metadata"]["labels"]["app"], "web");
    assert_eq!(patched["status"], json!({"ready": false, "phase": "Down"}));
    assert_eq!(
        patched["metadata"]["generation"], 2,
        "status writes do not bump generation"
    );
    assert_eq!(
        patched["metadata"]["managedFields"][1]["subresource"],
        "status"
    );
    // PUT on status too, with the resourceVersion check.
    let mut body = patched.clone();
    body["status"] = json!({"ready": true});
    body["spec"]["size"] = json!(100);
    let updated = put(&server, &format!("{path}/status"), &body).json();
    assert_eq!(updated["status"], json!({"ready": true}));
    assert_eq!(updated["spec"]["size"], 3);
    assert_eq!(put(&server, &format!("{path}/status"), &body).status, 409);
    // Kinds without a status subresource have no /status path.
    server.register(Resource::new(
        "example.com/v1",
        "Plain",
        "plains",
        true,
        false,
    ));
    server.insert(
        json!({"apiVersion": "example.com/v1", "kind": "Plain", "metadata": {"name": "p"}}),
    );
    let response = get(
        &server,
        "/apis/example.com/v1/namespaces/default/plains/p/status",
    );
    assert_eq!(response.status, 404);
}

#[test]
fn merge_patch_deletes_with_null_and_checks_resource_version() {
    let server = server_with_widgets();
    server.insert(widget("w"));
    let path = format!("{WIDGETS}/w");
    let before = server.get("example.com/v1", "Widget", None, "w").unwrap();
    let patched = merge_patch(
        &server,
        &path,
        &json!({"metadata": {"labels": {"app": null, "new": "yes"}}, "spec": {"color": null, "shape": {"sides": 4}}}),
    );
    assert_eq!(patched.status, 200, "{}", patched.body);
    let patched = patched.json();
    assert_eq!(patched["metadata"]["labels"], json!({"new": "yes"}));
    assert_eq!(patched["spec"], json!({"size": 1, "shape": {"sides": 4}}));
    let stale = merge_patch(
        &server,
        &path,
        &json!({"metadata": {"resourceVersion": rv(&before)}, "spec": {"size": 5}}),
    );
    assert_eq!(stale.status, 409);
    assert_eq!(stale.json()["reason"], "Conflict");
    let fresh = merge_patch(
        &server,
        &path,
        &json!({"metadata": {"resourceVersion": rv(&patched)}, "spec": {"size": 5}}),
    );
    assert_eq!(fresh.status, 200);
    assert_eq!(
        merge_patch(&server, &format!("{WIDGETS}/missing"), &json!({})).status,
        404
    );
}

#[test]
fn patch_content_types() {
    let server = server_with_widgets();
    server.insert(widget("w"));
    let path = format!("{WIDGETS}/w");
    let ops = json!([
        {"op": "test", "path": "/spec/size", "value": 1},
        {"op": "replace", "path": "/spec/size", "value": 7},
        {"op": "add", "path": "/metadata/labels/extra", "value": "1"},
        {"op": "remove", "path": "/spec/color"},
    ]);
    let response = call(
        &server,
        "PATCH",
        &path,
        Some("application/json-patch+json"),
        &ops.to_string(),
    );
    assert_eq!(response.status, 200, "{}", response.body);
    let patched = response.json();
    assert_eq!(patched["spec"], json!({"size": 7}));
    assert_eq!(patched["metadata"]["labels"]["extra"], "1");
    let failing = json!([{"op": "test", "path": "/spec/size", "value": 1}]);
    let response = call(
        &server,
        "PATCH",
        &path,
        Some("application/json-patch+json"),
        &failing.to_string(),
    );
    assert_eq!(response.status, 422);

    let strategic = call(
        &server,
        "PATCH",
        &path,
        Some("application/strategic-merge-patch+json"),
        "{}",
    );
    assert_eq!(strategic.status, 415);
    assert_eq!(strategic.json()["reason"], "UnsupportedMediaType");
    assert_eq!(
        call(&server, "PATCH", &path, Some("text/plain"), "{}").status,
        415
    );

    server.insert(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}}));
    let response = call(
        &server,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/c",
        Some("application/strategic-merge-patch+json"),
        r#"{"data":{"a":null,"c":"3"}}"#,
    );
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.json()["data"], json!({"b": "2", "c": "3"}));
}

#[test]
fn generation_bumps_only_on_spec_changes() {
    let server = server_with_widgets();
    server.insert(widget("w"));
    let path = format!("{WIDGETS}/w");
    let generation = |v: &Value| v["metadata"]["generation"].as_i64().unwrap();
    let labelled = merge_patch(&server, &path, &json!({"metadata": {"labels": {"x": "y"}}})).json();
    assert_eq!(generation(&labelled), 1);
    let status = merge_patch(
        &server,
        &format!("{path}/status"),
        &json!({"status": {"ready": false}}),
    )
    .json();
    assert_eq!(generation(&status), 1);
    let spec = merge_patch(&server, &path, &json!({"spec": {"size": 2}})).json();
    assert_eq!(generation(&spec), 2);
    let same = merge_patch(&server, &path, &json!({"spec": {"size": 2}})).json();
    assert_eq!(generation(&same), 2);
    assert_eq!(
        rv(&same),
        rv(&spec),
        "a no-op patch does not bump resourceVersion"
    );
    let spec = merge_patch(&server, &path, &json!({"spec": {"size": 3}})).json();
    assert_eq!(generation(&spec), 3);
}

#[test]
fn delete_removes_or_marks_with_finalizers() {
    let server = server_with_widgets();
    server.insert(widget("gone"));
    let response = delete(&server, &format!("{WIDGETS}/gone"));
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["metadata"]["name"], "gone");
    assert_eq!(get(&server, &format!("{WIDGETS}/gone")).status, 404);
    assert_eq!(delete(&server, &format!("{WIDGETS}/gone")).status, 404);

    let mut held = widget("held");
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    server.insert(held);
    let response = delete(&server, &format!("{WIDGETS}/held"));
    assert_eq!(response.status, 200);
    let marked = get(&server, &format!("{WIDGETS}/held")).json();
    assert!(marked["metadata"]["deletionTimestamp"].is_string());
    // Removing the last finalizer completes the deletion.
    let response = merge_patch(
        &server,
        &format!("{WIDGETS}/held"),
        &json!({"metadata": {"finalizers": null}}),
    );
    assert_eq!(response.status, 200);
    assert_eq!(get(&server, &format!("{WIDGETS}/held")).status, 404);
}

#[test]
fn scope_and_method_errors() {
    let server = server_with_widgets();
    server.insert(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}));
    assert_eq!(
        get(&server, "/api/v1/namespaces/team").json()["metadata"]["name"],
        "team"
    );
    assert_eq!(
        get(&server, "/api/v1/namespaces/team/namespaces").status,
        404
    );
    assert_eq!(get(&server, "/apis/example.com/v1/widgets/w").status, 404);
    assert_eq!(call(&server, "DELETE", WIDGETS, None, "").status, 405);
    assert_eq!(
        call(&server, "POST", &format!("{WIDGETS}/w"), None, "{}").status,
        405
    );
}

#[test]
fn kubeconfig_points_at_the_server() {
    let server = FakeApiServer::start();
    let dir =
        std::env::temp_dir().join(format!("fake-apiserver-kubeconfig-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = server.write_kubeconfig(&dir, Some("team-a"));
    assert_eq!(path, dir.join("kubeconfig"));
    let config: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(config["current-context"], "fake");
    assert_eq!(config["clusters"][0]["name"], "fake");
    assert_eq!(
        config["clusters"][0]["cluster"]["server"],
        server.url().as_str()
    );
    assert_eq!(config["users"][0]["user"]["token"], "fake-token");
    assert_eq!(config["contexts"][0]["context"]["namespace"], "team-a");
    assert_eq!(config["contexts"][0]["context"]["cluster"], "fake");
    assert_eq!(config["contexts"][0]["context"]["user"], "fake");
    let path = server.write_kubeconfig(&dir, None);
    let config: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(config["contexts"][0]["context"].get("namespace").is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn create_body_media_types() {
    let server = server_with_widgets();
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n";
    let response = call(
        &server,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some("application/yaml"),
        yaml,
    );
    assert_eq!(response.status, 201, "{}", response.body);
    assert_eq!(response.json()["data"], json!({"k": "v"}));
    let response = call(
        &server,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some("application/vnd.kubernetes.protobuf"),
        "k8s\u{0}",
    );
    assert_eq!(response.status, 415);
    assert_eq!(response.json()["reason"], "UnsupportedMediaType");
    let response = call(
        &server,
        "POST",
        WIDGETS,
        Some("application/json"),
        "{not json",
    );
    assert_eq!(response.status, 400);
    assert_eq!(response.json()["reason"], "BadRequest");
}
