//! Reads that return the objects exactly as the API server sent them: get (one request) and list
//! (in pages of `--chunk-size` objects with `limit` and `continue`, as kubectl reads). Throttling
//! (429) and 503/504 answers are retried three times, honouring `Retry-After` up to 5 s;
//! `--request-timeout` bounds each request (each page of a list) including its retries.
//! Error answers are worded from the server's `Status`, and answers are parsed as JSON up to Go's
//! depth limit. Follows kube-rs's `kube-client/src/client/mod.rs` and, for the retries and the
//! timeout, client-go's `rest/request.go`.

use super::query::Query;
use super::{reason_phrase, root_cause, Cluster, ClusterError, ServedKind};
use http_body_util::BodyExt;
use serde_json::Value;
use std::time::Duration;

/// Which namespaces a list covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    Namespace(&'a str),
    All,
}

impl Scope<'_> {
    fn words(&self) -> String {
        match self {
            Scope::Namespace(ns) => format!(" in namespace \"{ns}\""),
            Scope::All => " in all namespaces".to_string(),
        }
    }
}

const MAX_RETRIES: u32 = 3;
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);

/// What a request was, for error messages.
pub(super) struct Op<'a> {
    pub(super) verb: &'a str,
    pub(super) resource: String,
    pub(super) scope: String,
}

impl Op<'_> {
    pub(super) fn malformed(&self, detail: String) -> ClusterError {
        ClusterError::Malformed {
            verb: self.verb.into(),
            resource: self.resource.clone(),
            scope: self.scope.clone(),
            detail,
        }
    }

    pub(super) fn timed_out(&self, server: &str, after: Duration, limit: &str) -> ClusterError {
        ClusterError::Timeout {
            verb: self.verb.into(),
            resource: self.resource.clone(),
            scope: self.scope.clone(),
            server: server.to_string(),
            after,
            limit: limit.to_string(),
        }
    }
}

/// The bound of one operation and its name for messages: `--request-timeout` when given; else,
/// for discovery, the discovery timeout (kubectl's unless another was injected); else none.
pub(super) fn time_limit(
    op: &Op<'_>,
    request_timeout: Option<Duration>,
    discovery_timeout: Duration,
) -> Option<(Duration, String)> {
    match request_timeout {
        Some(t) => Some((t, "--request-timeout".to_string())),
        None if op.verb == "discover" => Some((
            discovery_timeout,
            "kubectl's discovery timeout; --request-timeout sets another".to_string(),
        )),
        None => None,
    }
}

/// A list as the API server answered it: the items of every page and the list's own
/// `metadata.resourceVersion`, the point a watch of the same objects starts from (client-go
/// `tools/cache/reflector.go` watches from the list's resourceVersion, never an item's). For a
/// paged list it is the first page's: every later page is read at that resourceVersion (the
/// `continue` token carries it). Empty when the server sent none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct List {
    pub items: Vec<Value>,
    pub resource_version: String,
    /// What its pages took of the command's bound on parsed answers, bytes
    /// ([`super::parsed_size`]): a watch's store gives it back when it lists again.
    pub held: u64,
}

/// Which objects of a kind a list or a watch covers: the namespaces, a label selector and a
/// field selector (`metadata.name=NAME` for one object, as `kubectl wait` reads it), both
/// applied by the API server. An empty selector is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection<'a> {
    pub scope: Scope<'a>,
    pub labels: Option<&'a str>,
    pub fields: Option<&'a str>,
}

