//! Watches: one `watch=true` request whose answer is a stream of JSON events, one per line
//! (`{"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}`), as the API server sends
//! them (apimachinery `watch` and kube-rs `Client::request_events`). The objects come back as
//! sent. An event longer than [`MAX_EVENT_BYTES`] ends the watch with an error, so an answer
//! without end cannot exhaust memory.
//!
//! [`Follow`] is the one resumable watch every command follows (`get -w`, `wait`), and
//! [`Follow::next`] the one place that opens, resumes and relists, as client-go's
//! `tools/cache/reflector.go` `ListAndWatch` does:
//!
//! - it starts from the resourceVersion of the list the command showed (the list's own, never
//!   an item's: [`List`](super::List)); given none (the command read one object by name, or
//!   listed more than it watches) it lists first;
//! - every watch asks for bookmarks (`allowWatchBookmarks=true`), and a bookmark's
//!   resourceVersion is where the next watch resumes, as an event's is;
//! - a watch the server ends (its `timeoutSeconds`, a closed connection) is opened again from
//!   the last resourceVersion seen;
//! - on `410 Gone` (the resourceVersion was compacted away or the server's watch cache started
//!   anew, as after an API server restart: an HTTP 410 answer or an `ERROR` event carrying a
//!   `Status` with code 410) it lists again and resumes from the new list's resourceVersion;
//! - a request that fails for a while (the connection refused while the server restarts, 429,
//!   5xx, a timeout, a 404 while a starting server has not yet loaded its CRDs) is retried
//!   after the reflector's backoff (800 ms doubling to 30 s, started again after 2 minutes;
//!   apimachinery `wait.Backoff.DelayWithReset`, without its jitter); a relist comes after the
//!   backoff too, so that nothing loops hot. At the deadline a follow still failing ends with
//!   the last error. 403 and other answers that do not change by waiting end it at once.
//!
//! What a relist reports follows client-go's informer (`tools/cache/delta_fifo.go`
//! `Replace`, `controller.go` `processDeltas`, as `tools/watch` `UntilWithSync` and its
//! informer watcher turn it into watch events, the path `kubectl wait` follows): each listed
//! object not seen before is `ADDED`, each one whose resourceVersion differs from the one last
//! seen is `MODIFIED`, and each one seen before and missing from the list is `DELETED` with the
//! state last seen (`DeletedFinalStateUnknown`); an object whose resourceVersion did not change
//! is not reported again (the informer hands it to its handlers as an update with the same
//! resourceVersion, which Kubernetes' controllers and this tool skip). So `get -w` prints after
//! a relist what changed while the watch was down, one row per object, as kubectl's `get -w`
//! prints each event of an unbroken watch (`kubectl/pkg/cmd/get/get.go` `watch`).

use super::parsed_size::held_size;
use super::query::Query;
use super::request::{
    api_error, parse_scanned, scan_answer, status_text, with_type, List, Op, Selection,
};
use super::{Cluster, ClusterError, ServedKind};
use http_body_util::BodyExt;
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// The longest event line a watch accepts (64 MiB: more than any object etcd stores).
pub const MAX_EVENT_BYTES: usize = 64 << 20;

/// One watch event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `ADDED`, `MODIFIED`, `DELETED` or, from a [`WatchStream`] only, `BOOKMARK` (an object
    /// that carries only `metadata.resourceVersion`).
    pub kind: String,
    /// The object, with `apiVersion` and `kind` filled in.
    pub object: Value,
}

/// A watch answer cut into lines as it arrives. Each byte is searched for the newline once
/// (the search resumes where the last one stopped), and consumed lines are dropped from the
/// front only once they are half the buffer, so an event of n bytes in frames of any size
/// costs O(n), not O(n²) as a search from the start of the buffer on every frame would. Pure.
#[derive(Debug, Default)]
pub(super) struct Lines {
    buffer: Vec<u8>,
    /// Where the unread bytes start.
    start: usize,
    /// `buffer[start..searched]` holds no newline.
    searched: usize,
    /// How many bytes the searches looked at, for tests.
    examined: u64,
}

impl Lines {
    /// More bytes of the answer.
    pub(super) fn push(&mut self, data: &[u8]) {
        if self.start > 0 && self.start >= self.buffer.len() / 2 {
            self.buffer.drain(..self.start);
            self.searched -= self.start;
            self.start = 0;
        }
        self.buffer.extend_from_slice(data);
    }

    /// The next whole line, its newline included; None until one has arrived.
    pub(super) fn next_line(&mut self) -> Option<Vec<u8>> {
        let from = self.searched.max(self.start);
        let rest = &self.buffer[from..];
        match rest.iter().position(|b| *b == b'\n') {
            Some(i) => {
                self.examined += i as u64 + 1;
                let end = from + i + 1;
                let line = self.buffer[self.start..end].to_vec();
                self.start = end;
                self.searched = end;
                Some(line)
            }
            None => {
                self.examined += rest.len() as u64;
                self.searched = self.buffer.len();
                None
            }
        }
    }

