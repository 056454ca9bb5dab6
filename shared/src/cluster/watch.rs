//! Watches: one `watch=true` request whose answer is a stream of JSON events, one per line
//! (`{"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}`), as the API server sends
//! them (apimachinery `watch` and kube-rs `Client::request_events`). The objects come back as
//! sent. An event longer than [`MAX_EVENT_BYTES`] ends the watch with an error, so an answer
//! without end cannot exhaust memory.
//!
//! [`Follow`] is the one resumable watch every command follows (`get -w`, `wait`): it starts
//! from the resourceVersion of the listing the command printed, opens watch after watch as the
//! server ends them (each resumes from the last resourceVersion seen, as client-go's
//! `tools/cache/reflector.go` `watch` loop does), and stops at its deadline. Resuming after a
//! `410 Gone` (the resourceVersion compacted away: relist, then watch from the new list) and
//! bookmarks (`allowWatchBookmarks`) belong in [`Follow::next`], the one place that opens and
//! resumes.

use super::request::{api_error, parse_json, status_text, with_type, Op};
use super::{Cluster, ClusterError, Scope, ServedKind};
use http_body_util::BodyExt;
use kube::api::WatchParams;
use kube::core::{DynamicObject, Request};
use kube::Resource as _;
use serde_json::Value;
use std::time::{Duration, Instant};

/// The longest event line a watch accepts (64 MiB: more than any object etcd stores).
pub const MAX_EVENT_BYTES: usize = 64 << 20;

/// One watch event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `ADDED`, `MODIFIED` or `DELETED` (bookmarks are skipped).
    pub kind: String,
    /// The object, with `apiVersion` and `kind` filled in.
    pub object: Value,
}

/// An open watch; [`WatchStream::next`] gives the events in order.
pub struct WatchStream {
    body: kube::client::Body,
    buffer: Vec<u8>,
    kind: ServedKind,
    op: Op<'static>,
    ended: bool,
}

impl Cluster {
    /// Opens a watch of `kind` in `scope` (label `selector`), from `resource_version` (None:
    /// the current objects first, as `ADDED`), for at most `timeout_seconds` on the server's
    /// side. `--request-timeout` bounds opening it, not how long it stays open. Errors: the
    /// server's answer (403, 404, ...) or the connection's.
    pub async fn watch(
        &self,
        kind: &ServedKind,
        scope: Scope<'_>,
        selector: Option<&str>,
        resource_version: Option<&str>,
        timeout_seconds: u32,
    ) -> Result<WatchStream, ClusterError> {
        let ar = kind.api_resource();
        let ns = match scope {
            Scope::Namespace(ns) if kind.namespaced => Some(ns),
            _ => None,
        };
        let url = DynamicObject::url_path(&ar, ns);
        let mut wp = WatchParams::default().timeout(timeout_seconds.min(295));
        if let Some(s) = selector.filter(|s| !s.is_empty()) {
            wp = wp.labels(s);
        }
        let op = Op {
            verb: "watch",
            resource: kind.resource(),
            scope: match (kind.namespaced, scope) {
                (false, _) => String::new(),
                (true, Scope::Namespace(ns)) => format!(" in namespace \"{ns}\""),
                (true, Scope::All) => " in all namespaces".to_string(),
            },
        };
        let req = Request::new(url)
            .watch(&wp, resource_version.unwrap_or("0"))
            .map_err(|e| ClusterError::Config(format!("cannot build the request: {e}")))?;
        let send = self.client.send(req.map(kube::client::Body::from));
        let res = match self.timeout {
            None => send.await,
            Some(t) => tokio::time::timeout(t, send)
                .await
                .map_err(|_| op.timed_out(&self.server, t, "--request-timeout"))?,
        }
        .map_err(|e| self.classify(&op, e))?;
        let code = res.status().as_u16();
        let mut body = res.into_body();
        if !(200..300).contains(&code) {
            let mut bytes = Vec::new();
            while let Some(Ok(frame)) = body.frame().await {
                if let Some(d) = frame.data_ref() {
                    bytes.extend_from_slice(d);
                }
                if bytes.len() > MAX_EVENT_BYTES {
                    break;
                }
            }
            let (reason, message) = status_text(code, &bytes, None);
            return Err(api_error(&op, code, reason, message));
        }
        Ok(WatchStream {
            body,
            buffer: Vec::new(),
            kind: kind.clone(),
            op,
            ended: false,
        })
    }
}