impl<'a> Selection<'a> {
    /// Every object of `scope`.
    pub fn new(scope: Scope<'a>) -> Selection<'a> {
        Selection {
            scope,
            labels: None,
            fields: None,
        }
    }

    /// Only the objects the label selector matches.
    pub fn labels(mut self, labels: Option<&'a str>) -> Selection<'a> {
        self.labels = labels.filter(|s| !s.is_empty());
        self
    }

    /// Only the objects the field selector matches.
    pub fn fields(mut self, fields: Option<&'a str>) -> Selection<'a> {
        self.fields = fields.filter(|s| !s.is_empty());
        self
    }

    /// Whether `o` (of `kind`) is one the selection asks for, as far as the client can tell
    /// without evaluating selectors: in the namespace asked for (a namespaced kind), and named
    /// as a `metadata.name=NAME` field selector names it. The label selector and other field
    /// selectors are the server's to apply.
    pub fn covers(&self, kind: &ServedKind, o: &Value) -> bool {
        let text = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or_default();
        if let Scope::Namespace(ns) = self.scope {
            if kind.namespaced && text("/metadata/namespace") != ns {
                return false;
            }
        }
        match self.fields.and_then(|f| f.strip_prefix("metadata.name=")) {
            Some(name) if !name.contains(',') => text("/metadata/name") == name,
            _ => true,
        }
    }

    /// The collection's path for `kind` (a namespace only for a namespaced kind). Errors: a
    /// namespace or resource that cannot be a path segment ([`ClusterError::InvalidName`]).
    pub(super) fn path(&self, kind: &ServedKind) -> Result<String, Box<ClusterError>> {
        let ns = match self.scope {
            Scope::Namespace(ns) if kind.namespaced => Some(ns),
            _ => None,
        };
        super::path::collection(kind, ns)
    }

    /// ` in namespace "shop"`, ` in all namespaces`, or nothing for a cluster-scoped kind.
    pub(super) fn words(&self, kind: &ServedKind) -> String {
        if kind.namespaced {
            self.scope.words()
        } else {
            String::new()
        }
    }
}

impl Cluster {
    /// Lists a kind in `scope` (label `selector`): [`Cluster::list_selected`].
    pub async fn list(
        &self,
        kind: &ServedKind,
        scope: Scope<'_>,
        selector: Option<&str>,
    ) -> Result<List, ClusterError> {
        self.list_selected(kind, &Selection::new(scope).labels(selector))
            .await
    }

    /// Lists the objects of `selection` in pages of `chunk_size` objects (kubectl's
    /// `--chunk-size`): the first request asks with `limit`, each next one adds the `continue`
    /// token of the answer before, until an answer has none (a server that hands back the token
    /// it was given also ends the listing). With a chunk size of 0 the list is one request.
    /// The query reads as kubectl's (`?fieldSelector=...&labelSelector=...&limit=500`, see
    /// `query`). Items of every page come back as sent, in order, with `apiVersion` and `kind`
    /// filled in when the server left them out (built-in kinds); the resourceVersion is the
    /// first page's. Errors: the first page that fails, worded as [`ClusterError`]; a 404 is a
    /// resource the server stopped serving.
    pub async fn list_selected(
        &self,
        kind: &ServedKind,
        selection: &Selection<'_>,
    ) -> Result<List, ClusterError> {
        let path = selection.path(kind).map_err(|e| *e)?;
        let base = Query::new()
            .add_some("labelSelector", selection.labels)
            .add_some("fieldSelector", selection.fields);
        let op = Op {
            verb: "list",
            resource: kind.resource(),
            scope: selection.words(kind),
        };
        let mut all: Vec<Value> = Vec::new();
        let mut resource_version: Option<String> = None;
        let mut token: Option<String> = None;
        let mut pager = Pager::new(self.chunk_size, self.max_list_items);
        let mut held = 0u64;
        loop {
            let mut query = base.clone();
            if self.chunk_size > 0 {
                query = query.add("limit", self.chunk_size.to_string());
            }
            let query = query.add_some("continue", token.as_deref());
            let url = query.url(&path);
            let (mut list, page_held) = self
                .call_held(&op, || {
                    http::Request::get(url.clone())
                        .body(Vec::new())
                        .map_err(|e| e.to_string())
                })
                .await
                .map_err(|e| match e {
                    // A collection that 404s is a resource the server stopped serving.
                    ClusterError::NotFound {
                        resource, scope, ..
                    } => ClusterError::Api {
                        verb: "list".into(),
                        resource,
                        scope,
                        code: 404,
                        reason: "NotFound".into(),
                        message: format!(
                            "the server does not serve {} (was the CRD removed?)",
                            kind.resource()
                        ),
                    },
                    e => e,
                })?;
            held = held.saturating_add(page_held);
            all.extend(page_items(&mut list, &op).map_err(|e| *e)?);
            if resource_version.is_none() {
                resource_version = Some(list_resource_version(&list));
            }
            match pager.page(all.len(), &list).map_err(|b| b.error(&op))? {
                Some(t) => token = Some(t),
                None => break,
            }
        }
        Ok(List {
            items: keep_items(all, kind, &op).map_err(|e| *e)?,
            resource_version: resource_version.unwrap_or_default(),
            held,
        })
    }

    /// Reads one object. Errors: [`ClusterError::NotFound`] when it does not exist.
    pub async fn get(
        &self,
        kind: &ServedKind,
        namespace: &str,
        name: &str,
    ) -> Result<Value, ClusterError> {
        let ns = kind.namespaced.then_some(namespace);
        let url = super::path::object(kind, ns, name, None).map_err(|e| *e)?;
        let op = Op {
            verb: "get",
            resource: kind.resource(),
            scope: match ns {
                Some(ns) => format!(" in namespace \"{ns}\""),
                None => String::new(),
            },
        };
        let obj = self
            .call(&op, || {
                http::Request::get(url.clone())
                    .body(Vec::new())
                    .map_err(|e| e.to_string())
            })
            .await
            .map_err(|e| match e {
                ClusterError::NotFound {
                    resource, scope, ..
                } => ClusterError::NotFound {
                    resource,
                    name: name.to_string(),
                    scope,
                },
                e => e,
            })?;
        let obj = with_type(obj, kind);
        check_identity(&obj).map_err(|e| op.malformed(e))?;
        let got = obj.get("kind").and_then(Value::as_str).unwrap_or("");
        if got != kind.kind {
            return Err(ClusterError::Malformed {
                verb: "get".into(),
                resource: kind.resource(),
                scope: String::new(),
                detail: format!("asked for a {}, the answer is a {got:?}", kind.kind),
            });
        }
        Ok(obj)
    }

    /// One request with retries and the timeout; the answer parsed as JSON, its memory held
    /// of the command's bound ([`Cluster::hold`]).
    pub(super) async fn call<F>(&self, op: &Op<'_>, build: F) -> Result<Value, ClusterError>
    where
        F: Fn() -> Result<http::Request<Vec<u8>>, String>,
    {
        self.call_held(op, build).await.map(|(v, _)| v)
    }

    /// [`Cluster::call`], with the bytes the answer holds of the command's bound.
    pub(super) async fn call_held<F>(
        &self,
        op: &Op<'_>,
        build: F,
    ) -> Result<(Value, u64), ClusterError>
    where
        F: Fn() -> Result<http::Request<Vec<u8>>, String>,
    {
        let limit =
            time_limit(op, self.timeout, self.discovery_timeout).map(|(t, why)| (t, t, why));
        self.call_within(op, build, self.within_deadline(limit))
            .await
    }

    /// `limit` (how long to wait, the bound as messages give it, and its name), or what is
    /// left of the command's deadline when that comes first.
    pub(super) fn within_deadline(
        &self,
        limit: Option<(Duration, Duration, String)>,
    ) -> Option<(Duration, Duration, String)> {
        let Some(d) = self.deadline else {
            return limit;
        };
        let left = d.left();
        match limit {
            Some(l) if l.0 <= left => Some(l),
            _ => Some((left, d.given, d.flag.to_string())),
        }
    }

    async fn call_within<F>(
        &self,
        op: &Op<'_>,
        build: F,
        limit: Option<(Duration, Duration, String)>,
    ) -> Result<(Value, u64), ClusterError>
    where
        F: Fn() -> Result<http::Request<Vec<u8>>, String>,
    {
        // The last throttling answer, so that a timeout during retries says what happened.
        let throttled: std::cell::RefCell<Option<ClusterError>> = std::cell::RefCell::new(None);
        let attempt_all = async {
            let mut attempt = 0u32;
            loop {
                let req = build()
                    .map_err(|e| ClusterError::Config(format!("cannot build the request: {e}")))?;
                let res = self
                    .client
                    .send(req.map(kube::client::Body::from))
                    .await
                    .map_err(|e| self.classify(op, e))?;
                let code = res.status().as_u16();
                let header = |name: &str| {
                    res.headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(|v| v.trim().to_string())
                };
                let retry_after = header("Retry-After").and_then(|v| v.parse::<u64>().ok());
                let location = header("Location");
                let body = self.read_body(op, res.into_body()).await?;
                if (200..300).contains(&code) {
                    let malformed = |detail| ClusterError::Malformed {
                        verb: op.verb.into(),
                        resource: op.resource.clone(),
                        scope: op.scope.clone(),
                        detail,
                    };
                    let estimate = scan_answer(&body).map_err(malformed)?;
                    self.hold(op, estimate).map_err(|e| *e)?;
                    return parse_scanned(&body)
                        .map(|v| (v, estimate))
                        .map_err(malformed);
                }
                let (reason, message) = status_text(code, &body, location.as_deref());
                if matches!(code, 429 | 503 | 504) {
                    attempt += 1;
                    let err = ClusterError::Throttled {
                        verb: op.verb.into(),
                        resource: op.resource.clone(),
                        scope: op.scope.clone(),
                        code,
                        reason: reason_phrase(code).into(),
                        attempts: attempt,
                        message: message.clone(),
                    };
                    if attempt > MAX_RETRIES {
                        return Err(err);
                    }
                    *throttled.borrow_mut() = Some(err);
                    let backoff = Duration::from_millis(200 << (attempt - 1));
                    let wait = retry_after
                        .filter(|s| *s > 0)
                        .map(Duration::from_secs)
                        .unwrap_or(backoff);
                    tokio::time::sleep(wait.min(MAX_RETRY_AFTER)).await;
                    continue;
                }
                return Err(api_error(op, code, reason, message));
            }
        };
        match limit {
            None => attempt_all.await,
            Some((t, shown, why)) => match tokio::time::timeout(t, attempt_all).await {
                Ok(r) => r,
                Err(_) => Err(throttled
                    .into_inner()
                    .unwrap_or_else(|| op.timed_out(&self.server, shown, &why))),
            },
        }
    }

    /// An answer's body, frame by frame, refused once it exceeds `--max-response-bytes`
    /// (kube's own `collect` would read an endless body until memory runs out), or once the
    /// answers read at the same time hold more than that between them
    /// ([`ClusterError::TooLargeTogether`]). The buffer grows to the bound and no further, so
    /// that a body just under it does not hold twice its size.
    async fn read_body(
        &self,
        op: &Op<'_>,
        mut body: kube::client::Body,
    ) -> Result<Vec<u8>, ClusterError> {
        let limit = self.max_response_bytes;
        let mut out = Vec::new();
        let mut held = Held {
            reading: &self.reading,
            bytes: 0,
        };
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| self.classify(op, e))?;
            if let Ok(data) = frame.into_data() {
                let need = out.len() as u64 + data.len() as u64;
                if need > limit {
                    return Err(ClusterError::TooLarge {
                        verb: op.verb.into(),
                        resource: op.resource.clone(),
                        scope: op.scope.clone(),
                        limit,
                    });
                }
                if need > out.capacity() as u64 {
                    let grown = grown_capacity(out.capacity() as u64, need, limit);
                    if !held.grow(grown - out.capacity() as u64, limit) {
                        return Err(ClusterError::TooLargeTogether {
                            verb: op.verb.into(),
                            resource: op.resource.clone(),
                            scope: op.scope.clone(),
                            limit,
                        });
                    }
                    // `grown` is at most `limit`, which came from a usize-sized flag.
                    out.reserve_exact(usize::try_from(grown).unwrap_or(usize::MAX) - out.len());
                }
                out.extend_from_slice(&data);
            }
        }
        Ok(out)
    }

    /// The bound on what the command holds of parsed answers, all together: [`PARSED_FACTOR`]
    /// times `--max-response-bytes`.
    ///
    /// [`PARSED_FACTOR`]: super::parsed_size::PARSED_FACTOR
    pub(super) fn max_parsed(&self) -> u64 {
        self.max_response_bytes
            .saturating_mul(super::parsed_size::PARSED_FACTOR)
    }

    /// Holds `bytes` of the command's bound on parsed answers for an answer about to be
    /// parsed (they stay held: a command keeps what it read). Errors:
    /// [`ClusterError::TooMuchHeld`] when they do not fit.
    pub(super) fn hold(&self, op: &Op<'_>, bytes: u64) -> Result<(), Box<ClusterError>> {
        if self.held.take(bytes, self.max_parsed()) {
            return Ok(());
        }
        Err(Box::new(ClusterError::TooMuchHeld {
            verb: op.verb.into(),
            resource: op.resource.clone(),
            scope: op.scope.clone(),
            limit: self.max_parsed(),
        }))
    }

    pub(super) fn classify(&self, op: &Op<'_>, e: kube::Error) -> ClusterError {
        let (verb, resource, scope) = (op.verb.to_string(), op.resource.clone(), op.scope.clone());
        match e {
            kube::Error::Api(s) => match s.code {
                403 => ClusterError::Forbidden {
                    verb,
                    resource,
                    scope,
                    message: s.message.clone(),
                },
                404 => ClusterError::NotFound {
                    resource,
                    name: String::new(),
                    scope,
                },
                code => ClusterError::Api {
                    verb,
                    resource,
                    scope,
                    code,
                    reason: if s.reason.is_empty() || s.reason == "Failed to parse error data" {
                        reason_phrase(code).to_string()
                    } else {
                        s.reason.clone()
                    },
                    message: if s.message.is_empty() {
                        "(no message)".to_string()
                    } else {
                        s.message.clone()
                    },
                },
            },
            kube::Error::SerdeError(e) => ClusterError::Malformed {
                verb,
                resource,
                scope,
                detail: e.to_string(),
            },
            other => {
                let detail = root_cause(&other);
                if let Some(t) = self
                    .timeout
                    .filter(|_| detail.contains("timed out") || detail.contains("deadline"))
                {
                    return op.timed_out(&self.server, t, "--request-timeout");
                }
                ClusterError::Connection {
                    verb,
                    resource,
                    scope,
                    server: self.server.clone(),
                    detail,
                }
            }
        }
    }
}

/// The capacity a body buffer of `capacity` bytes grows to when it must hold `need`: twice
/// what it was (so that a body of many frames is copied O(1) times per byte), at least `need`,
/// at most `limit` (`need <= limit`). Pure.
pub(super) fn grown_capacity(capacity: u64, need: u64, limit: u64) -> u64 {
    capacity
        .saturating_mul(2)
        .max(need)
        .max(4096)
        .min(limit)
        .max(need)
}

/// The bytes one read holds of a [`Cluster`]'s shared count of answers being read, given back
/// when the read ends (its buffer is then the caller's to parse and drop).
struct Held<'a> {
    reading: &'a super::budget::Budget,
    bytes: u64,
}

impl Held<'_> {
    /// Takes `more` bytes of the count; false (taking none) when the count would pass `limit`.
    fn grow(&mut self, more: u64, limit: u64) -> bool {
        let taken = self.reading.take(more, limit);
        if taken {
            self.bytes += more;
        }
        taken
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.reading.give_back(self.bytes);
    }
}