    /// The bytes not yet handed out as a line.
    pub(super) fn pending(&self) -> &[u8] {
        &self.buffer[self.start..]
    }

    /// Drops what is pending.
    pub(super) fn clear(&mut self) {
        *self = Lines {
            examined: self.examined,
            ..Lines::default()
        };
    }
}

/// An open watch; [`WatchStream::next`] gives the events in order.
pub struct WatchStream {
    body: kube::client::Body,
    lines: Lines,
    kind: ServedKind,
    op: Op<'static>,
    ended: bool,
    /// The command's count of parsed answers, and its bound ([`super::parsed_size`]).
    held: std::sync::Arc<super::budget::Budget>,
    max_parsed: u64,
    /// Since when the bytes after the last whole event have been waiting for their newline
    /// (None: none are).
    partial_since: Option<Instant>,
}

impl Cluster {
    /// Opens a watch of `kind` over `selection` from `resource_version` (None: the current
    /// objects first, as `ADDED`), for at most `timeout_seconds` on the server's side, with
    /// bookmarks asked for. The query reads as client-go writes it
    /// (`?allowWatchBookmarks=true&...&timeoutSeconds=N&watch=true`). `--request-timeout`
    /// bounds opening it, not how long it stays open. Errors: the server's answer (403, 404,
    /// 410, ...) or the connection's.
    pub async fn watch(
        &self,
        kind: &ServedKind,
        selection: &Selection<'_>,
        resource_version: Option<&str>,
        timeout_seconds: u32,
    ) -> Result<WatchStream, ClusterError> {
        let url = Query::new()
            .add("watch", "true")
            .add("allowWatchBookmarks", "true")
            .add(
                "timeoutSeconds",
                timeout_seconds.clamp(1, MAX_WATCH_SECONDS).to_string(),
            )
            .add_some("labelSelector", selection.labels)
            .add_some("fieldSelector", selection.fields)
            .add("resourceVersion", resource_version.unwrap_or("0"))
            .url(&selection.path(kind).map_err(|e| *e)?);
        let op = Op {
            verb: "watch",
            resource: kind.resource(),
            scope: selection.words(kind),
        };
        let req = http::Request::get(url)
            .body(Vec::new())
            .map_err(|e| ClusterError::Config(format!("cannot build the request: {e}")))?;
        let send = self.client.send(req.map(kube::client::Body::from));
        let limit = self
            .timeout
            .map(|t| (t, t, "--request-timeout".to_string()));
        let res = match self.within_deadline(limit) {
            None => send.await,
            Some((t, shown, why)) => tokio::time::timeout(t, send)
                .await
                .map_err(|_| op.timed_out(&self.server, shown, &why))?,
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
            lines: Lines::default(),
            kind: kind.clone(),
            op,
            ended: false,
            held: self.held.clone(),
            max_parsed: self.max_parsed(),
            partial_since: None,
        })
    }
}

impl WatchStream {
    /// The next event, bookmarks included; None when the server ended the watch (its timeout,
    /// or the connection closed). An `ERROR` event is an error (a 410 Gone: the
    /// resourceVersion is too old).
    pub async fn next(&mut self) -> Option<Result<Event, ClusterError>> {
        loop {
            while let Some(line) = self.lines.next_line() {
                // What follows a whole event arrived with it.
                self.partial_since = (!self.lines.pending().is_empty()).then(Instant::now);
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Some(self.event(&line).map_err(|e| *e));
            }
            if self.ended {
                if self.lines.pending().iter().all(u8::is_ascii_whitespace) {
                    return None;
                }
                let line = self.lines.pending().to_vec();
                self.lines.clear();
                return Some(self.event(&line).map_err(|e| *e));
            }
            if self.lines.pending().len() > MAX_EVENT_BYTES {
                self.ended = true;
                self.lines.clear();
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
                        self.lines.push(d);
                        if self.partial_since.is_none() && !d.is_empty() {
                            self.partial_since = Some(Instant::now());
                        }
                    }
                }
            }
        }
    }

    /// Since when bytes of an event have been waiting for the rest of it, and how many
    /// (None: no event is begun).
    pub fn partial(&self) -> Option<(Instant, u64)> {
        let pending = self.lines.pending();
        self.partial_since
            .filter(|_| !pending.iter().all(u8::is_ascii_whitespace))
            .map(|t| (t, pending.len() as u64))
    }

    fn malformed(&self, detail: String) -> ClusterError {
        self.op.malformed(detail)
    }

    /// One line: an event (a bookmark too), or the error it carries.
    fn event(&self, line: &[u8]) -> Result<Event, Box<ClusterError>> {
        let room = Room {
            left: self.max_parsed.saturating_sub(self.held.now()),
            limit: self.max_parsed,
        };
        event(line, &self.kind, &self.op, room)
    }
}