impl WatchStream {
    /// The next event; None when the server ended the watch (its timeout, or the connection
    /// closed). An `ERROR` event (a 410 Gone: the resourceVersion is too old) is an error.
    pub async fn next(&mut self) -> Option<Result<Event, ClusterError>> {
        loop {
            if let Some(i) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=i).collect();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match self.event(&line) {
                    Ok(Some(e)) => return Some(Ok(e)),
                    Ok(None) => continue,
                    Err(e) => return Some(Err(*e)),
                }
            }
            if self.ended {
                if self.buffer.iter().all(u8::is_ascii_whitespace) {
                    return None;
                }
                let line = std::mem::take(&mut self.buffer);
                return self.event(&line).map_err(|e| *e).transpose();
            }
            if self.buffer.len() > MAX_EVENT_BYTES {
                self.ended = true;
                self.buffer.clear();
                return Some(Err(self.malformed(format!(
                    "a watch event longer than {} MiB",
                    MAX_EVENT_BYTES >> 20
                ))));
            }
            match self.body.frame().await {
                None => self.ended = true,
                Some(Err(_)) => self.ended = true,
                Some(Ok(frame)) => {
                    if let Some(d) = frame.data_ref() {
                        self.buffer.extend_from_slice(d);
                    }
                }
            }
        }
    }

    fn malformed(&self, detail: String) -> ClusterError {
        self.op.malformed(detail)
    }

    /// One line: an event, None for a bookmark, or the error it carries.
    fn event(&self, line: &[u8]) -> Result<Option<Event>, Box<ClusterError>> {
        event(line, &self.kind, &self.op)
    }
}

/// The longest a watch request asks the server to keep it open (`timeoutSeconds`): under the
/// API server's own bound (kube-apiserver `--min-request-timeout`, 1800 s, randomised up to
/// twice that), short enough that a connection some proxy dropped silently is noticed.
pub const MAX_WATCH_SECONDS: u32 = 290;

/// How long a follow waits before asking again when a watch ended without an event, so that a
/// server that ends watches at once is not asked in a tight loop.
const QUIET_PAUSE: Duration = Duration::from_millis(200);

/// `metadata.resourceVersion` of an object as a number (0 when it has none, or another form).
pub fn resource_version_of(o: &Value) -> u64 {
    o.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The highest `metadata.resourceVersion` of `objects` (0 when none has one): where a follow of
/// a listing of them starts.
pub fn newest_resource_version(objects: &[Value]) -> u64 {
    objects.iter().map(resource_version_of).max().unwrap_or(0)
}

/// A resumable watch of one kind: see the module's documentation and [`Cluster::follow`].
pub struct Follow<'a> {
    cluster: &'a Cluster,
    kind: ServedKind,
    scope: Scope<'a>,
    selector: Option<&'a str>,
    /// The last resourceVersion seen; 0: the current objects first, as `ADDED`.
    resource_version: u64,
    until: Option<Instant>,
    watch_seconds: u32,
    stream: Option<WatchStream>,
    /// Events of the open stream.
    events: usize,
}

impl Cluster {
    /// Follows the changes of `kind` in `scope` (label `selector`) after `resource_version`
    /// (the listing's, see [`newest_resource_version`]; 0: the current objects first), until
    /// `until` (None: until the caller stops). Nothing is asked of the server before the first
    /// [`Follow::next`].
    pub fn follow<'a>(
        &'a self,
        kind: &ServedKind,
        scope: Scope<'a>,
        selector: Option<&'a str>,
        resource_version: u64,
        until: Option<Instant>,
    ) -> Follow<'a> {
        Follow {
            cluster: self,
            kind: kind.clone(),
            scope,
            selector,
            resource_version,
            until,
            watch_seconds: MAX_WATCH_SECONDS,
            stream: None,
            events: 0,
        }
    }
}

impl Follow<'_> {
    /// How long each watch request asks the server to keep it open, seconds (1 to
    /// [`MAX_WATCH_SECONDS`], the default); the follow resumes when the server ends it.
    pub fn with_watch_seconds(mut self, seconds: u32) -> Self {
        self.watch_seconds = seconds.clamp(1, MAX_WATCH_SECONDS);
        self
    }

    /// The last resourceVersion seen (the listing's until an event came).
    pub fn resource_version(&self) -> u64 {
        self.resource_version
    }

    fn left(&self) -> Option<Duration> {
        self.until
            .map(|u| u.saturating_duration_since(Instant::now()))
    }

    /// The next change, in the order the server sent it; None once the deadline has passed.
    /// A watch the server ended (its timeout, a closed connection) is opened again from the
    /// last resourceVersion seen, after a short pause when it brought nothing. Opening a watch
    /// is bounded by the deadline as well as by `--request-timeout`. Errors: the server's
    /// answer to a watch request (403, 404, ...), the connection's, or an `ERROR` event (a
    /// `410 Gone` when the resourceVersion is too old): the follow ends with it.
    pub async fn next(&mut self) -> Option<Result<Event, ClusterError>> {
        loop {
            let left = self.left();
            if left.is_some_and(|l| l.is_zero()) {
                return None;
            }
            if self.stream.is_none() {
                let seconds = left.map_or(self.watch_seconds, |l| {
                    u32::try_from(l.as_secs())
                        .unwrap_or(u32::MAX)
                        .clamp(1, self.watch_seconds)
                });
                let rv = self.resource_version.to_string();
                let open = self.cluster.watch(
                    &self.kind,
                    self.scope,
                    self.selector,
                    (self.resource_version > 0).then_some(rv.as_str()),
                    seconds,
                );
                let opened = match left {
                    None => open.await,
                    Some(l) => match tokio::time::timeout(l, open).await {
                        Ok(o) => o,
                        Err(_) => return None,
                    },
                };
                match opened {
                    Ok(s) => {
                        self.stream = Some(s);
                        self.events = 0;
                    }
                    Err(e) => return Some(Err(e)),
                }
            }
            let left = self.left();
            let stream = self.stream.as_mut()?;
            let next = match left {
                None => stream.next().await,
                Some(l) => match tokio::time::timeout(l, stream.next()).await {
                    Ok(n) => n,
                    Err(_) => return None,
                },
            };
            match next {
                Some(Ok(event)) => {
                    self.events += 1;
                    self.resource_version = self
                        .resource_version
                        .max(resource_version_of(&event.object));
                    return Some(Ok(event));
                }
                Some(Err(e)) => {
                    self.stream = None;
                    return Some(Err(e));
                }
                None => {
                    self.stream = None;
                    if self.events == 0 {
                        let pause = self.left().map_or(QUIET_PAUSE, |l| l.min(QUIET_PAUSE));
                        tokio::time::sleep(pause).await;
                    }
                }
            }
        }
    }
}