/// An error answer as the API server words it: the `Status` object's reason and message when the
/// body is one, else the HTTP reason phrase and the body text (a proxy's HTML page, say).
pub(super) fn status_text(code: u16, body: &[u8], location: Option<&str>) -> (String, String) {
    if (300..400).contains(&code) {
        return (
            reason_phrase(code).to_string(),
            format!(
                "redirected to {}: API servers do not redirect; is the server URL of the kubeconfig right?",
                location.unwrap_or("(no Location)")
            ),
        );
    }
    if let Ok(s) = serde_json::from_slice::<kube::core::Status>(body) {
        let reason = if s.reason.is_empty() {
            reason_phrase(code).to_string()
        } else {
            s.reason
        };
        let message = if s.message.is_empty() {
            "(no message)".to_string()
        } else {
            s.message
        };
        return (reason, message);
    }
    let text = String::from_utf8_lossy(body);
    // One line: the answer's whitespace (an HTML page's line breaks) collapsed; control
    // characters are escaped where the message is printed.
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text: String = text.chars().take(300).collect();
    (
        reason_phrase(code).to_string(),
        if text.is_empty() {
            "(empty answer)".to_string()
        } else {
            text
        },
    )
}

/// The error for a final error answer.
pub(super) fn api_error(op: &Op<'_>, code: u16, reason: String, message: String) -> ClusterError {
    let (verb, resource, scope) = (op.verb.to_string(), op.resource.clone(), op.scope.clone());
    match code {
        403 => ClusterError::Forbidden {
            verb,
            resource,
            scope,
            message,
        },
        404 => ClusterError::NotFound {
            resource,
            name: String::new(),
            scope,
        },
        _ => ClusterError::Api {
            verb,
            resource,
            scope,
            code,
            reason,
            message,
        },
    }
}