/// What an event may take once parsed: what is left of the command's bound on parsed answers
/// (an event is parsed, handed out and dropped; what a follow keeps of it takes its share
/// then), and the bound, for the error.
#[derive(Debug, Clone, Copy)]
struct Room {
    left: u64,
    limit: u64,
}

/// The longest a watch request asks the server to keep it open (`timeoutSeconds`): under the
/// API server's own bound (kube-apiserver `--min-request-timeout`, 1800 s, randomised up to
/// twice that), short enough that a connection some proxy dropped silently is noticed.
pub const MAX_WATCH_SECONDS: u32 = 290;

/// How long a follow waits before asking again when a watch ended without an event, so that a
/// server that ends watches at once is not asked in a tight loop.
const QUIET_PAUSE: Duration = Duration::from_millis(200);

/// `metadata.resourceVersion` of an object (None when it has none, or not as a string).
pub fn resource_version_of(o: &Value) -> Option<&str> {
    o.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
}

/// The reflector's backoff (`tools/cache/reflector.go`: `defaultBackoffInit` 800 ms,
/// `defaultBackoffFactor` 2, `defaultBackoffMax` 30 s, `defaultBackoffReset` 2 min, through
/// apimachinery `wait.Backoff.DelayWithReset`): each delay twice the one before up to the cap,
/// and the first again once more than the reset interval has passed since the backoff last
/// started over. Its jitter (up to as much again, at random) is left out. Pure: the caller
/// gives the time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Backoff {
    next: Duration,
    started: Instant,
}

impl Backoff {
    pub(super) const INITIAL: Duration = Duration::from_millis(800);
    pub(super) const MAX: Duration = Duration::from_secs(30);
    pub(super) const RESET: Duration = Duration::from_secs(120);

    pub(super) fn new(now: Instant) -> Backoff {
        Backoff {
            next: Backoff::INITIAL,
            started: now,
        }
    }

    /// The delay to wait now.
    pub(super) fn delay(&mut self, now: Instant) -> Duration {
        if now.saturating_duration_since(self.started) > Backoff::RESET {
            self.next = Backoff::INITIAL;
            self.started = now;
        }
        let d = self.next;
        self.next = (self.next * 2).min(Backoff::MAX);
        d
    }
}

/// Whether an error says the resourceVersion is gone (410, reason `Expired` or `Gone`:
/// client-go `isExpiredError`): the follow lists again.
fn is_gone(e: &ClusterError) -> bool {
    matches!(e, ClusterError::Api { code: 410, .. })
}

/// Whether asking again later may succeed: the connection failed or timed out, the server was
/// throttling or failing (429, 5xx), or it did not serve the resource for a moment (404: a
/// starting API server serves a CRD's objects only once it has read the CRDs; the reflector
/// retries every failure). A 403, 401, another 4xx or a malformed answer does not change by
/// waiting.
fn is_transient(e: &ClusterError) -> bool {
    match e {
        ClusterError::Connection { .. }
        | ClusterError::Timeout { .. }
        | ClusterError::Throttled { .. }
        | ClusterError::NotFound { .. } => true,
        ClusterError::Api { code, .. } => matches!(code, 404 | 410 | 429 | 500..=599),
        _ => false,
    }
}

/// Where an object is kept: its namespace and name (client-go `MetaNamespaceKeyFunc`).
fn key_of(o: &Value) -> (String, String) {
    let text = |p: &str| {
        o.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    (text("/metadata/namespace"), text("/metadata/name"))
}

/// The events a relist reports (see the module's documentation): in the list's order, each
/// object new (`ADDED`) or with another resourceVersion (`MODIFIED`), then each object of
/// `known` the list no longer holds (`DELETED`, as last seen), in key order. Pure.
pub(super) fn relist_events(
    known: &BTreeMap<(String, String), Value>,
    listed: &[Value],
) -> Vec<Event> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for o in listed {
        let key = key_of(o);
        match known.get(&key) {
            None => out.push(Event {
                kind: "ADDED".into(),
                object: o.clone(),
            }),
            Some(old) if resource_version_of(old) != resource_version_of(o) => out.push(Event {
                kind: "MODIFIED".into(),
                object: o.clone(),
            }),
            Some(_) => {}
        }
        seen.insert(key);
    }
    for (key, old) in known {
        if !seen.contains(key) {
            out.push(Event {
                kind: "DELETED".into(),
                object: old.clone(),
            });
        }
    }
    out
}

