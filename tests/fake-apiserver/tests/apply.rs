//! Server-side apply and managed fields.

mod common;

use common::{apply, call, merge_patch, post, rv, server_with_widgets, WIDGETS};
use fake_apiserver::{FakeApiServer, Resource};
use serde_json::{json, Value};

fn config(spec: Value) -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": spec,
    })
}

fn status_config(status: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "status": status})
}

#[test]
fn apply_creates_with_managed_fields() {
    let server = server_with_widgets();
    let response = apply(
        &server,
        &format!("{WIDGETS}/w?fieldManager=pacto"),
        &config(json!({"size": 1, "tags": ["a", "b"]})),
    );
    assert_eq!(response.status, 201, "{}", response.body);
    let created = response.json();
    assert_eq!(created["spec"], json!({"size": 1, "tags": ["a", "b"]}));
    assert_eq!(created["metadata"]["generation"], 1);
    let managed = &created["metadata"]["managedFields"];
    assert_eq!(managed.as_array().unwrap().len(), 1);
    assert_eq!(managed[0]["manager"], "pacto");
    assert_eq!(managed[0]["operation"], "Apply");
    assert_eq!(managed[0]["apiVersion"], "example.com/v1");
    assert_eq!(managed[0]["fieldsType"], "FieldsV1");
    assert_eq!(
        managed[0]["fieldsV1"],
        json!({"f:spec": {"f:size": {}, "f:tags": {}}})
    );
    assert!(managed[0].get("subresource").is_none());
    assert!(managed[0]["time"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        server.get("example.com/v1", "Widget", None, "w").unwrap(),
        created
    );
}

#[test]
fn apply_accepts_yaml_and_requires_a_field_manager() {
    let server = server_with_widgets();
    let yaml = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 4\n";
    let response = call(
        &server,
        "PATCH",
        &format!("{WIDGETS}/w?fieldManager=yaml-user&force=true"),
        Some("application/apply-patch+yaml"),
        yaml,
    );
    assert_eq!(response.status, 201, "{}", response.body);
    assert_eq!(response.json()["spec"]["size"], 4);
    let response = call(
        &server,
        "PATCH",
        &format!("{WIDGETS}/w"),
        Some("application/apply-patch+yaml"),
        yaml,
    );
    assert_eq!(response.status, 400);
    assert_eq!(response.json()["reason"], "BadRequest");
    let mut missing = status_config(json!({"phase": "x"}));
    missing["metadata"]["name"] = json!("missing");
    let response = apply(
        &server,
        &format!("{WIDGETS}/missing/status?fieldManager=m"),
        &missing,
    );
    assert_eq!(response.status, 404);
}

#[test]
fn conflicting_apply_fails_without_force() {
    let server = server_with_widgets();
    let owner = status_config(json!({"phase": "Ready", "count": 1}));
    server.insert(config(json!({"size": 1})));
    let response = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=controller"),
        &owner,
    );
    assert_eq!(response.status, 200, "{}", response.body);
    let owned = response.json();
    let entry = &owned["metadata"]["managedFields"][0];
    assert_eq!(entry["subresource"], "status");
    assert_eq!(
        entry["fieldsV1"],
        json!({"f:status": {"f:count": {}, "f:phase": {}}})
    );

    // Same value: shared ownership, no conflict.
    let same = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=pacto"),
        &status_config(json!({"phase": "Ready"})),
    );
    assert_eq!(same.status, 200, "{}", same.body);

    let response = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=pacto"),
        &status_config(json!({"phase": "Failed", "count": 2})),
    );
    assert_eq!(response.status, 409);
    let body = response.json();
    assert_eq!(body["reason"], "Conflict");
    assert_eq!(
        body["message"],
        "Apply failed with 2 conflicts: conflict with \"controller\": .status.count\nconflict with \"controller\": .status.phase"
    );
    assert_eq!(
        body["details"]["causes"],
        json!([
            {"reason": "FieldManagerConflict", "message": "conflict with \"controller\"", "field": ".status.count"},
            {"reason": "FieldManagerConflict", "message": "conflict with \"controller\"", "field": ".status.phase"},
        ])
    );
    let single = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=pacto"),
        &status_config(json!({"phase": "Failed"})),
    );
    assert_eq!(
        single.json()["message"],
        "Apply failed with 1 conflict: conflict with \"controller\": .status.phase"
    );
    let unchanged = server.get("example.com/v1", "Widget", None, "w").unwrap();
    assert_eq!(unchanged["status"]["phase"], "Ready");
}