/// The most pages a list may take: as many as `max_items` objects fill in pages of
/// `chunk_size`, and one more (the last page may be short, or empty with the end of the list).
pub(super) fn max_pages(max_items: u64, chunk_size: u32) -> u64 {
    max_items / u64::from(chunk_size.max(1)) + 1
}

/// Where a paged list stands after each page: whether to ask for another (the answer's
/// `continue` token) or stop, within the bounds on objects and pages. Pure.
#[derive(Debug, Clone)]
pub(super) struct Pager {
    chunk_size: u32,
    max_items: u64,
    max_pages: u64,
    pages: u64,
    token: Option<String>,
}

/// A bound a list went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PastBound {
    Items(u64),
    Pages { pages: u64, limit: u64, chunk: u32 },
}

impl PastBound {
    pub(super) fn error(self, op: &Op<'_>) -> ClusterError {
        let (resource, scope) = (op.resource.clone(), op.scope.clone());
        match self {
            PastBound::Items(limit) => ClusterError::TooManyItems {
                resource,
                scope,
                limit,
            },
            PastBound::Pages {
                pages,
                limit,
                chunk,
            } => ClusterError::TooManyPages {
                resource,
                scope,
                pages,
                limit,
                chunk,
            },
        }
    }
}

impl Pager {
    pub(super) fn new(chunk_size: u32, max_items: u64) -> Pager {
        Pager {
            chunk_size,
            max_items,
            max_pages: max_pages(max_items, chunk_size),
            pages: 0,
            token: None,
        }
    }

