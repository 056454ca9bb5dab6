//! Resource endpoints: list, watch, get, create, update, patch (merge, JSON,
//! strategic for core kinds, server-side apply) and delete.

mod commit;
mod read;
pub(crate) use read::{event_line, Filter};
mod write;

use crate::http::{RawRequest, Response};
use crate::managed::Scope;
use crate::route::{Query, ResourcePath};
use crate::status;
use crate::store::{ObjKey, Store};
use crate::Resource;

/// Success or failure, both answered as they are.
type Reply = Result<Response, Response>;

/// A request against one registered resource.
struct Ctx<'a> {
    res: &'a Resource,
    path: &'a ResourcePath,
    query: &'a Query,
    /// The request addresses the status subresource.
    status_write: bool,
}

impl Ctx<'_> {
    fn key(&self, name: &str) -> ObjKey {
        (
            self.path.namespace.clone().unwrap_or_default(),
            name.to_string(),
        )
    }

    fn scope(&self) -> Scope {
        if self.status_write {
            Scope::Status
        } else {
            Scope::Main {
                include_status: !self.res.status_subresource,
            }
        }
    }

    fn dry_run(&self) -> bool {
        self.query.get("dryRun").is_some_and(|v| v == "All")
    }

    fn manager(&self) -> &str {
        self.query
            .get("fieldManager")
            .filter(|m| !m.is_empty())
            .unwrap_or("unknown")
    }

    fn not_found(&self, name: &str) -> Response {
        status::not_found(&self.res.plural, &self.res.group, name)
    }

    fn conflict(&self, name: &str) -> Response {
        status::conflict_modified(&self.res.plural, &self.res.group, name)
    }
}

/// Answers a request on a resource path.
pub(crate) fn handle(
    store: &mut Store,
    req: &RawRequest,
    path: &ResourcePath,
    query: &Query,
) -> Response {
    match dispatch(store, req, path, query) {
        Ok(response) | Err(response) => response,
    }
}

fn dispatch(store: &mut Store, req: &RawRequest, path: &ResourcePath, query: &Query) -> Reply {
    let res = store
        .resource(&path.group, &path.version, &path.plural)
        .cloned()
        .ok_or_else(status::not_found_generic)?;
    let misplaced = if res.namespaced {
        path.namespace.is_none() && path.name.is_some()
    } else {
        path.namespace.is_some()
    };
    if misplaced {
        return Err(status::not_found_generic());
    }
    let status_write = match path.subresource.as_deref() {
        None => false,
        Some("status") if res.status_subresource => true,
        Some(_) => return Err(status::not_found_generic()),
    };
    let cx = Ctx {
        res: &res,
        path,
        query,
        status_write,
    };
    match (req.method.as_str(), path.name.as_deref()) {
        ("GET" | "HEAD", None) if query.flag("watch") => read::watch(store, &cx),
        ("GET" | "HEAD", None) => read::list(store, &cx),
        ("GET" | "HEAD", Some(name)) => read::get(store, &cx, name),
        ("POST", None) if res.namespaced && path.namespace.is_none() => {
            Err(status::method_not_allowed())
        }
        ("POST", None) => write::create(store, &cx, req.header("content-type"), &req.body),
        ("PUT", Some(name)) => {
            write::update(store, &cx, name, req.header("content-type"), &req.body)
        }
        ("PATCH", Some(name)) => {
            write::patch(store, &cx, name, req.header("content-type"), &req.body)
        }
        ("DELETE", Some(name)) if !status_write => write::delete(store, &cx, name),
        _ => Err(status::method_not_allowed()),
    }
}
