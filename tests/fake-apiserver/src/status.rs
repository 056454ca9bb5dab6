//! `Status` error objects shaped like kube-apiserver's.

use serde_json::{json, Value};

use crate::http::Response;

/// The `reason` kube-apiserver uses for an HTTP status code.
pub(crate) fn reason_for(code: u16) -> &'static str {
    match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        406 => "NotAcceptable",
        409 => "Conflict",
        410 => "Expired",
        413 => "RequestEntityTooLarge",
        415 => "UnsupportedMediaType",
        422 => "Invalid",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "Unknown",
    }
}

/// The default message for a status code without a more specific one.
pub(crate) fn default_message(code: u16) -> String {
    match code {
        400 => "the server rejected our request for an unknown reason".into(),
        401 => "Unauthorized".into(),
        404 => "the server could not find the requested resource".into(),
        405 => "the server does not allow this method on the requested resource".into(),
        406 => "the server was unable to respond with a content type that the client supports".into(),
        410 => "the resourceVersion for the provided list is too old".into(),
        413 => "the server has rejected the request because it is too large".into(),
        415 => "the server does not support the media type sent in the request".into(),
        422 => "the server rejected our request due to an error in our request".into(),
        429 => "the server has received too many requests and has asked us to try again later".into(),
        500 => "an error on the server has prevented the request from succeeding".into(),
        503 => "the server is currently unable to handle the request".into(),
        504 => "the server was unable to return a response in the time allotted, but may still be processing the request".into(),
        other => format!("the server responded with the status code {other}"),
    }
}

/// A failure `Status` object.
pub(crate) fn status_value(
    code: u16,
    reason: &str,
    message: &str,
    details: Option<Value>,
) -> Value {
    let mut status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    });
    if let Some(details) = details {
        status["details"] = details;
    }
    status["code"] = json!(code);
    status
}

/// A failure `Status` response.
pub(crate) fn reply(code: u16, reason: &str, message: &str, details: Option<Value>) -> Response {
    Response::json(code, &status_value(code, reason, message, details))
}

/// `plural` for core resources, `plural.group` otherwise.
pub(crate) fn qualified(plural: &str, group: &str) -> String {
    if group.is_empty() {
        plural.to_string()
    } else {
        format!("{plural}.{group}")
    }
}

/// `details` of an answer about one object; `StatusDetails` omits an empty group or name.
fn object_details(plural: &str, group: &str, name: &str) -> Value {
    let mut d = json!({"kind": plural});
    if !name.is_empty() {
        d["name"] = json!(name);
    }
    if !group.is_empty() {
        d["group"] = json!(group);
    }
    d
}

/// 404 for a path the server does not serve.
pub(crate) fn not_found_generic() -> Response {
    reply(404, "NotFound", &default_message(404), Some(json!({})))
}

/// 404 for a missing object: `<plural>.<group> "<name>" not found`.
pub(crate) fn not_found(plural: &str, group: &str, name: &str) -> Response {
    reply(
        404,
        "NotFound",
        &format!("{} \"{name}\" not found", qualified(plural, group)),
        Some(object_details(plural, group, name)),
    )
}

/// 409 AlreadyExists for a create of an existing object.
pub(crate) fn already_exists(plural: &str, group: &str, name: &str) -> Response {
    reply(
        409,
        "AlreadyExists",
        &format!("{} \"{name}\" already exists", qualified(plural, group)),
        Some(object_details(plural, group, name)),
    )
}

/// 409 Conflict for a stale resourceVersion.
pub(crate) fn conflict_modified(plural: &str, group: &str, name: &str) -> Response {
    reply(
        409,
        "Conflict",
        &format!(
            "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
            qualified(plural, group)
        ),
        Some(object_details(plural, group, name)),
    )
}

/// 409 Conflict for a server-side apply with field-manager conflicts;
/// `conflicts` holds `(manager, ".dotted.field")` pairs.
pub(crate) fn apply_conflict(
    plural: &str,
    group: &str,
    name: &str,
    conflicts: &[(String, String)],
) -> Response {
    let noun = if conflicts.len() == 1 {
        "conflict"
    } else {
        "conflicts"
    };
    let lines: Vec<String> = conflicts
        .iter()
        .map(|(manager, field)| format!("conflict with \"{manager}\": {field}"))
        .collect();
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|(manager, field)| {
            json!({
                "reason": "FieldManagerConflict",
                "message": format!("conflict with \"{manager}\""),
                "field": field,
            })
        })
        .collect();
    let mut details = object_details(plural, group, name);
    details["causes"] = Value::Array(causes);
    reply(
        409,
        "Conflict",
        &format!(
            "Apply failed with {} {noun}: {}",
            conflicts.len(),
            lines.join("\n")
        ),
        Some(details),
    )
}

/// 500 without a reason, as kube-apiserver answers an applied
/// configuration that does not fit the schema (a list-map element without
/// its key fields, an entry given twice): `apiVersion` is `group/version`.
pub(crate) fn typed_patch_failed(api_version: &str, kind: &str, detail: &str) -> Response {
    let api_version = if api_version.contains('/') {
        api_version.to_string()
    } else {
        format!("/{api_version}")
    };
    let mut status = status_value(
        500,
        "",
        &format!("failed to create typed patch object ({api_version}, Kind={kind}): {detail}"),
        None,
    );
    if let Some(map) = status.as_object_mut() {
        map.remove("reason");
    }
    Response::json(500, &status)
}

/// 400 BadRequest with a message.
pub(crate) fn bad_request(message: &str) -> Response {
    reply(400, "BadRequest", message, None)
}

/// 422 Invalid for an object that cannot be stored.
pub(crate) fn invalid(plural: &str, group: &str, name: &str, message: &str) -> Response {
    reply(
        422,
        "Invalid",
        &format!(
            "{} \"{name}\" is invalid: {message}",
            qualified(plural, group)
        ),
        Some(object_details(plural, group, name)),
    )
}

/// 405 MethodNotAllowed.
pub(crate) fn method_not_allowed() -> Response {
    reply(
        405,
        "MethodNotAllowed",
        &default_message(405),
        Some(json!({})),
    )
}

/// 415 UnsupportedMediaType for a body type the endpoint does not accept;
/// `accepted` lists the media types it does.
pub(crate) fn unsupported_media_type(content_type: &str, accepted: &str) -> Response {
    reply(
        415,
        "UnsupportedMediaType",
        &format!(
            "the body of the request was in an unknown format - accepted media types include: {accepted} (got \"{content_type}\")"
        ),
        None,
    )
}

/// 500 InternalError.
pub(crate) fn internal_error(detail: &str) -> Response {
    reply(
        500,
        "InternalError",
        &format!("Internal error occurred: {detail}"),
        Some(json!({"causes": [{"message": detail}]})),
    )
}