    /// One more page came, the list now holding `items` objects: the token to ask the next
    /// page with, or None at the end (no token; one-request lists; a server that hands back
    /// the token it was given would loop for ever). Errors: more objects than the bound, or a
    /// token past the last page the bound allows.
    pub(super) fn page(&mut self, items: usize, list: &Value) -> Result<Option<String>, PastBound> {
        self.pages += 1;
        if items as u64 > self.max_items {
            return Err(PastBound::Items(self.max_items));
        }
        let next = list
            .pointer("/metadata/continue")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty());
        match next {
            Some(_) if self.chunk_size > 0 && self.pages >= self.max_pages => {
                Err(PastBound::Pages {
                    pages: self.max_pages,
                    limit: self.max_items,
                    chunk: self.chunk_size,
                })
            }
            Some(t) if self.chunk_size > 0 && self.token.as_deref() != Some(t) => {
                self.token = Some(t.to_string());
                Ok(self.token.clone())
            }
            _ => Ok(None),
        }
    }
}

/// Pages of a list answer decoded as [`Cluster::list`] decodes and follows them (each page as
/// [`decode_list_answer`] decodes it, the bounds of `--max-list-items` in pages of
/// `chunk_size`), stopping where the list would stop. Pure, for fuzzing and tests. Errors:
/// the first page that is malformed, or a bound passed.
#[doc(hidden)]
pub fn decode_list_pages(
    pages: &[&[u8]],
    kind: &ServedKind,
    chunk_size: u32,
    max_items: u64,
) -> Result<Vec<Value>, Box<ClusterError>> {
    let op = Op {
        verb: "list",
        resource: kind.resource(),
        scope: String::new(),
    };
    let mut pager = Pager::new(chunk_size, max_items);
    let mut all = Vec::new();
    for body in pages {
        let mut list = parse_json(body).map_err(|e| Box::new(op.malformed(e)))?;
        all.extend(page_items(&mut list, &op)?);
        if pager
            .page(all.len(), &list)
            .map_err(|b| Box::new(b.error(&op)))?
            .is_none()
        {
            break;
        }
    }
    keep_items(all, kind, &op)
}

