//! Server-side apply following a CRD schema's list types (list-maps by key,
//! sets by value, atomic lists whole), the schema served in OpenAPI v3, and
//! the resourceVersion check of a merge patch on a schema'd kind.

mod common;

use common::{apply, call, get, merge_patch, rv, server_with_widgets, widgets, WIDGETS};
use fake_apiserver::{FakeApiServer, Resource};
use serde_json::{json, Value};

/// The project's Stage CRD: `status.conditions` is a list-map keyed by `type`.
const STAGE_CRD: &str =
    include_str!("../../../examples/cluster/stages.delivery.pacto.trianalab.io.yaml");
/// The same CRD without the list-map markers: `status.conditions` is atomic.
const ATOMIC_CRD: &str = include_str!("fixtures/stages-atomic-conditions.yaml");

const API_VERSION: &str = "delivery.pacto.trianalab.io/v1alpha1";
const STAGES: &str = "/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/default/stages";
const PACTO: &str = "kubectl-pacto";

fn stage_server(crd: &str) -> FakeApiServer {
    let server = FakeApiServer::start();
    server.register(Resource::from_crd_yaml(crd, "v1alpha1"));
    server.insert(json!({
        "apiVersion": API_VERSION,
        "kind": "Stage",
        "metadata": {"name": "web-prod", "namespace": "default"},
        "spec": {"environment": "prod"},
    }));
    server
}

fn condition(kind: &str, status: &str) -> Value {
    json!({
        "type": kind,
        "status": status,
        "lastTransitionTime": "2026-01-01T00:00:00Z",
        "reason": format!("{kind}{status}"),
        "message": format!("{kind} is {status}"),
    })
}

fn conditions_config(conditions: &[Value]) -> Value {
    json!({
        "apiVersion": API_VERSION,
        "kind": "Stage",
        "metadata": {"name": "web-prod", "namespace": "default"},
        "status": {"conditions": conditions},
    })
}

/// Applies conditions to the status of `web-prod` as `manager`.
fn apply_conditions(
    server: &FakeApiServer,
    manager: &str,
    force: bool,
    conditions: &[Value],
) -> common::Response {
    let force = if force { "&force=true" } else { "" };
    apply(
        server,
        &format!("{STAGES}/web-prod/status?fieldManager={manager}{force}"),
        &conditions_config(conditions),
    )
}

