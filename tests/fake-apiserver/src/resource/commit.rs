//! Shared steps of every write: body parsing, identity and precondition
//! checks, subresource confinement, and the commit that stamps
//! server-owned metadata and stores the object.

use serde_json::{json, Map, Value};

use super::Ctx;
use crate::http::Response;
use crate::managed::{self, ManagedEntry, Writer};
use crate::status;
use crate::store::{ObjKey, Store, Stored};
use crate::time::now_rfc3339;

/// The media type of a Content-Type header, lower case, without parameters.
pub(super) fn media_type(content_type: Option<&str>) -> String {
    content_type
        .and_then(|c| c.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Media types a create or update body may have.
const OBJECT_MEDIA_TYPES: &str = "application/json, application/yaml";

/// Parses a create or update body: JSON, or YAML when the Content-Type says
/// so. Protobuf and CBOR bodies get 415, since only JSON is served.
pub(super) fn parse_object(content_type: Option<&str>, body: &[u8]) -> Result<Value, Response> {
    let media = media_type(content_type);
    if media.contains("protobuf") || media.contains("cbor") {
        return Err(status::unsupported_media_type(&media, OBJECT_MEDIA_TYPES));
    }
    if media.contains("yaml") {
        return parse_json_or_yaml(body);
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| status::bad_request(&format!("error decoding request body: {e}")))?;
    if !value.is_object() {
        return Err(status::bad_request(
            "the request body must be a JSON object",
        ));
    }
    Ok(value)
}

pub(super) fn meta_str<'a>(obj: &'a Value, field: &str) -> Option<&'a str> {
    obj.get("metadata")?.get(field)?.as_str()
}

pub(super) fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.get("metadata").is_some_and(Value::is_object) {
        obj["metadata"] = json!({});
    }
    obj["metadata"]
        .as_object_mut()
        .expect("metadata was just made an object")
}