/// encoding/json's nesting limit (Go `scanner.go` `maxNestingDepth`): deeper answers are refused
/// as kubectl refuses them.
const MAX_DEPTH: usize = 10_000;

/// Checks an answer before it is parsed, on its bytes in one linear pass that builds nothing
/// ([`super::parsed_size::scan`]): UTF-8, nested no deeper than Go's limit of 10,000
/// (serde_json's own limit of 128 is lower than what the API server accepts), and what its
/// parsed form will take in memory, bytes (the caller holds that much of the command's bound
/// before parsing). Errors: not UTF-8, nested too deep.
pub(super) fn scan_answer(body: &[u8]) -> Result<u64, String> {
    if std::str::from_utf8(body).is_err() {
        return Err("the answer is not UTF-8".to_string());
    }
    match super::parsed_size::scan(body, MAX_DEPTH) {
        Some(s) => Ok(s.bytes),
        None => Err(format!(
            "nested deeper than {MAX_DEPTH} levels (Go's JSON decoder refuses it too)"
        )),
    }
}

/// Parses an answer: [`scan_answer`]'s checks, then JSON with numbers typed as Kubernetes
/// types them. Errors: not UTF-8, nested too deep, not JSON.
pub(super) fn parse_json(body: &[u8]) -> Result<Value, String> {
    scan_answer(body)?;
    parse_scanned(body)
}

/// Parses an answer [`scan_answer`] passed (it holds no recursion limit of its own).
pub(super) fn parse_scanned(body: &[u8]) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_slice(body);
    de.disable_recursion_limit();
    let v =
        serde::Deserialize::deserialize(&mut de).map_err(|e: serde_json::Error| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(crate::object::kube_numbers(v))
}

