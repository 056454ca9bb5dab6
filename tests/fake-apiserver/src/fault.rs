//! Fault injection: rules that answer matching requests with an error
//! status, delay them, or drop the connection.

use std::time::Duration;

use serde_json::{json, Value};

use crate::http::{RawRequest, Response};
use crate::route::{self, Query, Route};
use crate::status;

/// The user named in injected RBAC denials.
const DENIED_USER: &str = "system:serviceaccount:default:pacto";

/// A fault rule. Before normal handling, the first rule (in insertion order)
/// that matches a request and has firings left fires, and its `times` count
/// goes down by one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Only requests with this method (case-insensitive) match; `None`
    /// matches every method.
    pub method: Option<String>,
    /// Only requests whose path (without query) contains this string match;
    /// `""` matches every path.
    pub path_contains: String,
    /// What happens to a matching request.
    pub action: FaultAction,
    /// How many more times the rule fires; `None` means forever.
    pub times: Option<usize>,
}

/// What a firing [`Fault`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultAction {
    /// Answer with a kube-apiserver style `Status` of this HTTP code
    /// (403 names the verb and resource like an RBAC denial; 429 carries
    /// `Retry-After: 1`; 500 says "Internal error occurred: injected fault").
    Status(u16),
    /// Wait this long, then handle the request normally.
    Delay(Duration),
    /// Read the request, then close the connection without answering.
    Drop,
    /// Answer 200 with a JSON content type and a body that never ends (no length, the
    /// connection closes only when the client goes away).
    EndlessBody,
    /// Answer 200 with a JSON content type and exactly these bytes as the body (a hostile or
    /// broken answer: nested without end, not JSON, a list of the wrong shape).
    Body(Vec<u8>),
    /// Answer with this HTTP code and this JSON body, whatever was asked: a hostile or broken
    /// server's answer (another object than the one named in the path, a list whose items
    /// lack a field the real server always sets). Nothing is stored.
    Reply(u16, Value),
    /// Read the request and never answer: the connection stays open, silent, until the client
    /// closes it (a server that accepts connections and never answers). With
    /// `Fault::always("", FaultAction::Silence)`, every request hangs, discovery included.
    Silence,
    /// Answer `200 OK` with a JSON content type and then no byte of the body, the connection
    /// held open until the client closes it: a watch opened that never sends an event.
    Stall,
    /// Answer every list page with `per_page` copies of `item` (each named `{name}-{page}-{i}`
    /// after the item's own `metadata.name`) and a `continue` token that is new on every page,
    /// so that a client following the tokens never reaches the end.
    EndlessPages {
        /// The object each page repeats.
        item: Value,
        /// How many items a page holds.
        per_page: usize,
    },
    /// Answer 200 and send this line (a watch event, newline included) again and again, as
    /// fast as the client reads, until the client goes away: a watch that is always readable
    /// and never ends.
    FloodWatch(Vec<u8>),
    /// Answer 200 and send the start of a watch event, then one more byte (a space) every
    /// this long, never a newline, until the client goes away: a watch that is always about
    /// to send an event and never does.
    Trickle(Duration),
    /// Answer 200 and send `ADDED` events of `item` without end, as fast as the client
    /// reads, each a new object (named `{name}-{i}` after the item's own `metadata.name`, with
    /// resourceVersion `i`, from 1) and never its deletion: a watch whose objects keep growing
    /// in number.
    FloodNewObjects(Value),
}

impl Fault {
    /// A rule that fires on every request whose path contains `path_contains`.
    pub fn always(path_contains: &str, action: FaultAction) -> Fault {
        Fault {
            method: None,
            path_contains: path_contains.to_string(),
            action,
            times: None,
        }
    }

    /// A rule that fires on the first matching request only.
    pub fn once(path_contains: &str, action: FaultAction) -> Fault {
        Fault::limited(path_contains, action, 1)
    }

    /// A rule that fires on the first `times` matching requests.
    pub fn limited(path_contains: &str, action: FaultAction, times: usize) -> Fault {
        Fault {
            times: Some(times),
            ..Fault::always(path_contains, action)
        }
    }

    /// The same rule restricted to one HTTP method, e.g. `"PATCH"`.
    pub fn on_method(mut self, method: &str) -> Fault {
        self.method = Some(method.to_string());
        self
    }