fn types(obj: &Value) -> Vec<String> {
    obj["status"]["conditions"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|c| c["type"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The `fieldsV1` of `manager`'s entry, if it has one.
fn fields_of(obj: &Value, manager: &str) -> Option<Value> {
    obj["metadata"]["managedFields"]
        .as_array()?
        .iter()
        .find(|e| e["manager"] == manager)
        .map(|e| e["fieldsV1"].clone())
}

fn stored(server: &FakeApiServer) -> Value {
    server
        .get(API_VERSION, "Stage", None, "web-prod")
        .expect("web-prod is stored")
}

/// The `fieldsV1` node of one condition as kube-apiserver writes it.
fn owned_condition() -> Value {
    json!({".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}})
}

#[test]
fn from_crd_builds_the_resource_and_serves_it() {
    let stage = Resource::from_crd_yaml(STAGE_CRD, "v1alpha1");
    assert_eq!(stage.api_version(), API_VERSION);
    assert_eq!(
        (
            stage.kind.as_str(),
            stage.plural.as_str(),
            stage.singular.as_str()
        ),
        ("Stage", "stages", "stage")
    );
    assert!(stage.namespaced && stage.status_subresource);
    let schema = stage.schema.as_ref().expect("the version has a schema");
    assert_eq!(
        schema["properties"]["status"]["properties"]["conditions"]["x-kubernetes-list-map-keys"],
        json!(["type"])
    );
    let server = FakeApiServer::start();
    server.register(stage);
    let list = get(&server, "/apis/delivery.pacto.trianalab.io/v1alpha1").json();
    let names: Vec<&str> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["stages", "stages/status"]);
    assert_eq!(list["resources"][0]["singularName"], "stage");
    assert_eq!(list["resources"][0]["namespaced"], true);
}

#[test]
#[should_panic(expected = "no version v9")]
fn from_crd_of_a_version_not_served_panics() {
    Resource::from_crd_yaml(STAGE_CRD, "v9");
}

#[test]
fn list_map_managers_keep_their_own_conditions() {
    let server = stage_server(STAGE_CRD);
    let first = apply_conditions(&server, "controller", false, &[condition("Synced", "True")]);
    assert_eq!(first.status, 200, "{}", first.body);
    let second = apply_conditions(
        &server,
        PACTO,
        false,
        &[condition("Ready", "True"), condition("Mediated", "False")],
    );
    assert_eq!(second.status, 200, "{}", second.body);
    let obj = second.json();
    assert_eq!(types(&obj), ["Synced", "Ready", "Mediated"]);
    assert_eq!(obj["status"]["conditions"][0], condition("Synced", "True"));
    assert_eq!(obj["status"]["conditions"][1], condition("Ready", "True"));

    // Each manager's apply touches only its own conditions.
    let again = apply_conditions(
        &server,
        PACTO,
        false,
        &[condition("Ready", "False"), condition("Mediated", "True")],
    );
    assert_eq!(again.status, 200, "{}", again.body);
    let again = apply_conditions(
        &server,
        "controller",
        false,
        &[condition("Synced", "False")],
    );
    assert_eq!(again.status, 200, "{}", again.body);
    let obj = again.json();
    assert_eq!(
        obj["status"]["conditions"],
        json!([
            condition("Synced", "False"),
            condition("Ready", "False"),
            condition("Mediated", "True"),
        ])
    );
    assert_eq!(
        fields_of(&obj, "controller"),
        Some(json!({"f:status": {"f:conditions": {"k:{\"type\":\"Synced\"}": owned_condition()}}}))
    );

    // Another manager's condition with a different value conflicts, field by field.
    let mut changed = condition("Synced", "False");
    changed["status"] = json!("Unknown");
    let conflict = apply_conditions(&server, PACTO, false, &[changed.clone()]);
    assert_eq!(conflict.status, 409);
    let body = conflict.json();
    assert_eq!(
        body["message"],
        "Apply failed with 1 conflict: conflict with \"controller\": .status.conditions[type=\"Synced\"].status"
    );
    assert_eq!(
        body["details"]["causes"][0]["field"],
        ".status.conditions[type=\"Synced\"].status"
    );
    assert_eq!(
        types(&stored(&server)),
        ["Synced", "Ready", "Mediated"],
        "a refused apply changes nothing"
    );

    // The same value is shared ownership; force takes the field.
    let shared = apply_conditions(
        &server,
        PACTO,
        false,
        &[
            condition("Ready", "False"),
            condition("Mediated", "True"),
            condition("Synced", "False"),
        ],
    );
    assert_eq!(shared.status, 200, "{}", shared.body);
    let forced = apply_conditions(
        &server,
        PACTO,
        true,
        &[
            condition("Ready", "False"),
            condition("Mediated", "True"),
            changed,
        ],
    );
    assert_eq!(forced.status, 200, "{}", forced.body);
    let obj = forced.json();
    // Conditions both listed come out in the order of the apply.
    assert_eq!(types(&obj), ["Ready", "Mediated", "Synced"]);
    assert_eq!(obj["status"]["conditions"][2]["status"], "Unknown");
    let controller = fields_of(&obj, "controller").unwrap();
    let synced = &controller["f:status"]["f:conditions"]["k:{\"type\":\"Synced\"}"];
    assert!(synced.get("f:status").is_none(), "{controller}");
    assert!(synced.get("f:reason").is_some(), "{controller}");
}

#[test]
fn atomic_list_second_apply_replaces_the_first() {
    let server = stage_server(ATOMIC_CRD);
    let first = apply_conditions(&server, "controller", false, &[condition("Synced", "True")]);
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        fields_of(&first.json(), "controller"),
        Some(json!({"f:status": {"f:conditions": {}}}))
    );
    let mine = [condition("Ready", "True"), condition("Mediated", "False")];
    let conflict = apply_conditions(&server, PACTO, false, &mine);
    assert_eq!(conflict.status, 409);
    assert_eq!(
        conflict.json()["message"],
        "Apply failed with 1 conflict: conflict with \"controller\": .status.conditions"
    );
    let forced = apply_conditions(&server, PACTO, true, &mine);
    assert_eq!(forced.status, 200, "{}", forced.body);
    let obj = forced.json();
    assert_eq!(
        types(&obj),
        ["Ready", "Mediated"],
        "the whole list replaced"
    );
    assert_eq!(fields_of(&obj, "controller"), None);
    assert_eq!(
        fields_of(&obj, PACTO),
        Some(json!({"f:status": {"f:conditions": {}}}))
    );
    // The owner's next apply replaces the list whole again.
    let alone = apply_conditions(&server, PACTO, false, &[condition("Ready", "False")]);
    assert_eq!(alone.status, 200, "{}", alone.body);
    assert_eq!(
        alone.json()["status"]["conditions"],
        json!([condition("Ready", "False")])
    );
}

#[test]
fn a_manager_dropping_its_own_condition_removes_it() {
    let server = stage_server(STAGE_CRD);
    apply_conditions(&server, "controller", false, &[condition("Synced", "True")]);
    let both = apply_conditions(
        &server,
        PACTO,
        false,
        &[condition("Ready", "True"), condition("Mediated", "True")],
    );
    assert_eq!(types(&both.json()), ["Synced", "Ready", "Mediated"]);
    let ready_only = apply_conditions(&server, PACTO, false, &[condition("Ready", "True")]);
    assert_eq!(ready_only.status, 200, "{}", ready_only.body);
    let obj = ready_only.json();
    assert_eq!(types(&obj), ["Synced", "Ready"]);
    assert_eq!(
        fields_of(&obj, PACTO),
        Some(json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": owned_condition()}}}))
    );

    // A condition another manager also applied stays when one of them drops it.
    let shared = apply_conditions(
        &server,
        "controller",
        false,
        &[condition("Synced", "True"), condition("Ready", "True")],
    );
    assert_eq!(shared.status, 200, "{}", shared.body);
    let moved = apply_conditions(&server, PACTO, false, &[condition("Mediated", "False")]);
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert_eq!(types(&moved.json()), ["Synced", "Ready", "Mediated"]);

    // A field dropped from a kept condition goes; the condition stays.
    let mut terse = condition("Mediated", "False");
    terse.as_object_mut().unwrap().remove("message");
    let obj = apply_conditions(&server, PACTO, false, &[terse.clone()]).json();
    assert_eq!(obj["status"]["conditions"][2], terse);

    // An apply that lists no condition any more: the manager's conditions
    // go, and the list they leave empty with them.
    let server = stage_server(STAGE_CRD);
    apply_conditions(&server, PACTO, false, &[condition("Ready", "True")]);
    let mut config = conditions_config(&[]);
    config["status"] = json!({"pointer": "v1"});
    let none = apply(
        &server,
        &format!("{STAGES}/web-prod/status?fieldManager={PACTO}"),
        &config,
    );
    assert_eq!(none.status, 200, "{}", none.body);
    assert_eq!(none.json()["status"], json!({"pointer": "v1"}));
}

#[test]
fn managed_fields_name_conditions_by_key() {
    let server = stage_server(STAGE_CRD);
    let response = apply_conditions(
        &server,
        PACTO,
        false,
        &[condition("Ready", "True"), condition("Mediated", "False")],
    );
    assert_eq!(response.status, 200, "{}", response.body);
    let obj = response.json();
    let entries = obj["metadata"]["managedFields"].as_array().unwrap();
    let entry = entries.iter().find(|e| e["manager"] == PACTO).unwrap();
    assert_eq!(entry["operation"], "Apply");
    assert_eq!(entry["subresource"], "status");
    assert_eq!(entry["apiVersion"], API_VERSION);
    assert_eq!(entry["fieldsType"], "FieldsV1");
    assert_eq!(
        entry["fieldsV1"],
        json!({"f:status": {"f:conditions": {
            "k:{\"type\":\"Ready\"}": owned_condition(),
            "k:{\"type\":\"Mediated\"}": owned_condition(),
        }}})
    );
    // As kube-apiserver writes them: "." first, then fields by name.
    let ready = &entry["fieldsV1"]["f:status"]["f:conditions"]["k:{\"type\":\"Ready\"}"];
    assert_eq!(
        ready.to_string(),
        r#"{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}"#
    );
    assert_eq!(obj, stored(&server));
    // Applying the same again is a no-op.
    let again = apply_conditions(
        &server,
        PACTO,
        false,
        &[condition("Ready", "True"), condition("Mediated", "False")],
    );
    assert_eq!(rv(&again.json()), rv(&obj));
}

#[test]
fn inserted_managed_fields_with_keys_seed_per_condition_ownership() {
    let server = FakeApiServer::start();
    server.register(Resource::from_crd_yaml(STAGE_CRD, "v1alpha1"));
    server.insert(json!({
        "apiVersion": API_VERSION,
        "kind": "Stage",
        "metadata": {
            "name": "web-prod",
            "managedFields": [{
                "manager": "controller", "operation": "Update", "apiVersion": API_VERSION,
                "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "subresource": "status",
                "fieldsV1": {"f:status": {"f:conditions": {
                    ".": {},
                    "k:{\"type\":\"Synced\"}": owned_condition(),
                }}},
            }],
        },
        "status": {"conditions": [condition("Synced", "True")]},
    }));
    let ready = apply_conditions(&server, PACTO, false, &[condition("Ready", "True")]);
    assert_eq!(ready.status, 200, "{}", ready.body);
    assert_eq!(types(&ready.json()), ["Synced", "Ready"]);
    let synced = apply_conditions(&server, PACTO, false, &[condition("Synced", "False")]);
    assert_eq!(synced.status, 409);
    assert_eq!(
        synced.json()["details"]["causes"][0]["message"],
        "conflict with \"controller\""
    );
}

#[test]
fn a_condition_without_its_key_is_refused() {
    let server = stage_server(STAGE_CRD);
    let response = apply_conditions(&server, PACTO, false, &[json!({"status": "True"})]);
    assert_eq!(response.status, 500);
    let body = response.json();
    assert_eq!(body["kind"], "Status");
    assert_eq!(
        body["message"],
        "failed to create typed patch object (delivery.pacto.trianalab.io/v1alpha1, Kind=Stage): .status.conditions: element 0: associative list with keys has an element that omits key field \"type\" (and doesn't have default value)"
    );
    let twice = apply_conditions(
        &server,
        PACTO,
        false,
        &[condition("Ready", "True"), condition("Ready", "False")],
    );
    assert_eq!(twice.status, 500);
    assert!(
        twice.json()["message"]
            .as_str()
            .unwrap()
            .ends_with(".status.conditions: duplicate entries for key [type=\"Ready\"]"),
        "{}",
        twice.body
    );
    assert!(stored(&server)["status"].is_null(), "nothing stored");
}

#[test]
fn sets_merge_and_own_elements_by_value() {
    let server = FakeApiServer::start();
    server.register(widgets().with_schema(json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        }}},
    })));
    let config = |tags: &[&str], finalizers: &[&str]| {
        json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "finalizers": finalizers},
            "spec": {"tags": tags},
        })
    };
    let one = format!("{WIDGETS}/w?fieldManager=one");
    let two = format!("{WIDGETS}/w?fieldManager=two");
    let created = apply(&server, &one, &config(&["a", "b"], &["example.com/one"]));
    assert_eq!(created.status, 201, "{}", created.body);
    let obj = apply(&server, &two, &config(&["b", "c"], &["example.com/two"])).json();
    assert_eq!(obj["spec"]["tags"], json!(["a", "b", "c"]));
    assert_eq!(
        obj["metadata"]["finalizers"],
        json!(["example.com/one", "example.com/two"]),
        "metadata.finalizers is a set, as ObjectMeta declares it"
    );
    assert_eq!(
        fields_of(&obj, "one"),
        Some(json!({
            "f:metadata": {"f:finalizers": {"v:\"example.com/one\"": {}}},
            "f:spec": {"f:tags": {"v:\"a\"": {}, "v:\"b\"": {}}},
        }))
    );
    // `b` is also two's: it stays when one drops it; `a` was one's alone.
    let obj = apply(&server, &one, &config(&[], &["example.com/one"])).json();
    assert_eq!(obj["spec"]["tags"], json!(["b", "c"]));
    assert_eq!(
        fields_of(&obj, "one"),
        Some(json!({"f:metadata": {"f:finalizers": {"v:\"example.com/one\"": {}}}}))
    );
    // Without a schema the same lists are atomic.
    let plain = server_with_widgets();
    apply(
        &plain,
        &one,
        &json!({"metadata": {"name": "w"}, "spec": {"tags": ["a"]}}),
    );
    let conflict = apply(
        &plain,
        &two,
        &json!({"metadata": {"name": "w"}, "spec": {"tags": ["b"]}}),
    );
    assert_eq!(conflict.status, 409);
    assert_eq!(
        conflict.json()["message"],
        "Apply failed with 1 conflict: conflict with \"one\": .spec.tags"
    );
}