/// A resumable watch of one kind: see the module's documentation and [`Cluster::follow`].
pub struct Follow<'a> {
    cluster: &'a Cluster,
    kind: ServedKind,
    selection: Selection<'a>,
    /// The objects as last seen, by namespace and name (the reflector's store): what a relist
    /// is compared with.
    known: BTreeMap<(String, String), Value>,
    /// What this follow holds of the command's bound on parsed answers for `known`, bytes
    /// ([`super::parsed_size`]): the last relist's share and each object kept since (the
    /// objects the caller handed over are the caller's share). Given back as objects go, on a
    /// relist, and when the follow ends.
    known_bytes: u64,
    /// Where the next watch starts; None: list first.
    resource_version: Option<String>,
    until: Option<Instant>,
    watch_seconds: u32,
    stream: Option<WatchStream>,
    /// Events (bookmarks included) of the open stream.
    events: usize,
    /// Changes a relist found, not yet handed out.
    pending: VecDeque<Event>,
    backoff: Backoff,
    /// The next list or watch waits for the backoff first.
    delay_due: bool,
    /// Why the last list or watch failed, while the follow keeps trying: the error it ends
    /// with at its deadline.
    failing: Option<ClusterError>,
    /// With no deadline, how long the server may answer nothing at all ([`Follow::with_idle`]).
    idle: Option<Duration>,
    /// When the server last answered something: a list, a watch opened, an event.
    progress: Instant,
}

impl Cluster {
    /// Follows the changes of `kind` over `selection` after a list of them: `known` the objects
    /// the caller has shown, `resource_version` the list's (see [`List`]; None: the follow lists
    /// first, and reports what differs from `known` as a relist does), until `until` (None:
    /// until the caller stops). Nothing is asked of the server before the first
    /// [`Follow::next`].
    pub fn follow<'a>(
        &'a self,
        kind: &ServedKind,
        selection: Selection<'a>,
        known: Vec<Value>,
        resource_version: Option<&str>,
        until: Option<Instant>,
    ) -> Follow<'a> {
        Follow {
            cluster: self,
            kind: kind.clone(),
            selection,
            known: known.into_iter().map(|o| (key_of(&o), o)).collect(),
            known_bytes: 0,
            resource_version: resource_version
                .filter(|v| !v.is_empty())
                .map(str::to_string),
            until,
            watch_seconds: MAX_WATCH_SECONDS,
            stream: None,
            events: 0,
            pending: VecDeque::new(),
            backoff: Backoff::new(Instant::now()),
            delay_due: false,
            failing: None,
            idle: None,
            progress: Instant::now(),
        }
    }
}

/// What one step of a follow came to.
enum Step {
    /// A change for the caller.
    Event(Event),
    /// Go on (a bookmark, a relist done, a watch opened or ended).
    Again,
    /// The deadline passed.
    Deadline,
    /// The follow ends with this error.
    Fail(ClusterError),
}

