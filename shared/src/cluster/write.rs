//! Writes of a status subresource, the only writes this tool makes (the one-shot reconcile):
//! server-side apply (`application/apply-patch+yaml`, `fieldManager`, `force`) and JSON merge
//! patch (`application/merge-patch+json`), with the retries and bounds of every request
//! (kube-apiserver `PATCH .../{name}/status`). Also the OpenAPI v3 document of a group version,
//! where the served schema says how lists merge.

use super::query::Query;
use super::request::Op;
use super::{Cluster, ClusterError, ServedKind};
use serde_json::Value;

/// How a status is patched.
#[derive(Debug, Clone, Copy)]
pub enum StatusPatch<'a> {
    /// Server-side apply under `manager`, taking ownership of conflicting fields (`force=true`).
    Apply { body: &'a Value, manager: &'a str },
    /// JSON merge patch under `manager`; a `metadata.resourceVersion` in the body makes the
    /// server refuse it (409) when the object changed since.
    Merge { body: &'a Value, manager: &'a str },
}

/// Whether an error is the API server's 409 Conflict.
pub fn is_conflict(e: &ClusterError) -> bool {
    matches!(e, ClusterError::Api { code: 409, .. })
}

impl Cluster {
    /// Patches the status subresource of `namespace/name`; returns the object as written.
    /// Errors: as every request (403 names the verb `patch` and `<plural>/status`, 409
    /// [`is_conflict`]); a 404 (the object was deleted) names the object as kubectl does,
    /// `stages.delivery.pacto.trianalab.io "payments" not found`; a success whose answer is
    /// not that object (another kind, name or namespace, a list: kube-apiserver answers a
    /// patch with the object it wrote) is [`ClusterError::Malformed`], as nothing says the
    /// write happened.
    pub async fn patch_status(
        &self,
        kind: &ServedKind,
        namespace: &str,
        name: &str,
        patch: StatusPatch<'_>,
    ) -> Result<Value, ClusterError> {
        let ns = kind.namespaced.then_some(namespace);
        let path = super::path::object(kind, ns, name, Some("status")).map_err(|e| *e)?;
        let (body, manager, content_type, force) = match patch {
            StatusPatch::Apply { body, manager } => {
                (body, manager, "application/apply-patch+yaml", true)
            }
            StatusPatch::Merge { body, manager } => {
                (body, manager, "application/merge-patch+json", false)
            }
        };
        let mut query = Query::new().add("fieldManager", manager);
        if force {
            query = query.add("force", "true");
        }
        let url = query.url(&path);
        let bytes = serde_json::to_vec(body).map_err(|e| ClusterError::Config(e.to_string()))?;
        let op = Op {
            verb: "patch",
            resource: format!("{}/status", kind.resource()),
            scope: match ns {
                Some(ns) => format!(" in namespace \"{ns}\""),
                None => String::new(),
            },
        };
        let written = self
            .call(&op, || {
                http::Request::patch(url.clone())
                    .header(http::header::CONTENT_TYPE, content_type)
                    .header(http::header::ACCEPT, "application/json")
                    .body(bytes.clone())
                    .map_err(|e| e.to_string())
            })
            .await
            .map_err(|e| match e {
                // The answer names the object, not its status subresource (kube-apiserver's
                // NewNotFound of the resource and name).
                ClusterError::NotFound { .. } => ClusterError::NotFound {
                    resource: kind.resource(),
                    name: name.to_string(),
                    scope: String::new(),
                },
                e => e,
            })?;
        let written = super::request::with_type(written, kind);
        let text = |p: &str| written.pointer(p).and_then(Value::as_str).unwrap_or("");
        let (got_kind, got_ns, got_name) = (
            text("/kind"),
            text("/metadata/namespace"),
            text("/metadata/name"),
        );
        if got_kind != kind.kind || got_name != name || ns.is_some_and(|n| n != got_ns) {
            return Err(op.malformed(format!(
                "the answer to the patch of {} \"{name}\" is not that object (a {got_kind:?} named {got_ns:?}/{got_name:?})",
                kind.resource()
            )));
        }
        Ok(written)
    }

    /// The OpenAPI v3 document of `group/version` (`/openapi/v3/apis/{group}/{version}`):
    /// schemas with their `x-kubernetes-list-type` markers.
    pub async fn openapi_v3(&self, group: &str, version: &str) -> Result<Value, ClusterError> {
        let url = super::path::openapi_v3(group, version).map_err(|e| *e)?;
        let op = Op {
            verb: "get",
            resource: format!("the OpenAPI schema of {group}/{version}"),
            scope: String::new(),
        };
        self.call(&op, || {
            http::Request::get(url.clone())
                .header(http::header::ACCEPT, "application/json")
                .body(Vec::new())
                .map_err(|e| e.to_string())
        })
        .await
    }
}