#[test]
fn forced_apply_moves_ownership() {
    let server = server_with_widgets();
    server.insert(config(json!({"size": 1})));
    let first = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=controller"),
        &status_config(json!({"phase": "Ready", "count": 1})),
    );
    assert_eq!(first.status, 200);
    let response = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=pacto&force=true"),
        &status_config(json!({"phase": "Failed"})),
    );
    assert_eq!(response.status, 200, "{}", response.body);
    let obj = response.json();
    assert_eq!(obj["status"], json!({"phase": "Failed", "count": 1}));
    let managed = obj["metadata"]["managedFields"].as_array().unwrap().clone();
    let fields_of = |manager: &str| {
        managed
            .iter()
            .find(|e| e["manager"] == manager)
            .map(|e| e["fieldsV1"].clone())
    };
    assert_eq!(
        fields_of("controller"),
        Some(json!({"f:status": {"f:count": {}}}))
    );
    assert_eq!(
        fields_of("pacto"),
        Some(json!({"f:status": {"f:phase": {}}}))
    );
    // The previous owner now conflicts in turn.
    let back = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=controller"),
        &status_config(json!({"phase": "Ready", "count": 1})),
    );
    assert_eq!(back.status, 409);
    assert_eq!(
        back.json()["message"],
        "Apply failed with 1 conflict: conflict with \"pacto\": .status.phase"
    );
}

#[test]
fn fields_dropped_from_the_applied_config_are_removed() {
    let server = server_with_widgets();
    let path = format!("{WIDGETS}/w?fieldManager=pacto");
    apply(
        &server,
        &path,
        &config(json!({"size": 1, "color": "red", "shape": {"sides": 3}})),
    );
    let other = apply(
        &server,
        &format!("{WIDGETS}/w?fieldManager=other"),
        &config(json!({"color": "red"})),
    );
    assert_eq!(other.status, 200, "{}", other.body);
    let response = apply(&server, &path, &config(json!({"size": 1})));
    assert_eq!(response.status, 200);
    let obj = response.json();
    // `shape` was only pacto's: removed. `color` is shared with `other`: kept.
    assert_eq!(obj["spec"], json!({"size": 1, "color": "red"}));
    // A field set by a plain update is not removed by an applier that never owned it.
    merge_patch(
        &server,
        &format!("{WIDGETS}/w?fieldManager=editor"),
        &json!({"spec": {"extra": true}}),
    );
    let obj = apply(&server, &path, &config(json!({"size": 2}))).json();
    assert_eq!(
        obj["spec"],
        json!({"size": 2, "color": "red", "extra": true})
    );
    let editor = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "editor")
        .cloned()
        .unwrap();
    assert_eq!(editor["operation"], "Update");
    assert_eq!(editor["fieldsV1"], json!({"f:spec": {"f:extra": {}}}));
}

#[test]
fn repeated_apply_is_idempotent() {
    let server = server_with_widgets();
    let path = format!("{WIDGETS}/w?fieldManager=pacto");
    let cfg = config(json!({"size": 1, "labels": ["x"]}));
    let first = apply(&server, &path, &cfg).json();
    let global = server.resource_version();
    let second = apply(&server, &path, &cfg);
    assert_eq!(second.status, 200);
    let second = second.json();
    assert_eq!(rv(&second), rv(&first));
    assert_eq!(second, first);
    assert_eq!(server.resource_version(), global);
    let status_path = format!("{WIDGETS}/w/status?fieldManager=pacto");
    let with_status = apply(&server, &status_path, &status_config(json!({"ok": true}))).json();
    assert_ne!(rv(&with_status), rv(&first));
    let again = apply(&server, &status_path, &status_config(json!({"ok": true}))).json();
    assert_eq!(rv(&again), rv(&with_status));
    assert_eq!(with_status["metadata"]["generation"], 1);
}