impl Follow<'_> {
    /// How long each watch request asks the server to keep it open, seconds (1 to
    /// [`MAX_WATCH_SECONDS`], the default); the follow resumes when the server ends it.
    pub fn with_watch_seconds(mut self, seconds: u32) -> Self {
        self.watch_seconds = seconds.clamp(1, MAX_WATCH_SECONDS);
        self
    }

    /// Ends the follow with an error when the server answers nothing for `idle`: no list, no
    /// watch opened (a request without even its headers back is bounded by it), and, on an
    /// open watch, nothing for `idle` past the watch's own `timeoutSeconds` (when the server
    /// should have ended it). For a follow without a deadline (`get -w` without
    /// `--request-timeout`), so that a server that went silent ends it too; the error names
    /// `--timeout` and the request it was waiting on, or is the last failure seen.
    pub fn with_idle(mut self, idle: Duration) -> Self {
        self.idle = Some(idle).filter(|d| !d.is_zero());
        self
    }

    /// What is left of the idle bound (None: no bound).
    fn idle_left(&self) -> Option<Duration> {
        self.idle.map(|i| i.saturating_sub(self.progress.elapsed()))
    }

    /// The error of a server silent for the idle bound, while waiting to `verb`.
    fn idle_error(&self, verb: &str) -> ClusterError {
        ClusterError::Timeout {
            verb: verb.to_string(),
            resource: self.kind.resource(),
            scope: self.selection.words(&self.kind),
            server: self.cluster.server.clone(),
            after: self.idle.unwrap_or_default(),
            limit: "--timeout".to_string(),
        }
    }

    /// `fut` bounded by the deadline and the idle bound: Err(Step) once either passed.
    async fn bounded<T>(
        &mut self,
        verb: &str,
        fut: impl std::future::Future<Output = T>,
    ) -> Result<T, Step> {
        let bound = match (self.left(), self.idle_left()) {
            (None, None) => None,
            (Some(a), None) | (None, Some(a)) => Some(a),
            (Some(a), Some(b)) => Some(a.min(b)),
        };
        let out = match bound {
            None => Some(fut.await),
            Some(b) => tokio::time::timeout(b, fut).await.ok(),
        };
        match out {
            Some(v) => Ok(v),
            None if self.left().is_some_and(|l| l.is_zero()) => Err(Step::Deadline),
            None => Err(Step::Fail(
                self.failing.take().unwrap_or_else(|| self.idle_error(verb)),
            )),
        }
    }

    /// Where the next watch starts: the list's resourceVersion until an event or a bookmark
    /// came, then the last one's; None when the follow is to list (again) first.
    pub fn resource_version(&self) -> Option<&str> {
        self.resource_version.as_deref()
    }

    fn left(&self) -> Option<Duration> {
        self.until
            .map(|u| u.saturating_duration_since(Instant::now()))
    }

    /// `fut` bounded by the deadline (None once it passed).
    async fn within<T>(&self, fut: impl std::future::Future<Output = T>) -> Option<T> {
        match self.left() {
            None => Some(fut.await),
            Some(l) => tokio::time::timeout(l, fut).await.ok(),
        }
    }

    /// The next change, in the order the server sent it (or a relist found it); None once the
    /// deadline has passed. See the module's documentation for how watches are opened,
    /// resumed, relisted and retried; each request is bounded by the deadline as well as by
    /// `--request-timeout`. Errors: an answer that waiting does not change (403, 400, a
    /// malformed answer or event, an `ERROR` event other than 410 and 5xx), or, at the
    /// deadline, the last error of a follow that kept failing.
    pub async fn next(&mut self) -> Option<Result<Event, ClusterError>> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Some(Ok(e));
            }
            match self.step().await {
                Step::Event(e) => return Some(Ok(e)),
                Step::Again => {}
                Step::Deadline => return self.failing.take().map(Err),
                Step::Fail(e) => return Some(Err(e)),
            }
        }
    }

    /// One list, watch opening or event.
    async fn step(&mut self) -> Step {
        if self.left().is_some_and(|l| l.is_zero()) {
            return Step::Deadline;
        }
        if self.delay_due {
            let delay = self.backoff.delay(Instant::now());
            if self.within(tokio::time::sleep(delay)).await.is_none() {
                return Step::Deadline;
            }
            self.delay_due = false;
        }
        if self.resource_version.is_none() {
            let (selection, kind, cluster) = (self.selection, self.kind.clone(), self.cluster);
            let listed = match self
                .bounded("list", cluster.list_selected(&kind, &selection))
                .await
            {
                Ok(l) => l,
                Err(step) => return step,
            };
            return match listed {
                Ok(list) => {
                    self.progress = Instant::now();
                    self.replace(list);
                    Step::Again
                }
                Err(e) => self.failed(e),
            };
        }
        if self.stream.is_none() {
            let seconds = self.left().map_or(self.watch_seconds, |l| {
                u32::try_from(l.as_secs())
                    .unwrap_or(u32::MAX)
                    .clamp(1, self.watch_seconds)
            });
            let (selection, kind, cluster) = (self.selection, self.kind.clone(), self.cluster);
            let from = self.resource_version.clone();
            let opened = match self
                .bounded(
                    "watch",
                    cluster.watch(&kind, &selection, from.as_deref(), seconds),
                )
                .await
            {
                Ok(o) => o,
                Err(step) => return step,
            };
            return match opened {
                Ok(s) => {
                    self.progress = Instant::now();
                    self.stream = Some(s);
                    self.events = 0;
                    self.failing = None;
                    Step::Again
                }
                Err(e) => self.failed(e),
            };
        }
        // On an open watch the server may rightly be quiet until the watch's timeoutSeconds;
        // past that and the idle bound, it is not answering.
        let quiet = self
            .idle
            .map(|i| i + Duration::from_secs(u64::from(self.watch_seconds)));
        let bound = match (self.left(), quiet) {
            (None, None) => None,
            (Some(a), None) | (None, Some(a)) => Some(a),
            (Some(a), Some(b)) => Some(a.min(b)),
        };
        let quiet_at = bound.map(|b| Instant::now() + b);
        let Some(stream) = self.stream.as_mut() else {
            return Step::Again;
        };
        // An event begun must end within the idle bound (bytes that never make an event are
        // no answer): looked at every half of it while waiting.
        let look = self.idle.map(|i| (i / 2).max(Duration::from_millis(100)));
        let next = loop {
            let at = [quiet_at, look.map(|l| Instant::now() + l)]
                .into_iter()
                .flatten()
                .min();
            let Some(at) = at else {
                break stream.next().await;
            };
            match tokio::time::timeout_at(at.into(), stream.next()).await {
                Ok(n) => break n,
                Err(_) if self.until.is_some_and(|u| Instant::now() >= u) => return Step::Deadline,
                Err(_) if quiet_at.is_some_and(|q| Instant::now() >= q) => {
                    self.stream = None;
                    // Silent past the watch's own timeoutSeconds and the idle bound after it:
                    // the error names both.
                    let mut e = self.idle_error("watch");
                    if let (ClusterError::Timeout { after, limit, .. }, Some(q)) = (&mut e, quiet) {
                        *after = q;
                        *limit = format!(
                            "the watch's timeoutSeconds={} and --timeout",
                            self.watch_seconds
                        );
                    }
                    self.failing = Some(e);
                    return Step::Again;
                }
                Err(_) => {
                    let stalled = self
                        .idle
                        .zip(stream.partial())
                        .filter(|(i, (since, _))| since.elapsed() >= *i);
                    if let Some((after, (_, bytes))) = stalled {
                        self.stream = None;
                        return Step::Fail(ClusterError::Stalled {
                            resource: self.kind.resource(),
                            scope: self.selection.words(&self.kind),
                            server: self.cluster.server.clone(),
                            after,
                            bytes,
                        });
                    }
                }
            }
        };
        match next {
            Some(Ok(event)) => {
                self.progress = Instant::now();
                self.events += 1;
                self.failing = None;
                if let Some(rv) = resource_version_of(&event.object).filter(|v| !v.is_empty()) {
                    self.resource_version = Some(rv.to_string());
                }
                let key = key_of(&event.object);
                match event.kind.as_str() {
                    "BOOKMARK" => Step::Again,
                    // Not what was asked for (another namespace, another name): not shown,
                    // not kept.
                    _ if !self.selection.covers(&self.kind, &event.object) => Step::Again,
                    "DELETED" => {
                        if let Some(old) = self.known.remove(&key) {
                            self.give_back(held_size(&old));
                        }
                        Step::Event(event)
                    }
                    // The state already seen (a watch from "0" first sends every object as
                    // ADDED): not a change.
                    _ if self.known.get(&key).is_some_and(|o| {
                        resource_version_of(o).is_some()
                            && resource_version_of(o) == resource_version_of(&event.object)
                    }) =>
                    {
                        Step::Again
                    }
                    _ => match self.keep(key, event.object.clone()) {
                        Ok(()) => Step::Event(event),
                        Err(e) => {
                            self.stream = None;
                            Step::Fail(*e)
                        }
                    },
                }
            }
            Some(Err(ClusterError::TooMuchHeld { limit, .. })) if self.known_bytes > 0 => {
                // The event does not fit beside what the store holds: the store is full.
                self.stream = None;
                Step::Fail(ClusterError::WatchedTooMuch {
                    resource: self.kind.resource(),
                    scope: self.selection.words(&self.kind),
                    limit,
                    flag: "--max-response-bytes",
                })
            }
            Some(Err(e)) => {
                self.stream = None;
                self.failed(e)
            }
            None => {
                self.stream = None;
                if self.events == 0 {
                    let pause = self.left().map_or(QUIET_PAUSE, |l| l.min(QUIET_PAUSE));
                    tokio::time::sleep(pause).await;
                }
                Step::Again
            }
        }
    }

    /// Keeps an object a watch reported in the store. Errors: the store would hold more
    /// objects than `--max-list-items` or more bytes than `--max-response-bytes`: a server
    /// reporting ever-new objects (and never their deletion) would otherwise grow it until
    /// memory runs out, and a relist of that many would be refused by the same bounds.
    fn keep(&mut self, key: (String, String), object: Value) -> Result<(), Box<ClusterError>> {
        let bytes = held_size(&object);
        let present = self.known.get(&key);
        let count = self.known.len() as u64 + u64::from(present.is_none());
        let (limit, flag) = if count > self.cluster.max_list_items {
            (self.cluster.max_list_items, "--max-list-items")
        } else if !self.cluster.held.take(bytes, self.cluster.max_parsed()) {
            (self.cluster.max_parsed(), "--max-response-bytes")
        } else {
            self.known_bytes = self.known_bytes.saturating_add(bytes);
            if let Some(old) = self.known.insert(key, object) {
                self.give_back(held_size(&old));
            }
            return Ok(());
        };
        Err(Box::new(ClusterError::WatchedTooMuch {
            resource: self.kind.resource(),
            scope: self.selection.words(&self.kind),
            limit,
            flag,
        }))
    }

    /// A list or watch failed: 410 lists again, a transient failure is retried, both after the
    /// backoff; anything else ends the follow.
    fn failed(&mut self, e: ClusterError) -> Step {
        if is_gone(&e) {
            self.resource_version = None;
        } else if !is_transient(&e) {
            return Step::Fail(e);
        }
        self.failing = Some(e);
        self.delay_due = true;
        Step::Again
    }

    /// A list read: what differs from what was seen is queued, the store is the list, and the
    /// next watch starts from the list's resourceVersion.
    /// Gives back up to `bytes` of what this follow holds (never more than it took).
    fn give_back(&mut self, bytes: u64) {
        let back = bytes.min(self.known_bytes);
        self.known_bytes -= back;
        self.cluster.held.give_back(back);
    }

    fn replace(&mut self, list: List) {
        let listed = list.items;
        self.pending.extend(relist_events(&self.known, &listed));
        // The list took its share as it was read: the store's share from now on.
        self.give_back(self.known_bytes);
        self.known_bytes = list.held;
        self.known = listed.into_iter().map(|o| (key_of(&o), o)).collect();
        self.resource_version = Some(list.resource_version).filter(|v| !v.is_empty());
        if self.resource_version.is_none() {
            // A list without a resourceVersion cannot be watched from: the current objects
            // come first then, as ADDED, and are compared with the store.
            self.resource_version = Some("0".to_string());
        }
        self.failing = None;
    }
}

