//! Reading: list (selectors, paging), watch and get.

use serde_json::{json, Map, Value};

use super::{Ctx, Reply};
use crate::http::Response;
use crate::selector::{FieldSelector, LabelSelector};
use crate::status;
use crate::store::{ObjKey, Store, Stored};

/// Namespace, label and field filters of a list or watch.
#[derive(Debug, Clone)]
pub(crate) struct Filter {
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Filter {
    fn from_query(cx: &Ctx<'_>) -> Result<Filter, Response> {
        let labels = LabelSelector::parse(cx.query.get("labelSelector").unwrap_or(""))
            .map_err(|e| status::bad_request(&e))?;
        let fields = FieldSelector::parse(cx.query.get("fieldSelector").unwrap_or(""))
            .map_err(|e| status::bad_request(&e))?;
        Ok(Filter {
            namespace: cx.path.namespace.clone(),
            labels,
            fields,
        })
    }

    pub(crate) fn accepts(&self, key: &ObjKey, object: &Value) -> bool {
        self.namespace.as_ref().is_none_or(|ns| *ns == key.0)
            && self.labels.matches(
                object
                    .pointer("/metadata/labels")
                    .and_then(Value::as_object),
            )
            && self.fields.matches(&key.1, &key.0)
    }
}

fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).ok().filter(|p| p.len() == 2)?;
            u8::from_str_radix(pair, 16).ok()
        })
        .collect()
}

/// Continue tokens name the last key returned.
fn encode_continue(key: &ObjKey) -> String {
    hex_encode(format!("{}\0{}", key.0, key.1).as_bytes())
}

fn decode_continue(token: &str) -> Option<ObjKey> {
    let text = String::from_utf8(hex_decode(token)?).ok()?;
    let (ns, name) = text.split_once('\0')?;
    Some((ns.to_string(), name.to_string()))
}

pub(super) fn list(store: &Store, cx: &Ctx<'_>) -> Reply {
    let filter = Filter::from_query(cx)?;
    let limit = match cx.query.get("limit").filter(|l| !l.is_empty()) {
        Some(text) => text
            .parse::<usize>()
            .map_err(|_| status::bad_request(&format!("invalid limit \"{text}\"")))?,
        None => 0,
    };
    let after = match cx.query.get("continue").filter(|c| !c.is_empty()) {
        Some(token) => Some(decode_continue(token).ok_or_else(|| {
            status::bad_request("continue key is not valid: malformed continue token")
        })?),
        None => None,
    };
    let matching: Vec<(&ObjKey, &Stored)> = store
        .objects(cx.res)
        .filter(|(key, _)| after.as_ref().is_none_or(|after| *key > after))
        .filter(|(key, stored)| filter.accepts(key, &stored.object))
        .collect();
    let page_len = if limit == 0 {
        matching.len()
    } else {
        limit.min(matching.len())
    };
    let mut metadata = Map::new();
    metadata.insert(
        "resourceVersion".into(),
        json!(store.resource_version().to_string()),
    );
    if page_len < matching.len() {
        metadata.insert(
            "continue".into(),
            json!(encode_continue(matching[page_len - 1].0)),
        );
        metadata.insert(
            "remainingItemCount".into(),
            json!(matching.len() - page_len),
        );
    }
    let items: Vec<Value> = matching[..page_len]
        .iter()
        .map(|(_, stored)| stored.object.clone())
        .collect();
    Ok(Response::json(
        200,
        &json!({
            "apiVersion": cx.res.api_version(),
            "kind": format!("{}List", cx.res.kind),
            "metadata": metadata,
            "items": items,
        }),
    ))
}

/// A watch: without `resourceVersion` (or `0`), every matching object as `ADDED`; with one,
/// the changes after it; then each change as it happens, until `timeoutSeconds` (default 60 s)
/// or the client goes away. The stream is close-delimited JSON lines. With
/// `allowWatchBookmarks=true` it also sends bookmarks as kube-apiserver's watch cache does
/// (apiserver `pkg/storage/cacher/cache_watcher.go`: 2 s before the deadline and every minute,
/// when the resourceVersion moved on; see `server::stream_watch`), and a watch from `0` ends
/// its `ADDED` events with a bookmark annotated `k8s.io/initial-events-end: "true"`. From a resourceVersion older than the last
/// compaction (see [`crate::FakeApiServer::compact`]) the answer is 200 with one `ERROR` event,
/// a `410` `Expired` Status `too old resource version: RV (OLDEST)` (apiserver
/// `pkg/storage/cacher/watch_cache.go`), and the stream ends.
pub(super) fn watch(store: &Store, cx: &Ctx<'_>) -> Reply {
    let filter = Filter::from_query(cx)?;
    let since: Option<u64> = cx
        .query
        .get("resourceVersion")
        .and_then(|v| v.parse().ok())
        .filter(|v| *v > 0);
    let timeout = cx
        .query
        .get("timeoutSeconds")
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(60);
    let bookmarks = cx.query.flag("allowWatchBookmarks");
    let mut body = Vec::new();
    if let Some(v) = since.filter(|v| *v < store.compacted()) {
        let message = format!("too old resource version: {v} ({})", store.compacted());
        let status = crate::status::status_value(410, "Expired", &message, None);
        body.extend_from_slice(&event_line("ERROR", &status));
        return Ok(Response {
            status: 200,
            headers: Vec::new(),
            body,
            close: true,
            watch: None,
        });
    }
    let from = match since {
        Some(v) => store.changes_after_version(v),
        None => {
            for (key, stored) in store.objects(cx.res) {
                if filter.accepts(key, &stored.object) {
                    body.extend_from_slice(&event_line("ADDED", &stored.object));
                }
            }
            if bookmarks {
                // kube-apiserver 1.34+ serves a legacy watch (no resourceVersion, or 0) with
                // bookmarks as a watch list (apimachinery `internalversion.SetListOptionsDefaults`):
                // the initial events end with a bookmark so annotated.
                body.extend_from_slice(&event_line(
                    "BOOKMARK",
                    &json!({"apiVersion": cx.res.api_version(), "kind": cx.res.kind,
                        "metadata": {"annotations": {"k8s.io/initial-events-end": "true"},
                            "resourceVersion": store.resource_version().to_string()}}),
                ));
            }
            store.changes_from(cx.res, usize::MAX).1
        }
    };
    Ok(Response {
        status: 200,
        headers: Vec::new(),
        body,
        close: true,
        watch: Some(Box::new(crate::http::Watch {
            resource: cx.res.clone(),
            filter,
            from,
            until: std::time::Instant::now() + std::time::Duration::from_secs(timeout),
            bookmarks,
            since: since.unwrap_or(store.resource_version()),
        })),
    })
}

/// One watch event as a JSON line.
pub(crate) fn event_line(kind: &str, object: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({"type": kind, "object": object})).unwrap_or_default();
    line.push(b'\n');
    line
}

pub(super) fn get(store: &Store, cx: &Ctx<'_>, name: &str) -> Reply {
    store
        .get(cx.res, &cx.key(name))
        .map(|stored| Response::json(200, &stored.object))
        .ok_or_else(|| cx.not_found(name))
}