#[test]
fn main_apply_ignores_status_and_updates_record_ownership() {
    let server = server_with_widgets();
    let mut cfg = config(json!({"size": 1}));
    cfg["status"] = json!({"phase": "Sneaky"});
    let created = apply(&server, &format!("{WIDGETS}/w?fieldManager=pacto"), &cfg).json();
    assert!(created.get("status").is_none());
    let patched = merge_patch(
        &server,
        &format!("{WIDGETS}/w?fieldManager=kubectl-edit"),
        &json!({"spec": {"size": 2}}),
    )
    .json();
    let managed = patched["metadata"]["managedFields"].as_array().unwrap();
    // The edit took `.spec.size` away from the applier, whose entry is now empty.
    assert_eq!(managed.len(), 1);
    assert_eq!(managed[0]["manager"], "kubectl-edit");
    assert_eq!(managed[0]["operation"], "Update");
    assert_eq!(managed[0]["fieldsV1"], json!({"f:spec": {"f:size": {}}}));
    let conflict = apply(
        &server,
        &format!("{WIDGETS}/w?fieldManager=pacto"),
        &config(json!({"size": 1})),
    );
    assert_eq!(conflict.status, 409);
    assert_eq!(
        conflict.json()["message"],
        "Apply failed with 1 conflict: conflict with \"kubectl-edit\": .spec.size"
    );
}

#[test]
fn inserted_managed_fields_seed_ownership() {
    let server = server_with_widgets();
    let mut obj = config(json!({"size": 1}));
    obj["status"] = json!({"phase": "Ready"});
    obj["metadata"]["managedFields"] = json!([{
        "manager": "operator", "operation": "Update", "apiVersion": "example.com/v1",
        "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:phase": {}}}, "subresource": "status",
    }]);
    server.insert(obj);
    let response = apply(
        &server,
        &format!("{WIDGETS}/w/status?fieldManager=pacto"),
        &status_config(json!({"phase": "Failed"})),
    );
    assert_eq!(response.status, 409);
    assert_eq!(
        response.json()["details"]["causes"][0]["message"],
        "conflict with \"operator\""
    );
}

/// A manager owns the maps and lists it adds, as structured-merge-diff records them
/// (`typed/compare.go`: a node absent before is `Added`; `fieldpath/serialize.go`: an owned
/// path with fields below it is written `".": {}` first): a create owns `spec`, each map under
/// it and `metadata.labels`; a later update owns only the map it adds. An apply owns a map only
/// where it reaches it through a key the schema does not declare (`typed/tofieldset.go`).
#[test]
fn writers_own_the_maps_they_add() {
    let server = FakeApiServer::start();
    server.register(
        Resource::new("example.com/v1", "Widget", "widgets", true, true).with_schema(json!({
            "type": "object",
            "properties": {"spec": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"shape": {"type": "object", "properties": {"sides": {"type": "integer"}}}},
            }},
        })),
    );
    let created = post(
        &server,
        &format!("{WIDGETS}?fieldManager=maker"),
        &json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "labels": {"app": "web"}},
            "spec": {"shape": {"sides": 3}, "size": 1}}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(
        created.json()["metadata"]["managedFields"][0]["fieldsV1"].to_string(),
        r#"{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:shape":{".":{},"f:sides":{}},"f:size":{}}}"#
    );
    let patched = merge_patch(
        &server,
        &format!("{WIDGETS}/w?fieldManager=editor"),
        &json!({"spec": {"extra": {"on": true}, "size": 2}}),
    )
    .json();
    let fields_of = |obj: &Value, manager: &str| {
        obj["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["manager"] == manager)
            .map(|e| e["fieldsV1"].clone())
            .unwrap()
    };
    // `spec` was there before: the editor owns only the map it added and what it changed.
    assert_eq!(
        fields_of(&patched, "editor"),
        json!({"f:spec": {"f:extra": {".": {}, "f:on": {}}, "f:size": {}}})
    );
    assert_eq!(
        fields_of(&patched, "maker"),
        json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {".": {}, "f:shape": {".": {}, "f:sides": {}}}})
    );
    let applied = apply(
        &server,
        &format!("{WIDGETS}/a?fieldManager=applier"),
        &json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"},
            "spec": {"shape": {"sides": 4}, "free": {"form": "yes"}}}),
    )
    .json();
    assert_eq!(
        fields_of(&applied, "applier"),
        json!({"f:spec": {"f:free": {".": {}, "f:form": {}}, "f:shape": {"f:sides": {}}}})
    );
}
