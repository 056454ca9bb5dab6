//! Writing: create, update, patch (merge, JSON, strategic for core kinds,
//! server-side apply) and delete.

use serde_json::{json, Value};

use super::commit::{
    check_identity, commit, confine, media_type, meta_mut, meta_str, parse_json_or_yaml,
    parse_object, stale, writer,
};
use super::{Ctx, Reply};
use crate::apply::{self, Apply, ApplyError};
use crate::http::Response;
use crate::managed;
use crate::patch;
use crate::status;
use crate::store::{ObjKey, Store, Stored};
use crate::time::now_rfc3339;
use crate::validate;

pub(super) fn create(
    store: &mut Store,
    cx: &Ctx<'_>,
    content_type: Option<&str>,
    body: &[u8],
) -> Reply {
    let mut obj = parse_object(content_type, body)?;
    check_identity(cx, &obj, None)?;
    let name = match meta_str(&obj, "name").filter(|n| !n.is_empty()) {
        Some(name) => name.to_string(),
        None => match meta_str(&obj, "generateName").filter(|n| !n.is_empty()) {
            Some(prefix) => format!("{prefix}{}", store.name_suffix()),
            None => {
                return Err(validate::invalid(
                    &cx.res.kind,
                    &cx.res.group,
                    "",
                    &[validate::FieldError {
                        reason: "FieldValueRequired",
                        field: "metadata.name".into(),
                        body: "Required value: name or generateName is required".into(),
                    }],
                ))
            }
        },
    };
    let label = cx.res.group.is_empty() && cx.res.plural == "namespaces";
    let errors = validate::name_errors(&name, label);
    if !errors.is_empty() {
        return Err(validate::invalid(
            &cx.res.kind,
            &cx.res.group,
            &name,
            &errors,
        ));
    }
    meta_mut(&mut obj).insert("name".into(), json!(name));
    if cx.res.status_subresource {
        if let Some(map) = obj.as_object_mut() {
            map.remove("status");
        }
    }
    let key = cx.key(&name);
    if store.get(cx.res, &key).is_some() {
        return Err(status::already_exists(&cx.res.plural, &cx.res.group, &name));
    }
    let now = now_rfc3339();
    let api_version = cx.res.api_version();
    let mut entries = Vec::new();
    managed::record_update(&mut entries, &writer(cx, &now, &api_version), None, &obj);
    let out = commit(store, cx, &key, None, obj, entries);
    Ok(Response::json(201, &out))
}

