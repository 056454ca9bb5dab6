//! Helpers for table tests that describe a case as edits of a base set of objects.

use serde_json::{json, Value};

/// JSON merge patch (RFC 7386): maps merge key by key, `null` deletes, anything else replaces.
pub fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = json!({});
            }
            let t = target.as_object_mut().expect("made a map above");
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// Whether `o` is the object of this kind and name.
pub fn is(o: &Value, kind: &str, name: &str) -> bool {
    o["kind"] == json!(kind) && o["metadata"]["name"] == json!(name)
}

/// Applies the edits of a case to `objects`: `merge: {kind, name, patch}` (a JSON merge patch),
/// `remove: {kind, name}`, `add: OBJECT`. Other edits are returned for the caller. Panics (a
/// broken table) when an edit names an object that is not there.
pub fn edit(objects: &mut Vec<Value>, edits: &Value) -> Vec<Value> {
    let mut rest = Vec::new();
    for e in edits.as_array().into_iter().flatten() {
        if let Some(m) = e.get("merge") {
            let (kind, name) = (m["kind"].as_str().unwrap(), m["name"].as_str().unwrap());
            let o = objects
                .iter_mut()
                .find(|o| is(o, kind, name))
                .unwrap_or_else(|| panic!("no {kind} {name} to edit"));
            merge(o, &m["patch"]);
        } else if let Some(r) = e.get("remove") {
            let (kind, name) = (r["kind"].as_str().unwrap(), r["name"].as_str().unwrap());
            let before = objects.len();
            objects.retain(|o| !is(o, kind, name));
            assert_eq!(objects.len(), before - 1, "no {kind} {name} to remove");
        } else if let Some(a) = e.get("add") {
            objects.push(a.clone());
        } else {
            rest.push(e.clone());
        }
    }
    rest
}

/// The objects of a YAML stream.
pub fn docs(text: &str) -> Vec<Value> {
    crate::object::parse_objects(text, "testdata")
        .expect("valid test objects")
        .into_iter()
        .map(|o| o.value)
        .collect()
}

/// `v` kept for the rest of the test run, for the views that borrow from it.
pub fn kept<T>(v: T) -> &'static T {
    Box::leak(Box::new(v))
}

/// The Flux base of the delivery tests (`delivery/testdata/base-flux.yaml`) with `n` more
/// Stages sharing its apply OCIRepository (copies of the Stage `test/payments` named
/// `payments-1`, ...) and `n` more Kustomizations applying it (copies of the Kustomization
/// `test/payments`, each labelled for its namesake Stage): a fleet misconfigured on purpose,
/// every Stage with `n + 1` appliers.
pub fn shared_apply_ref(n: usize) -> Vec<Value> {
    let mut objects = docs(include_str!("delivery/testdata/base-flux.yaml"));
    let first = |kind: &str| {
        objects
            .iter()
            .find(|o| o["kind"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("base-flux has a {kind}"))
    };
    let (stage, kustomization) = (first("Stage"), first("Kustomization"));
    for i in 1..=n {
        let name = format!("payments-{i}");
        let mut s = stage.clone();
        s["metadata"]["name"] = Value::from(name.as_str());
        objects.push(s);
        let mut k = kustomization.clone();
        k["metadata"]["name"] = Value::from(name.as_str());
        k["metadata"]["labels"]["delivery.pacto.trianalab.io/apply-ref"] = Value::from(name);
        objects.push(k);
    }
    objects
}