impl Drop for Follow<'_> {
    fn drop(&mut self) {
        self.give_back(self.known_bytes);
    }
}

/// One line of a watch answer: an event (a bookmark too), or the error it carries (an `ERROR`
/// event's `Status` as the API error it words; a line that is not JSON, or an event of another
/// type, as [`ClusterError::Malformed`]).
fn event(
    line: &[u8],
    kind: &ServedKind,
    op: &Op<'_>,
    room: Room,
) -> Result<Event, Box<ClusterError>> {
    let estimate = scan_answer(line).map_err(|e| Box::new(op.malformed(e)))?;
    if estimate > room.left {
        return Err(Box::new(ClusterError::TooMuchHeld {
            verb: op.verb.into(),
            resource: op.resource.clone(),
            scope: op.scope.clone(),
            limit: room.limit,
        }));
    }
    let mut v = parse_scanned(line).map_err(|e| Box::new(op.malformed(e)))?;
    let object = v.get_mut("object").map(Value::take).unwrap_or(Value::Null);
    let kind_of = v.get("type").and_then(Value::as_str).unwrap_or("");
    match kind_of {
        "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" if object.is_object() => Ok(Event {
            kind: kind_of.to_string(),
            object: with_type(object, kind),
        }),
        "ERROR" => {
            let code = object.get("code").and_then(Value::as_u64).unwrap_or(500) as u16;
            let text = serde_json::to_vec(&object).unwrap_or_default();
            let (reason, message) = status_text(code, &text, None);
            Err(Box::new(api_error(op, code, reason, message)))
        }
        "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" => Err(Box::new(op.malformed(format!(
            "a watch event {kind_of} whose object is {}, not a mapping",
            match v.get("object") {
                None => "missing",
                Some(_) => crate::object::json_type(&object),
            }
        )))),
        other => Err(Box::new(
            op.malformed(format!("a watch event of type {other:?}")),
        )),
    }
}