#[test]
fn openapi_v3_serves_the_crd_schema() {
    let server = stage_server(STAGE_CRD);
    server.register(widgets());
    let index = get(&server, "/openapi/v3").json();
    let url = index["paths"]["apis/delivery.pacto.trianalab.io/v1alpha1"]["serverRelativeURL"]
        .as_str()
        .expect("group/version entry")
        .to_string();
    let doc = get(&server, &url).json();
    let schemas = &doc["components"]["schemas"];
    let stage = &schemas["io.trianalab.pacto.delivery.v1alpha1.Stage"];
    assert_eq!(
        stage["x-kubernetes-group-version-kind"],
        json!([{"group": "delivery.pacto.trianalab.io", "kind": "Stage", "version": "v1alpha1"}])
    );
    let conditions = &stage["properties"]["status"]["properties"]["conditions"];
    assert_eq!(conditions["x-kubernetes-list-type"], "map");
    assert_eq!(conditions["x-kubernetes-list-map-keys"], json!(["type"]));
    let list = &schemas["io.trianalab.pacto.delivery.v1alpha1.StageList"];
    assert_eq!(
        list["x-kubernetes-group-version-kind"][0]["kind"],
        "StageList"
    );
    let reference = "#/components/schemas/io.trianalab.pacto.delivery.v1alpha1.Stage";
    assert_eq!(list["properties"]["items"]["items"]["$ref"], reference);

    let object = &doc["paths"]
        ["/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/{namespace}/stages/{name}"];
    assert_eq!(
        object["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        reference
    );
    assert_eq!(
        object["put"]["requestBody"]["content"]["*/*"]["schema"]["$ref"],
        reference
    );
    let patch_body = &object["patch"]["requestBody"]["content"]["application/apply-patch+yaml"]
        ["schema"]["$ref"];
    let patch_name = patch_body
        .as_str()
        .unwrap()
        .trim_start_matches("#/components/schemas/");
    assert!(schemas[patch_name].is_object(), "{patch_name}");
    let status = &doc["paths"]
        ["/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/{namespace}/stages/{name}/status"];
    assert_eq!(
        status["patch"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        reference
    );
    let collection =
        &doc["paths"]["/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/{namespace}/stages"];
    assert_eq!(
        collection["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/io.trianalab.pacto.delivery.v1alpha1.StageList"
    );

    // A kind without a schema keeps bare operations and adds no schemas.
    let widgets_doc = get(&server, "/openapi/v3/apis/example.com/v1").json();
    assert_eq!(widgets_doc["components"]["schemas"], json!({}));
    let widget_get =
        &widgets_doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]["get"];
    assert_eq!(
        widget_get["responses"],
        json!({"200": {"description": "OK"}})
    );
}

#[test]
fn merge_patch_with_a_stale_resource_version_is_a_conflict() {
    let server = stage_server(ATOMIC_CRD);
    let before = rv(&stored(&server));
    let written = apply_conditions(&server, "controller", false, &[condition("Synced", "True")]);
    assert_eq!(written.status, 200, "{}", written.body);
    let status_path = format!("{STAGES}/web-prod/status?fieldManager={PACTO}");
    let body = |version: &str| {
        json!({
            "metadata": {"resourceVersion": version},
            "status": {"conditions": [condition("Ready", "True"), condition("Mediated", "False")]},
        })
    };
    let stale = merge_patch(&server, &status_path, &body(&before));
    assert_eq!(stale.status, 409);
    assert_eq!(
        stale.json(),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Operation cannot be fulfilled on stages.delivery.pacto.trianalab.io \"web-prod\": the object has been modified; please apply your changes to the latest version and try again",
            "reason": "Conflict",
            "details": {"name": "web-prod", "group": "delivery.pacto.trianalab.io", "kind": "stages"},
            "code": 409,
        })
    );
    assert_eq!(types(&stored(&server)), ["Synced"], "nothing written");

    // With the current resourceVersion the merge patch replaces the list whole.
    let current = rv(&written.json());
    let fresh = merge_patch(&server, &status_path, &body(&current));
    assert_eq!(fresh.status, 200, "{}", fresh.body);
    let obj = fresh.json();
    assert_eq!(types(&obj), ["Ready", "Mediated"]);
    assert_ne!(rv(&obj), current);
    let entry = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == PACTO)
        .cloned()
        .unwrap();
    assert_eq!(entry["operation"], "Update");
    assert_eq!(entry["subresource"], "status");
    assert_eq!(entry["fieldsV1"], json!({"f:status": {"f:conditions": {}}}));
    assert_eq!(fields_of(&obj, "controller"), None);

    // A list-map does not change how a merge patch treats the list either.
    let server = stage_server(STAGE_CRD);
    apply_conditions(&server, "controller", false, &[condition("Synced", "True")]);
    let current = rv(&stored(&server));
    let replaced = merge_patch(&server, &status_path, &body(&current));
    assert_eq!(replaced.status, 200, "{}", replaced.body);
    let obj = replaced.json();
    assert_eq!(types(&obj), ["Ready", "Mediated"]);
    assert_eq!(
        fields_of(&obj, PACTO),
        Some(json!({"f:status": {"f:conditions": {
            "k:{\"type\":\"Ready\"}": owned_condition(),
            "k:{\"type\":\"Mediated\"}": owned_condition(),
        }}}))
    );
    let stale = merge_patch(&server, &status_path, &body(&current));
    assert_eq!(stale.status, 409);
}

#[test]
fn writes_are_counted_by_method_and_path() {
    let server = stage_server(STAGE_CRD);
    apply_conditions(&server, PACTO, false, &[condition("Ready", "True")]);
    apply_conditions(&server, PACTO, false, &[condition("Ready", "True")]);
    get(&server, &format!("{STAGES}/web-prod"));
    call(
        &server,
        "PATCH",
        &format!("{STAGES}/web-prod"),
        Some("application/merge-patch+json"),
        "{}",
    );
    let requests = server.requests();
    let status_path = format!("{STAGES}/web-prod/status");
    let status_patches = requests
        .iter()
        .filter(|r| r.method == "PATCH" && r.path == status_path)
        .count();
    assert_eq!(status_patches, 2);
    assert_eq!(requests.iter().filter(|r| r.is_write()).count(), 3);
    assert_eq!(requests.iter().filter(|r| !r.is_write()).count(), 1);
}