/// `metadata.resourceVersion` of a list answer (empty when it has none, or not a string).
fn list_resource_version(list: &Value) -> String {
    list.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The `items` of one list answer, moved out of it (Go encodes an empty slice as null: no
/// objects). Errors: no `items` list.
fn page_items(list: &mut Value, op: &Op<'_>) -> Result<Vec<Value>, Box<ClusterError>> {
    match list.get_mut("items") {
        Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => Ok(std::mem::take(a)),
        _ => Err(Box::new(
            op.malformed("the answer has no items list".into()),
        )),
    }
}

/// Only objects of the kind asked for: anything else in a list is not ours to show. An object of
/// that kind which does not name itself is an error (naming `items[i]`), not a blank row.
fn keep_items(
    all: Vec<Value>,
    kind: &ServedKind,
    op: &Op<'_>,
) -> Result<Vec<Value>, Box<ClusterError>> {
    let mut out = Vec::with_capacity(all.len());
    for (i, o) in all.into_iter().enumerate() {
        if !o.is_object() {
            continue;
        }
        let o = with_type(o, kind);
        if o.get("kind").and_then(Value::as_str) != Some(kind.kind.as_str()) {
            continue;
        }
        check_identity(&o).map_err(|e| Box::new(op.malformed(format!("items[{i}]: {e}"))))?;
        out.push(o);
    }
    Ok(out)
}

/// One list answer's body decoded as [`Cluster::list`] decodes each page: [`parse_json`]'s
/// checks (UTF-8, JSON, Go's nesting limit of 10,000), an `items` list, and the items of `kind`
/// that name themselves. Pure, for fuzzing and tests. Errors: [`ClusterError::Malformed`] with
/// the detail a user sees (boxed, as the module's other pure decoders box it).
#[doc(hidden)]
pub fn decode_list_answer(body: &[u8], kind: &ServedKind) -> Result<Vec<Value>, Box<ClusterError>> {
    let op = Op {
        verb: "list",
        resource: kind.resource(),
        scope: String::new(),
    };
    let mut list = parse_json(body).map_err(|e| Box::new(op.malformed(e)))?;
    keep_items(page_items(&mut list, &op)?, kind, &op)
}

/// An object from the server must name itself: `metadata` a mapping with a non-empty string
/// `name` (a namespace, when present, a string), else it would be shown as ` / `.
fn check_identity(o: &Value) -> Result<(), String> {
    let Some(meta) = o.get("metadata") else {
        return Err("an object without metadata".into());
    };
    let Some(meta) = meta.as_object() else {
        return Err(format!(
            "metadata is {}, not a map",
            crate::object::json_type(meta)
        ));
    };
    match meta.get("name") {
        Some(Value::String(n)) if !n.is_empty() => {}
        Some(Value::String(_)) => return Err("metadata.name is empty".into()),
        None => return Err("an object without metadata.name".into()),
        Some(other) => {
            return Err(format!(
                "metadata.name is {}, not a string",
                crate::object::json_type(other)
            ))
        }
    }
    match meta.get("namespace") {
        None | Some(Value::Null) | Some(Value::String(_)) => Ok(()),
        Some(other) => Err(format!(
            "metadata.namespace is {}, not a string",
            crate::object::json_type(other)
        )),
    }
}

pub(super) fn with_type(mut o: Value, kind: &ServedKind) -> Value {
    if let Some(m) = o.as_object_mut() {
        let api_version = if kind.group.is_empty() {
            kind.version.clone()
        } else {
            format!("{}/{}", kind.group, kind.version)
        };
        m.entry("apiVersion").or_insert(Value::String(api_version));
        m.entry("kind").or_insert(Value::String(kind.kind.clone()));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Go's `encoding/json` refuses a value nested deeper than 10,000 (`maxNestingDepth` in
    /// `scanner.go`); the same bound is counted on the bytes, brackets inside strings (escaped
    /// quotes included) not counting.
    /// What a selection covers on the client's side: the namespace of a namespaced kind, and
    /// the name of a `metadata.name=` field selector; anything else is the server's.
    #[test]
    fn a_selection_covers_its_namespace_and_name() {
        let kind = pactos();
        let o = |ns: &str, name: &str| json!({"metadata": {"namespace": ns, "name": name}});
        let shop = Selection::new(Scope::Namespace("shop"));
        assert!(shop.covers(&kind, &o("shop", "a")));
        assert!(!shop.covers(&kind, &o("other", "a")));
        assert!(Selection::new(Scope::All).covers(&kind, &o("other", "a")));
        let one = shop.fields(Some("metadata.name=a"));
        assert!(one.covers(&kind, &o("shop", "a")));
        assert!(!one.covers(&kind, &o("shop", "b")));
        let two_terms = shop.fields(Some("metadata.name=a,status.phase=x"));
        assert!(two_terms.covers(&kind, &o("shop", "b")));
        let labelled = shop.labels(Some("app=x"));
        assert!(labelled.covers(&kind, &o("shop", "b")));
    }

    #[test]
    fn the_nesting_bound_is_counted_on_the_bytes() {
        let nested_deeper_than =
            |body: &[u8], max: usize| super::super::parsed_size::scan(body, max).is_none();
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(!nested_deeper_than(deep(10_000).as_bytes(), MAX_DEPTH));
        assert!(nested_deeper_than(deep(10_001).as_bytes(), MAX_DEPTH));
        let quoted = format!(
            "{{\"a\": \"{}\\\"{}\"}}",
            "[".repeat(20_000),
            "{".repeat(20_000)
        );
        assert!(!nested_deeper_than(quoted.as_bytes(), MAX_DEPTH));
        assert!(serde_json::from_str::<Value>(&quoted).is_ok());
        let wide = format!("[{}]", "[],".repeat(50_000) + "[]");
        assert!(!nested_deeper_than(wide.as_bytes(), 2));
        assert!(nested_deeper_than(b"[[[", 2));
        assert_eq!(
            parse_json(deep(2_000_000).as_bytes()).unwrap_err(),
            "nested deeper than 10000 levels (Go's JSON decoder refuses it too)"
        );
        // Parsing (and dropping) 10,000 levels recurses: the commands run on threads with a
        // large stack (the plugin's runtime), as this check does.
        let at_bound = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || parse_json(deep(10_000).as_bytes()).map(|_| ()))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(at_bound, Ok(()));
    }

    /// The pages a list follows: until an answer without a token (or with the token it was
    /// given again), at most `--max-list-items` objects and the pages that many fill in pages
    /// of `--chunk-size`, and one more.
    #[test]
    fn a_list_follows_its_pages_within_its_bounds() {
        let page = |n: usize, token: &str| {
            let items: Vec<Value> = (0..n)
                .map(|i| json!({"metadata": {"name": format!("p{i}")}}))
                .collect();
            serde_json::to_vec(&json!({"metadata": {"continue": token}, "items": items})).unwrap()
        };
        let (a, b, end) = (page(2, "t1"), page(2, "t2"), page(1, ""));
        let got = decode_list_pages(&[&a, &b, &end, &a], &pactos(), 2, 10).unwrap();
        assert_eq!(got.len(), 5);
        // The same token again ends the list.
        assert_eq!(
            decode_list_pages(&[&a, &a, &b], &pactos(), 2, 10)
                .unwrap()
                .len(),
            4
        );
        assert_eq!(
            decode_list_pages(&[&a, &b, &a], &pactos(), 2, 3).unwrap_err().to_string(),
            "cannot list pactos.pacto.trianalab.io: the API server sent more than 3 objects (--max-list-items; give a larger bound to read them)"
        );
        let empty: Vec<Vec<u8>> = (0..10).map(|i| page(0, &format!("e{i}"))).collect();
        let empty: Vec<&[u8]> = empty.iter().map(Vec::as_slice).collect();
        assert_eq!(
            decode_list_pages(&empty, &pactos(), 2, 7).unwrap_err().to_string(),
            "cannot list pactos.pacto.trianalab.io: the API server kept sending continue tokens past 4 pages (--max-list-items 7 in pages of --chunk-size 2)"
        );
        // One request per list (--chunk-size 0): a token is not followed.
        assert_eq!(
            decode_list_pages(&[&a, &b], &pactos(), 0, 10)
                .unwrap()
                .len(),
            2
        );
    }

    /// An object that does not name itself is refused (it would be shown as ` / `).
    #[test]
    fn objects_from_the_server_must_name_themselves() {
        assert!(check_identity(&json!({"metadata": {"name": "a", "namespace": "b"}})).is_ok());
        assert_eq!(
            check_identity(&json!({"kind": "Pacto"})).unwrap_err(),
            "an object without metadata"
        );
        assert_eq!(
            check_identity(&json!({"metadata": {"namespace": "b"}})).unwrap_err(),
            "an object without metadata.name"
        );
        assert_eq!(
            check_identity(&json!({"metadata": {"name": 5}})).unwrap_err(),
            "metadata.name is a number, not a string"
        );
        assert_eq!(
            check_identity(&json!({"metadata": []})).unwrap_err(),
            "metadata is a list, not a map"
        );
    }

    fn pactos() -> ServedKind {
        ServedKind {
            group: "pacto.trianalab.io".into(),
            version: "v1alpha1".into(),
            kind: "Pacto".into(),
            plural: "pactos".into(),
            namespaced: true,
        }
    }

    /// A page keeps the objects of the kind asked for (typed when the server left
    /// `apiVersion`/`kind` out), skips others, and refuses an object that does not name itself.
    #[test]
    fn a_list_answer_keeps_the_items_of_its_kind() {
        let body = br#"{"kind":"PactoList","items":[{"metadata":{"name":"a"}},{"kind":"Other","metadata":{}},7]}"#;
        let items = decode_list_answer(body, &pactos()).unwrap();
        assert_eq!(
            items,
            vec![
                json!({"metadata": {"name": "a"}, "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto"})
            ]
        );
        assert!(decode_list_answer(br#"{"items":null}"#, &pactos())
            .unwrap()
            .is_empty());
        assert_eq!(
            decode_list_answer(br#"{"items":{}}"#, &pactos()).unwrap_err().to_string(),
            "cannot list pactos.pacto.trianalab.io: the API server's answer is malformed: the answer has no items list"
        );
        assert_eq!(
            decode_list_answer(br#"{"items":[{"metadata":{"name":""}}]}"#, &pactos())
                .unwrap_err()
                .to_string(),
            "cannot list pactos.pacto.trianalab.io: the API server's answer is malformed: items[0]: metadata.name is empty"
        );
    }

    /// A body buffer doubles, reaches what it must hold, and never passes the bound: a body
    /// just under 256 MiB is held in 256 MiB, not 512.
    #[test]
    fn a_body_buffer_grows_to_the_bound_and_no_further() {
        let mib = 1u64 << 20;
        assert_eq!(grown_capacity(0, 10, 256 * mib), 4096);
        assert_eq!(grown_capacity(4096, 5000, 256 * mib), 8192);
        assert_eq!(grown_capacity(4096, 100_000, 256 * mib), 100_000);
        assert_eq!(
            grown_capacity(200 * mib, 200 * mib + 1, 256 * mib),
            256 * mib
        );
        assert_eq!(grown_capacity(0, 10, 8), 10);
        assert_eq!(
            grown_capacity(u64::MAX / 2 + 1, u64::MAX / 2 + 2, u64::MAX),
            u64::MAX
        );
    }

    /// Reads in flight share one count: a read takes what fits under the bound and gives it
    /// back when it ends.
    #[test]
    fn reads_at_once_share_one_bound() {
        let reading = super::super::budget::Budget::default();
        let mut a = Held {
            reading: &reading,
            bytes: 0,
        };
        let mut b = Held {
            reading: &reading,
            bytes: 0,
        };
        assert!(a.grow(60, 100));
        assert!(b.grow(40, 100));
        assert!(!b.grow(1, 100));
        assert_eq!(b.bytes, 40);
        drop(a);
        assert_eq!(reading.now(), 40);
        assert!(b.grow(60, 100));
        assert!(!b.grow(u64::MAX, u64::MAX));
        drop(b);
        assert_eq!(reading.now(), 0);
    }
}