/// A watch answer arriving in `frames`, cut into lines as [`WatchStream::next`] cuts it: the
/// whole lines (newlines included) in order, and what is left without a newline. Pure, for
/// fuzzing and tests.
#[doc(hidden)]
pub fn split_watch_lines(frames: &[&[u8]]) -> (Vec<Vec<u8>>, Vec<u8>) {
    let mut lines = Lines::default();
    let mut out = Vec::new();
    for f in frames {
        lines.push(f);
        while let Some(l) = lines.next_line() {
            out.push(l);
        }
    }
    (out, lines.pending().to_vec())
}

/// One line of a watch answer decoded as [`WatchStream::next`] decodes it (see `event` above).
/// Pure, for fuzzing and tests. Errors: as `event`, boxed.
#[doc(hidden)]
pub fn decode_watch_line(line: &[u8], kind: &ServedKind) -> Result<Event, Box<ClusterError>> {
    let op = Op {
        verb: "watch",
        resource: kind.resource(),
        scope: String::new(),
    };
    let room = Room {
        left: u64::MAX,
        limit: u64::MAX,
    };
    event(line, kind, &op, room)
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
    /// kept (their resourceVersion is where the next watch resumes), an `ERROR` event's
    /// `Status` worded as the API error (410 Expired when the resourceVersion is too old),
    /// anything else malformed.
    #[test]
    fn watch_lines_decode_as_the_api_server_sends_them() {
        let added = decode_watch_line(
            br#"{"type":"ADDED","object":{"metadata":{"name":"a"}}}"#,
            &pactos(),
        )
        .unwrap();
        assert_eq!(added.kind, "ADDED");
        assert_eq!(added.object["kind"], json!("Pacto"));
        let bookmark = decode_watch_line(
            br#"{"type":"BOOKMARK","object":{"kind":"Pacto","apiVersion":"pacto.trianalab.io/v1alpha1","metadata":{"resourceVersion":"42"}}}"#,
            &pactos(),
        )
        .unwrap();
        assert_eq!(bookmark.kind, "BOOKMARK");
        assert_eq!(resource_version_of(&bookmark.object), Some("42"));
        let expired = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (13)","reason":"Expired","code":410}}"#;
        let e = *decode_watch_line(expired, &pactos()).unwrap_err();
        assert!(is_gone(&e), "{e}");
        match e {
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
        assert_eq!(
            decode_watch_line(br#"{"type":"ADDED","object":[1]}"#, &pactos())
                .unwrap_err()
                .to_string(),
            "cannot watch pactos.pacto.trianalab.io: the API server's answer is malformed: a watch event ADDED whose object is a list, not a mapping"
        );
        assert!(decode_watch_line(br#"{"type":"MODIFIED"}"#, &pactos())
            .unwrap_err()
            .to_string()
            .ends_with("a watch event MODIFIED whose object is missing, not a mapping"));
    }

    /// An event of 64 MiB without its newline, arriving in frames of 64 KiB, costs one look at
    /// each byte (a search from the start of the buffer on every frame looked at 32 GiB); lines
    /// that arrive split across frames, or several in one frame, come out whole and in order.
    #[test]
    fn lines_are_found_in_one_pass() {
        let mut lines = Lines::default();
        let frame = vec![b' '; 64 << 10];
        for _ in 0..1024 {
            lines.push(&frame);
            assert_eq!(lines.next_line(), None);
        }
        assert_eq!(lines.pending().len(), 64 << 20);
        assert_eq!(lines.examined, 64 << 20);
        let mut lines = Lines::default();
        let mut got = Vec::new();
        for chunk in [&b"ab"[..], b"c\nd", b"\n\nef", b"g\n", b"h"] {
            lines.push(chunk);
            while let Some(l) = lines.next_line() {
                got.push(String::from_utf8(l).unwrap());
            }
        }
        assert_eq!(got, ["abc\n", "d\n", "\n", "efg\n"]);
        assert_eq!(lines.pending(), b"h");
        assert_eq!(lines.examined, 12);
    }

    /// client-go's reflector backoff with its defaults: 0.8 s, 1.6 s, 3.2 s ... capped at 30 s,
    /// from 0.8 s again once more than 2 minutes passed since it last started over.
    #[test]
    fn the_backoff_doubles_to_thirty_seconds_and_starts_over_after_two_minutes() {
        let t0 = Instant::now();
        let mut b = Backoff::new(t0);
        let ms: Vec<u128> = (0..8).map(|_| b.delay(t0).as_millis()).collect();
        assert_eq!(ms, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
        assert_eq!(b.delay(t0 + Duration::from_secs(120)), Backoff::MAX);
        assert_eq!(b.delay(t0 + Duration::from_secs(121)), Backoff::INITIAL);
        assert_eq!(
            b.delay(t0 + Duration::from_secs(122)),
            Duration::from_millis(1600)
        );
    }

    fn pacto(name: &str, rv: &str) -> Value {
        json!({"kind": "Pacto", "metadata": {"namespace": "shop", "name": name, "resourceVersion": rv}})
    }

    /// What a relist reports (client-go `DeltaFIFO.Replace` and the informer's handlers): new
    /// objects ADDED and changed ones MODIFIED in the list's order, objects gone DELETED as
    /// last seen; an object whose resourceVersion did not change is not reported.
    #[test]
    fn a_relist_reports_what_changed_since_the_objects_were_last_seen() {
        let known: BTreeMap<(String, String), Value> = [
            pacto("orders", "10"),
            pacto("billing", "11"),
            pacto("search", "12"),
        ]
        .into_iter()
        .map(|o| (key_of(&o), o))
        .collect();
        let listed = [
            pacto("search", "12"),
            pacto("payments", "20"),
            pacto("orders", "19"),
        ];
        let events: Vec<(String, String, String)> = relist_events(&known, &listed)
            .into_iter()
            .map(|e| {
                (
                    e.kind,
                    e.object["metadata"]["name"].as_str().unwrap().to_string(),
                    resource_version_of(&e.object).unwrap().to_string(),
                )
            })
            .collect();
        let want = [
            ("ADDED", "payments", "20"),
            ("MODIFIED", "orders", "19"),
            ("DELETED", "billing", "11"),
        ]
        .map(|(k, n, v)| (k.to_string(), n.to_string(), v.to_string()));
        assert_eq!(events, want);
        assert!(relist_events(
            &known,
            &[
                pacto("orders", "10"),
                pacto("billing", "11"),
                pacto("search", "12")
            ]
        )
        .is_empty());
    }

    /// 410 lists again; a failure that may pass is retried; one that waiting does not change
    /// ends the follow.
    #[test]
    fn failures_are_gone_transient_or_final() {
        let api = |code: u16| ClusterError::Api {
            verb: "watch".into(),
            resource: "pactos.pacto.trianalab.io".into(),
            scope: String::new(),
            code,
            reason: String::new(),
            message: String::new(),
        };
        assert!(is_gone(&api(410)) && is_transient(&api(410)));
        for code in [404, 429, 500, 503, 504] {
            assert!(is_transient(&api(code)) && !is_gone(&api(code)), "{code}");
        }
        for code in [400, 401, 409, 422] {
            assert!(!is_transient(&api(code)), "{code}");
        }
        let forbidden = ClusterError::Forbidden {
            verb: "watch".into(),
            resource: "pactos.pacto.trianalab.io".into(),
            scope: String::new(),
            message: String::new(),
        };
        assert!(!is_transient(&forbidden));
        let refused = ClusterError::Connection {
            verb: "watch".into(),
            resource: "pactos.pacto.trianalab.io".into(),
            scope: String::new(),
            server: "https://127.0.0.1:6443".into(),
            detail: "Connection refused (os error 111)".into(),
        };
        assert!(is_transient(&refused));
    }
}