/// One line of a watch answer: an event, None for a bookmark, or the error it carries (an
/// `ERROR` event's `Status` as the API error it words; a line that is not JSON, or an event of
/// another type, as [`ClusterError::Malformed`]).
fn event(line: &[u8], kind: &ServedKind, op: &Op<'_>) -> Result<Option<Event>, Box<ClusterError>> {
    let v = parse_json(line).map_err(|e| Box::new(op.malformed(e)))?;
    let kind_of = v.get("type").and_then(Value::as_str).unwrap_or("");
    let object = v.get("object").cloned().unwrap_or(Value::Null);
    match kind_of {
        "ADDED" | "MODIFIED" | "DELETED" if object.is_object() => Ok(Some(Event {
            kind: kind_of.to_string(),
            object: with_type(object, kind),
        })),
        "BOOKMARK" => Ok(None),
        "ERROR" => {
            let code = object.get("code").and_then(Value::as_u64).unwrap_or(500) as u16;
            let text = serde_json::to_vec(&object).unwrap_or_default();
            let (reason, message) = status_text(code, &text, None);
            Err(Box::new(api_error(op, code, reason, message)))
        }
        other => Err(Box::new(
            op.malformed(format!("a watch event of type {other:?}")),
        )),
    }
}

/// One line of a watch answer decoded as [`WatchStream::next`] decodes it (see `event` above):
/// `Ok(None)` for a bookmark. Pure, for fuzzing and tests. Errors: as `event`, boxed.
#[doc(hidden)]
pub fn decode_watch_line(
    line: &[u8],
    kind: &ServedKind,
) -> Result<Option<Event>, Box<ClusterError>> {
    let op = Op {
        verb: "watch",
        resource: kind.resource(),
        scope: String::new(),
    };
    event(line, kind, &op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pactos() -> ServedKind {
        ServedKind {
            group: "pacto.trianalab.io".into(),
            version: "v1alpha1".into(),
            kind: "Pacto".into(),
            plural: "pactos".into(),
            namespaced: true,
        }
    }

    /// Lines as the API server sends them (apimachinery `watch.Event`): objects typed, bookmarks
    /// skipped, an `ERROR` event's `Status` worded as the API error (410 Expired when the
    /// resourceVersion is too old), anything else malformed.
    #[test]
    fn watch_lines_decode_as_the_api_server_sends_them() {
        let added = decode_watch_line(
            br#"{"type":"ADDED","object":{"metadata":{"name":"a"}}}"#,
            &pactos(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(added.kind, "ADDED");
        assert_eq!(added.object["kind"], json!("Pacto"));
        assert_eq!(
            decode_watch_line(br#"{"type":"BOOKMARK","object":{}}"#, &pactos()).unwrap(),
            None
        );
        let expired = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (13)","reason":"Expired","code":410}}"#;
        match *decode_watch_line(expired, &pactos()).unwrap_err() {
            ClusterError::Api {
                code,
                reason,
                message,
                ..
            } => {
                assert_eq!((code, reason.as_str()), (410, "Expired"));
                assert_eq!(message, "too old resource version: 1 (13)");
            }
            other => panic!("not an API error: {other}"),
        }
        assert_eq!(
            decode_watch_line(br#"{"type":"WHAT"}"#, &pactos()).unwrap_err().to_string(),
            "cannot watch pactos.pacto.trianalab.io: the API server's answer is malformed: a watch event of type \"WHAT\""
        );
    }
}