pub(super) fn update(
    store: &mut Store,
    cx: &Ctx<'_>,
    name: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> Reply {
    let body = parse_object(content_type, body)?;
    check_identity(cx, &body, Some(name))?;
    let key = cx.key(name);
    let old = store
        .get(cx.res, &key)
        .cloned()
        .ok_or_else(|| cx.not_found(name))?;
    if stale(&body, &old.object) {
        return Err(cx.conflict(name));
    }
    let candidate = confine(cx, &old.object, body);
    write_over(store, cx, &key, old, candidate)
}

/// Records a non-apply write of `candidate` over `old` and commits it.
fn write_over(
    store: &mut Store,
    cx: &Ctx<'_>,
    key: &ObjKey,
    old: Stored,
    candidate: Value,
) -> Reply {
    let now = now_rfc3339();
    let api_version = cx.res.api_version();
    let mut entries = old.managed.clone();
    managed::record_update(
        &mut entries,
        &writer(cx, &now, &api_version),
        Some(&old.object),
        &candidate,
    );
    let out = commit(store, cx, key, Some(&old), candidate, entries);
    Ok(Response::json(200, &out))
}

pub(super) fn patch(
    store: &mut Store,
    cx: &Ctx<'_>,
    name: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> Reply {
    let media = media_type(content_type);
    let json_patch = match media.as_str() {
        "application/apply-patch+yaml" => return server_side_apply(store, cx, name, body),
        "application/merge-patch+json" => false,
        "application/strategic-merge-patch+json" if cx.res.group.is_empty() => false,
        "application/json-patch+json" => true,
        _ => {
            return Err(status::unsupported_media_type(
                &media,
                "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
            ))
        }
    };
    let document: Value = serde_json::from_slice(body)
        .map_err(|e| status::bad_request(&format!("error decoding patch: {e}")))?;
    let key = cx.key(name);
    let old = store
        .get(cx.res, &key)
        .cloned()
        .ok_or_else(|| cx.not_found(name))?;
    let patched = if json_patch {
        patch::json_patch(old.object.clone(), &document)
            .map_err(|e| status::invalid(&cx.res.plural, &cx.res.group, name, &e))?
    } else {
        let mut target = old.object.clone();
        patch::merge_patch(&mut target, &document);
        target
    };
    if !patched.is_object() {
        return Err(status::bad_request(
            "the patched object is not a JSON object",
        ));
    }
    if stale(&patched, &old.object) {
        return Err(cx.conflict(name));
    }
    let candidate = confine(cx, &old.object, patched);
    write_over(store, cx, &key, old, candidate)
}

fn server_side_apply(store: &mut Store, cx: &Ctx<'_>, name: &str, body: &[u8]) -> Reply {
    let manager = cx
        .query
        .get("fieldManager")
        .filter(|m| !m.is_empty())
        .ok_or_else(|| {
            status::bad_request(
                "PATCH /apply requests require a fieldManager: set the fieldManager query parameter",
            )
        })?;
    let applied = parse_json_or_yaml(body)?;
    check_identity(cx, &applied, Some(name))?;
    let key = cx.key(name);
    let old = store.get(cx.res, &key).cloned();
    if old.is_none() && cx.status_write {
        return Err(cx.not_found(name));
    }
    if let Some(wanted) = meta_str(&applied, "resourceVersion").filter(|v| !v.is_empty()) {
        if old
            .as_ref()
            .and_then(|o| meta_str(&o.object, "resourceVersion"))
            != Some(wanted)
        {
            return Err(cx.conflict(name));
        }
    }
    let (base, entries) = match &old {
        Some(old) => (old.object.clone(), old.managed.clone()),
        None => {
            let mut skeleton = json!({
                "apiVersion": cx.res.api_version(),
                "kind": cx.res.kind,
                "metadata": {"name": name},
            });
            if let Some(ns) = &cx.path.namespace {
                skeleton["metadata"]["namespace"] = json!(ns);
            }
            (skeleton, Vec::new())
        }
    };
    let now = now_rfc3339();
    let api_version = applied
        .get("apiVersion")
        .and_then(Value::as_str)
        .map_or_else(|| cx.res.api_version(), str::to_string);
    let request = Apply {
        manager,
        force: cx.query.flag("force"),
        scope: cx.scope(),
        api_version: &api_version,
        now: &now,
        schema: cx.res.schema.as_ref(),
    };
    let (obj, entries) = apply::server_side_apply(&base, entries, &applied, &request).map_err(
        |error| match error {
            ApplyError::Conflicts(conflicts) => {
                status::apply_conflict(&cx.res.plural, &cx.res.group, name, &conflicts)
            }
            ApplyError::Invalid(message) => {
                status::typed_patch_failed(&cx.res.api_version(), &cx.res.kind, &message)
            }
        },
    )?;
    let created = old.is_none();
    let out = commit(store, cx, &key, old.as_ref(), obj, entries);
    Ok(Response::json(if created { 201 } else { 200 }, &out))
}

pub(super) fn delete(store: &mut Store, cx: &Ctx<'_>, name: &str) -> Reply {
    let key = cx.key(name);
    let old = store
        .get(cx.res, &key)
        .cloned()
        .ok_or_else(|| cx.not_found(name))?;
    let mut obj = old.object.clone();
    let has_finalizers = obj
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty());
    if has_finalizers && obj.pointer("/metadata/deletionTimestamp").is_some() {
        return Ok(Response::json(200, &obj));
    }
    if cx.dry_run() {
        return Ok(Response::json(200, &obj));
    }
    let version = store.next_resource_version().to_string();
    let meta = meta_mut(&mut obj);
    meta.insert("resourceVersion".into(), json!(version));
    if has_finalizers {
        meta.insert("deletionTimestamp".into(), json!(now_rfc3339()));
        meta.insert("deletionGracePeriodSeconds".into(), json!(0));
        store.put(
            cx.res,
            key,
            Stored {
                object: obj.clone(),
                managed: old.managed,
            },
        );
    } else {
        store.remove(cx.res, &key);
    }
    Ok(Response::json(200, &obj))
}
