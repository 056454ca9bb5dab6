//! The table of `testdata/cases.yaml` (argo-cd `controller/health_test.go`).

use super::*;
use crate::argo::settings::parse_configmap;
use serde_json::json;

fn live_object(fixtures: &Value, entry: &Value) -> Option<Value> {
    let name = entry.get("live")?.as_str()?;
    let mut o = fixtures.get(name).cloned().unwrap_or_else(|| json!({}));
    let s = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or("");
    let api_version = match s("group") {
        "" => s("version").to_string(),
        g => format!("{g}/{}", s("version")),
    };
    o["apiVersion"] = json!(api_version);
    o["kind"] = json!(s("kind"));
    o["metadata"]["name"] = json!(s("name"));
    o["metadata"]["namespace"] = json!(s("namespace"));
    if let Some(a) = entry.get("annotations") {
        o["metadata"]["annotations"] = a.clone();
    }
    Some(o)
}

fn row(j: &Judged) -> String {
    let h = match &j.health {
        None => "-".to_string(),
        Some(h) if h.status.is_empty() => "\"\"".to_string(),
        Some(h) => h.status.clone(),
    };
    format!("{} {h} {:?}", j.name, j.counted)
}

#[test]
fn the_cases_of_the_controller() {
    let doc: Value =
        serde_saphyr::from_str(include_str!("testdata/cases.yaml")).expect("cases.yaml");
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let cm = json!({"kind": "ConfigMap", "data": case.get("cm").cloned().unwrap_or(json!({}))});
        let engine = ArgoHealth::new(parse_configmap(&cm).unwrap(), None, 0);
        let entries = case["resources"].as_array().unwrap();
        let live: Vec<Value> = entries
            .iter()
            .filter_map(|e| live_object(&doc["fixtures"], e))
            .collect();
        let app = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {"name": "app", "namespace": "argocd"},
            "status": {"resources": entries}});
        let rs = resources(&app, &live).unwrap();
        let got = app_health(&app, &rs, &engine);
        let want = &case["want"];
        assert_eq!(got.status, want["status"].as_str().unwrap(), "{name}");
        assert_eq!(got.message, want["message"].as_str().unwrap(), "{name}");
        assert_eq!(
            got.error.as_deref(),
            want.get("error").and_then(Value::as_str),
            "{name}"
        );
        let order: Vec<String> = got.resources.iter().map(row).collect();
        let want_order: Vec<String> = want["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(order, want_order, "{name}");
    }
}

/// gitops-engine `IsWorse` over `healthOrder`.
#[test]
fn is_worse_follows_the_health_order() {
    for (i, a) in HEALTH_ORDER.iter().enumerate() {
        for (j, b) in HEALTH_ORDER.iter().enumerate() {
            assert_eq!(is_worse(a, b), j > i, "{a} {b}");
        }
    }
    assert!(!is_worse("Healthy", "Bogus"));
    assert!(!is_worse("Bogus", "Healthy"));
}

/// appcontroller.go `isSelfReferencedApp`: the Application among its own resources is left out.
#[test]
fn the_application_itself_does_not_count() {
    let app = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "app", "namespace": "argocd", "uid": "u1"},
        "status": {"resources": [
            {"group": "argoproj.io", "version": "v1alpha1", "kind": "Application",
             "namespace": "argocd", "name": "app"}]}});
    let cm = json!({"kind": "ConfigMap", "data": {
        "resource.customizations.health.argoproj.io_Application": "return {status = 'Degraded'}"}});
    let engine = ArgoHealth::new(parse_configmap(&cm).unwrap(), None, 0);
    let live = vec![app.clone()];
    let got = app_health(&app, &resources(&app, &live).unwrap(), &engine);
    assert_eq!(got.status, "Healthy");
    assert_eq!(got.resources[0].counted, Counted::SelfReference);
}

#[test]
fn bad_status_resources_are_errors() {
    let app = json!({"status": {"resources": {"a": 1}}});
    assert_eq!(
        resources(&app, &[]).unwrap_err(),
        "status.resources: not a list"
    );
    let app = json!({"status": {"resources": [1]}});
    assert_eq!(
        resources(&app, &[]).unwrap_err(),
        "status.resources[0]: not an object"
    );
}