/// Rejects a body whose apiVersion, kind, name or namespace disagree with
/// the URL.
pub(super) fn check_identity(
    cx: &Ctx<'_>,
    body: &Value,
    name: Option<&str>,
) -> Result<(), Response> {
    let api_version = cx.res.api_version();
    if let Some(v) = body.get("apiVersion").and_then(Value::as_str) {
        if v != api_version {
            return Err(status::bad_request(&format!(
                "the API version in the data ({v}) does not match the expected API version ({api_version})"
            )));
        }
    }
    if let Some(k) = body.get("kind").and_then(Value::as_str) {
        if k != cx.res.kind {
            return Err(status::bad_request(&format!(
                "the kind in the data ({k}) does not match the expected kind ({})",
                cx.res.kind
            )));
        }
    }
    if let (Some(url_name), Some(body_name)) = (name, meta_str(body, "name")) {
        if url_name != body_name {
            return Err(status::bad_request(&format!(
                "the name of the object ({body_name}) does not match the name on the URL ({url_name})"
            )));
        }
    }
    if let (true, Some(url_ns), Some(body_ns)) = (
        cx.res.namespaced,
        cx.path.namespace.as_deref(),
        meta_str(body, "namespace"),
    ) {
        if !body_ns.is_empty() && url_ns != body_ns {
            return Err(status::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
    }
    Ok(())
}

/// Whether `candidate` carries a resourceVersion precondition that the
/// stored object does not meet.
pub(super) fn stale(candidate: &Value, stored: &Value) -> bool {
    match meta_str(candidate, "resourceVersion").filter(|v| !v.is_empty()) {
        Some(wanted) => Some(wanted) != meta_str(stored, "resourceVersion"),
        None => false,
    }
}

/// `base` with its `.status` replaced by `source`'s (or removed).
fn with_status_of(base: &Value, source: &Value) -> Value {
    let mut out = base.clone();
    if let Some(map) = out.as_object_mut() {
        match source.get("status") {
            Some(status) => {
                map.insert("status".into(), status.clone());
            }
            None => {
                map.remove("status");
            }
        }
    }
    out
}

/// Restricts a written object to what the request may change: only status
/// for a status write, everything but status on the main resource of a
/// kind with a status subresource.
pub(super) fn confine(cx: &Ctx<'_>, old: &Value, candidate: Value) -> Value {
    if cx.status_write {
        with_status_of(old, &candidate)
    } else if cx.res.status_subresource {
        with_status_of(&candidate, old)
    } else {
        candidate
    }
}

/// Everything but metadata and status, for generation bumps.
fn spec_part(obj: &Value) -> Value {
    let mut out = obj.clone();
    if let Some(map) = out.as_object_mut() {
        map.remove("metadata");
        map.remove("status");
    }
    out
}

/// Content compared for no-op detection.
fn comparable(obj: &Value) -> Value {
    let mut out = obj.clone();
    if let Some(meta) = out.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
        meta.remove("managedFields");
    }
    out
}

/// Stamps server-owned fields on `obj` and stores it (unless dry run).
/// A write that changes neither content nor ownership returns the stored
/// object untouched, without a new resourceVersion.
pub(super) fn commit(
    store: &mut Store,
    cx: &Ctx<'_>,
    key: &ObjKey,
    old: Option<&Stored>,
    mut obj: Value,
    mut entries: Vec<ManagedEntry>,
) -> Value {
    obj["apiVersion"] = json!(cx.res.api_version());
    obj["kind"] = json!(cx.res.kind);
    let old_generation = old
        .and_then(|o| o.object.pointer("/metadata/generation"))
        .and_then(Value::as_i64);
    let spec_changed =
        !cx.status_write && old.is_some_and(|o| spec_part(&o.object) != spec_part(&obj));
    let old_meta = old.and_then(|o| o.object.get("metadata").cloned());
    let meta = meta_mut(&mut obj);
    meta.insert("name".into(), json!(key.1));
    if cx.res.namespaced {
        meta.insert("namespace".into(), json!(key.0));
    } else {
        meta.remove("namespace");
    }
    for field in ["managedFields", "selfLink"] {
        meta.remove(field);
    }
    match &old_meta {
        Some(old_meta) => {
            for field in [
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
            ] {
                match old_meta.get(field) {
                    Some(v) => meta.insert(field.into(), v.clone()),
                    None => meta.remove(field),
                };
            }
            let generation = old_generation.unwrap_or(1) + i64::from(spec_changed);
            meta.insert("generation".into(), json!(generation));
            if let Some(rv) = old_meta.get("resourceVersion") {
                meta.insert("resourceVersion".into(), rv.clone());
            }
        }
        None => {
            meta.remove("deletionTimestamp");
            meta.remove("deletionGracePeriodSeconds");
            meta.remove("resourceVersion");
            meta.insert("creationTimestamp".into(), json!(now_rfc3339()));
            meta.insert("generation".into(), json!(1));
        }
    }
    managed::prune(&mut entries, &obj, cx.res.schema.as_ref());
    managed::sort_entries(&mut entries);
    if let Some(old) = old {
        if comparable(&old.object) == comparable(&obj)
            && managed::same_ownership(&old.managed, &entries)
        {
            return old.object.clone();
        }
    }
    let dry_run = cx.dry_run();
    if old.is_none() {
        let uid = if dry_run {
            String::new()
        } else {
            store.next_uid()
        };
        meta_mut(&mut obj).insert("uid".into(), json!(uid));
    }
    if !entries.is_empty() {
        meta_mut(&mut obj).insert("managedFields".into(), managed::render(&entries));
    }
    if dry_run {
        return obj;
    }
    let version = store.next_resource_version().to_string();
    meta_mut(&mut obj).insert("resourceVersion".into(), json!(version));
    let finalized = obj.pointer("/metadata/deletionTimestamp").is_some()
        && obj
            .pointer("/metadata/finalizers")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
    if finalized {
        store.remove(cx.res, key);
    } else {
        store.put(
            cx.res,
            key.clone(),
            Stored {
                object: obj.clone(),
                managed: entries,
            },
        );
    }
    obj
}

pub(super) fn writer<'a>(cx: &'a Ctx<'_>, now: &'a str, api_version: &'a str) -> Writer<'a> {
    Writer {
        manager: cx.manager(),
        api_version,
        scope: cx.scope(),
        now,
        schema: cx.res.schema.as_ref(),
    }
}

/// Parses a body that may be JSON or YAML (tried in that order).
pub(super) fn parse_json_or_yaml(body: &[u8]) -> Result<Value, Response> {
    let value = match serde_json::from_slice::<Value>(body) {
        Ok(value) => value,
        Err(_) => {
            let text = std::str::from_utf8(body).map_err(|_| {
                status::bad_request("the apply body is neither JSON nor UTF-8 YAML")
            })?;
            serde_saphyr::from_str::<Value>(text)
                .map_err(|e| status::bad_request(&format!("error decoding YAML: {e}")))?
        }
    };
    if !value.is_object() {
        return Err(status::bad_request("the body must be an object"));
    }
    Ok(value)
}