    fn matches(&self, method: &str, path: &str) -> bool {
        self.times != Some(0)
            && self
                .method
                .as_deref()
                .is_none_or(|m| m.eq_ignore_ascii_case(method))
            && path.contains(&self.path_contains)
    }
}

/// Page `page` of an [`FaultAction::EndlessPages`] answer: the items, and a `continue` token
/// no page had before.
pub(crate) fn endless_page(item: &Value, per_page: usize, page: u64) -> Value {
    let name = item
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("item");
    let items: Vec<Value> = (0..per_page)
        .map(|i| {
            let mut o = item.clone();
            o["metadata"]["name"] = json!(format!("{name}-{page}-{i}"));
            o
        })
        .collect();
    json!({
        "kind": "List",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "1", "continue": format!("page-{}", page + 1)},
        "items": items,
    })
}

/// The `i`th event line of [`FaultAction::FloodNewObjects`], newline included.
pub(crate) fn new_object_event(item: &Value, i: u64) -> Vec<u8> {
    let name = item
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("item");
    let mut o = item.clone();
    o["metadata"]["name"] = json!(format!("{name}-{i}"));
    o["metadata"]["resourceVersion"] = json!(i.to_string());
    let mut line = serde_json::to_vec(&json!({"type": "ADDED", "object": o})).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Fires the first matching rule, if any, and returns its action.
pub(crate) fn take(faults: &mut [Fault], method: &str, path: &str) -> Option<FaultAction> {
    let fault = faults.iter_mut().find(|f| f.matches(method, path))?;
    if let Some(times) = fault.times.as_mut() {
        *times -= 1;
    }
    Some(fault.action.clone())
}

/// The RBAC verb of a request.
fn verb(req: &RawRequest, named: bool, query: &Query) -> &'static str {
    match (req.method.as_str(), named) {
        ("GET" | "HEAD", true) => "get",
        ("GET" | "HEAD", false) if query.flag("watch") => "watch",
        ("GET" | "HEAD", false) => "list",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", true) => "delete",
        ("DELETE", false) => "deletecollection",
        _ => "get",
    }
}

/// The response for an injected `Status(code)` fault.
pub(crate) fn status_response(code: u16, req: &RawRequest) -> Response {
    let query = Query::parse(&req.query);
    let target = match route::parse(&req.path) {
        Route::Resource(path) => Some(path),
        _ => None,
    };
    let group = target.as_ref().map_or("", |p| p.group.as_str());
    let plural = target.as_ref().map_or("", |p| p.plural.as_str());
    let name = target.as_ref().and_then(|p| p.name.as_deref());
    match code {
        403 => match &target {
            Some(path) => {
                let scope = match path.rbac_namespace() {
                    Some(ns) => format!("in the namespace \"{ns}\""),
                    None => "at the cluster scope".to_string(),
                };
                let subject = match name {
                    Some(name) => format!("{} \"{name}\"", status::qualified(plural, group)),
                    None => status::qualified(plural, group),
                };
                let message = format!(
                    "{subject} is forbidden: User \"{DENIED_USER}\" cannot {} resource \"{}\" in API group \"{group}\" {scope}",
                    verb(req, name.is_some(), &query),
                    path.rbac_resource(),
                );
                let mut details = json!({"group": group, "kind": plural});
                if let Some(name) = name {
                    details["name"] = json!(name);
                }
                status::reply(403, "Forbidden", &message, Some(details))
            }
            None => status::reply(
                403,
                "Forbidden",
                &format!(
                    "forbidden: User \"{DENIED_USER}\" cannot {} path \"{}\"",
                    req.method.to_ascii_lowercase(),
                    req.path
                ),
                Some(json!({})),
            ),
        },
        404 => match name {
            Some(name) => status::not_found(plural, group, name),
            None => status::not_found_generic(),
        },
        409 => status::conflict_modified(plural, group, name.unwrap_or("")),
        429 => status::reply(
            429,
            "TooManyRequests",
            &status::default_message(429),
            Some(json!({"retryAfterSeconds": 1})),
        )
        .with_header("Retry-After", "1"),
        500 => status::internal_error("injected fault"),
        other => status::reply(
            other,
            status::reason_for(other),
            &status::default_message(other),
            None,
        ),
    }
}
