//! Talking to a cluster: a kube-rs client built from the flags kubectl users expect
//! (`--kubeconfig`, `KUBECONFIG` with several files merged, `--context`, the context's namespace,
//! `--request-timeout`, in-cluster configuration), kinds found by discovery (never a guessed
//! plural), and reads that return the objects exactly as the API server sent them.
//!
//! Each list is one request (no paging), so listing a kind costs one call whatever the count.
//! Throttling (429) and 503/504 answers are retried three times, honouring `Retry-After` up to
//! 5 s; `--request-timeout` bounds each operation including its retries. The client's own retry
//! layer is off so that these bounds hold.

mod error;
pub mod proxy;

pub use error::{chain, reason_phrase, root_cause, ClusterError};

use http_body_util::BodyExt;
use kube::api::ListParams;
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind, Request};
use kube::{Client, Config, Resource as _};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// How to reach the cluster.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig`: this file only (no `KUBECONFIG` merge).
    pub kubeconfig: Option<PathBuf>,
    /// `--context`: a context of the kubeconfig instead of its current-context.
    pub context: Option<String>,
    /// `--request-timeout`; None or zero: no timeout.
    pub request_timeout: Option<Duration>,
}

/// A kind the API server serves, as discovery describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kind {
    /// API group, empty for the core group.
    pub group: String,
    /// API version, e.g. `v1alpha1`.
    pub version: String,
    /// Kind, e.g. `Pacto`.
    pub kind: String,
    /// Resource name in URLs, as discovery gives it, e.g. `pactos`.
    pub plural: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
}

impl Kind {
    /// `pactos.pacto.trianalab.io`, or `configmaps` for the core group (kubectl's spelling).
    pub fn resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    fn api_resource(&self) -> ApiResource {
        ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(&self.group, &self.version, &self.kind),
            &self.plural,
        )
    }

    /// The core v1 ConfigMap (no discovery needed).
    pub fn configmap() -> Kind {
        Kind {
            group: String::new(),
            version: "v1".into(),
            kind: "ConfigMap".into(),
            plural: "configmaps".into(),
            namespaced: true,
        }
    }
}

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

/// A connected client.
pub struct Cluster {
    client: Client,
    /// The context's namespace, else `default` (kubectl's fallback when `-n` is absent).
    pub default_namespace: String,
    /// The API server URL (and the proxy used to reach it, if any), for messages.
    pub server: String,
    timeout: Option<Duration>,
}

const MAX_RETRIES: u32 = 3;
/// client-go's discovery client timeout when none is set (`discovery_client.go`
/// `setDiscoveryDefaults`: `defaultTimeout = 32 * time.Second`): kubectl gives up on a silent
/// API server after it, and so do we.
pub const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(32);
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);

/// What a request was, for error messages.
struct Op<'a> {
    verb: &'a str,
    resource: String,
    scope: String,
}

/// The `proxy-url` of the cluster the context in use names.
fn cluster_proxy_url(kc: &Kubeconfig, context: Option<&str>) -> Option<String> {
    let name = context.or(kc.current_context.as_deref())?;
    let ctx = kc
        .contexts
        .iter()
        .find(|c| c.name == name)?
        .context
        .as_ref()?;
    kc.clusters
        .iter()
        .find(|c| c.name == ctx.cluster)?
        .cluster
        .as_ref()?
        .proxy_url
        .clone()
        .filter(|p| !p.is_empty())
}

/// The context in use must name a cluster and a user the kubeconfig defines (kubectl refuses
/// otherwise; kube would connect without credentials).
fn check_context(kc: &Kubeconfig, context: Option<&str>) -> Result<(), String> {
    let Some(name) = context.or(kc.current_context.as_deref()) else {
        return Ok(()); // kube's own error names the missing current-context
    };
    let Some(ctx) = kc.contexts.iter().find(|c| c.name == name) else {
        return Err(format!("context \"{name}\" not found in the kubeconfig"));
    };
    let Some(ctx) = &ctx.context else {
        return Ok(());
    };
    if let Some(user) = ctx.user.as_deref().filter(|u| !u.is_empty()) {
        if !kc.auth_infos.iter().any(|a| a.name == user) {
            return Err(format!(
                "user \"{user}\" was not found for context \"{name}\""
            ));
        }
    }
    if !kc.clusters.iter().any(|c| c.name == ctx.cluster) {
        return Err(format!(
            "cluster \"{}\" was not found for context \"{name}\"",
            ctx.cluster
        ));
    }
    Ok(())
}

fn config_error(source: &str, e: KubeconfigError) -> ClusterError {
    let text = match &e {
        KubeconfigError::LoadContext(ctx) => {
            format!("context \"{ctx}\" not found in the kubeconfig")
        }
        KubeconfigError::CurrentContextNotSet => {
            "the kubeconfig has no current-context (give --context)".to_string()
        }
        other => chain(other),
    };
    ClusterError::Config(format!("{source}: {text}"))
}

impl Cluster {
    /// Builds the client. Order, as kubectl: `--kubeconfig`; else `KUBECONFIG` (files merged) or
    /// `~/.kube/config`; else the in-cluster service account. Errors: an unreadable or malformed
    /// kubeconfig, an unknown context, no configuration at all.
    pub async fn connect(o: &ConnectOptions) -> Result<Cluster, ClusterError> {
        let opts = KubeConfigOptions {
            context: o.context.clone(),
            cluster: None,
            user: None,
        };
        let env_files: Vec<PathBuf> = std::env::var_os("KUBECONFIG")
            .map(|v| {
                std::env::split_paths(&v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let home_file = std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".kube/config"))
            .filter(|p| p.exists());
        let loaded = if let Some(path) = &o.kubeconfig {
            let source = path.display().to_string();
            let kc = Kubeconfig::read_from(path).map_err(|e| config_error(&source, e))?;
            Some((kc, source))
        } else if !env_files.is_empty() {
            // kubectl's merge: the files of KUBECONFIG in order, missing ones skipped, the first
            // file to set a value wins.
            let source = format!(
                "KUBECONFIG={}",
                std::env::var_os("KUBECONFIG")
                    .unwrap_or_default()
                    .to_string_lossy()
            );
            let mut merged: Option<Kubeconfig> = None;
            for f in env_files.iter().filter(|f| f.exists()) {
                let kc = Kubeconfig::read_from(f)
                    .map_err(|e| config_error(&f.display().to_string(), e))?;
                merged = Some(match merged {
                    None => kc,
                    Some(m) => m.merge(kc).map_err(|e| config_error(&source, e))?,
                });
            }
            match merged {
                Some(kc) => Some((kc, source)),
                None => {
                    return Err(ClusterError::Config(format!(
                        "{source}: none of these files exists: give --kubeconfig, fix KUBECONFIG, or read files with -f"
                    )))
                }
            }
        } else if let Some(home) = &home_file {
            let source = home.display().to_string();
            let kc = Kubeconfig::read_from(home).map_err(|e| config_error(&source, e))?;
            Some((kc, source))
        } else {
            None
        };
        let mut explicit_proxy = None;
        let mut config = if let Some((kc, source)) = loaded {
            check_context(&kc, o.context.as_deref())
                .map_err(|e| ClusterError::Config(format!("{source}: {e}")))?;
            explicit_proxy = cluster_proxy_url(&kc, o.context.as_deref());
            Config::from_custom_kubeconfig(kc, &opts)
                .await
                .map_err(|e| config_error(&source, e))?
        } else if o.context.is_some() {
            return Err(ClusterError::Config(
                "--context given, but there is no kubeconfig (KUBECONFIG is unset and ~/.kube/config does not exist)".into(),
            ));
        } else {
            Config::incluster().map_err(|e| {
                let detail = if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
                    format!(" ({})", root_cause(&e))
                } else {
                    String::new()
                };
                ClusterError::Config(format!(
                    "no kubeconfig (KUBECONFIG is unset and ~/.kube/config does not exist) and not running in a cluster{detail}: give --kubeconfig, set KUBECONFIG, or read files with -f"
                ))
            })?
        };
        config.default_retry = false;
        config.proxy_url = proxy::proxy_for(&config.cluster_url, explicit_proxy.as_deref(), |k| {
            std::env::var(k).ok().filter(|v| !v.is_empty())
        })
        .map_err(ClusterError::Config)?;
        let via = config
            .proxy_url
            .as_ref()
            .map(|p| format!(" through the proxy {}", p.to_string().trim_end_matches('/')));
        let timeout = o.request_timeout.filter(|t| !t.is_zero());
        if let Some(t) = timeout {
            // The transport's own timers add the duration to an Instant: keep them in range
            // (the overall limit below has no such bound).
            let t = t.min(Duration::from_secs(86_400));
            config.read_timeout = Some(t);
            config.reset_reader_on_write = true;
            config.connect_timeout = Some(config.connect_timeout.map_or(t, |c| c.min(t)));
        }
        let server = config
            .cluster_url
            .to_string()
            .trim_end_matches('/')
            .to_string();
        let default_namespace = config.default_namespace.clone();
        // Messages name the proxy when there is one: a refused connection may be the proxy's.
        let described = format!("{server}{}", via.unwrap_or_default());
        // Building the client runs a kubeconfig exec credential plugin, a blocking child
        // process: off the runtime's thread, within the request timeout.
        let build = tokio::task::spawn_blocking(move || Client::try_from(config));
        let built = match timeout {
            None => build.await,
            Some(t) => tokio::time::timeout(t, build).await.map_err(|_| {
                ClusterError::Config(format!(
                    "the kubeconfig's credentials for {server} were not ready within {} (--request-timeout): is its exec plugin stuck?",
                    crate::flux::wait::go_duration(t)
                ))
            })?,
        };
        let client = built
            .map_err(|e| ClusterError::Config(format!("cannot build a client for {server}: {e}")))?
            .map_err(|e| {
                ClusterError::Config(format!("cannot build a client for {server}: {}", chain(&e)))
            })?;
        Ok(Cluster {
            client,
            default_namespace,
            server: described,
            timeout,
        })
    }

    /// Finds a kind by discovery of its group version (`GET /apis/<group>/<version>`, one
    /// request). Errors: [`ClusterError::NotInstalled`] when the group version or the kind is not
    /// served; the request's own errors otherwise.
    pub async fn discover(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<Kind, ClusterError> {
        let gv = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        let url = if group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{gv}")
        };
        let op = Op {
            verb: "discover",
            resource: format!("the API group {gv}"),
            scope: String::new(),
        };
        let not_installed = || ClusterError::NotInstalled {
            kind: kind.to_string(),
            group_version: gv.clone(),
        };
        let list = match self
            .call(&op, || {
                http::Request::get(url.clone())
                    .body(Vec::new())
                    .map_err(|e| e.to_string())
            })
            .await
        {
            Ok(v) => v,
            Err(ClusterError::NotFound { .. }) => return Err(not_installed()),
            Err(e) => return Err(e),
        };
        let resources = list
            .get("resources")
            .and_then(Value::as_array)
            .ok_or_else(|| ClusterError::Malformed {
                verb: op.verb.into(),
                resource: op.resource.clone(),
                scope: String::new(),
                detail: "no resources list".into(),
            })?;
        resources
            .iter()
            .find(|r| {
                r.get("kind").and_then(Value::as_str) == Some(kind)
                    && r.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| !n.contains('/'))
            })
            .map(|r| Kind {
                group: group.to_string(),
                version: version.to_string(),
                kind: kind.to_string(),
                plural: r
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                namespaced: r.get("namespaced").and_then(Value::as_bool).unwrap_or(true),
            })
            .ok_or_else(not_installed)
    }

    /// Lists a kind in one request; items come back as sent, with `apiVersion` and `kind` filled
    /// in when the server left them out (built-in kinds).
    pub async fn list(
        &self,
        kind: &Kind,
        scope: Scope<'_>,
        selector: Option<&str>,
    ) -> Result<Vec<Value>, ClusterError> {
        let ar = kind.api_resource();
        let ns = match scope {
            Scope::Namespace(ns) if kind.namespaced => Some(ns),
            _ => None,
        };
        let url = DynamicObject::url_path(&ar, ns);
        let mut lp = ListParams::default();
        if let Some(s) = selector.filter(|s| !s.is_empty()) {
            lp = lp.labels(s);
        }
        let op = Op {
            verb: "list",
            resource: kind.resource(),
            scope: if kind.namespaced {
                scope.words()
            } else {
                String::new()
            },
        };
        let list = self
            .call(&op, || {
                Request::new(url.clone())
                    .list(&lp)
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
        let items = match list.get("items") {
            // Go encodes an empty slice as null: no objects.
            Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(a)) => a,
            _ => {
                return Err(ClusterError::Malformed {
                    verb: op.verb.into(),
                    resource: op.resource.clone(),
                    scope: op.scope.clone(),
                    detail: "the answer has no items list".into(),
                })
            }
        };
        // Only objects of the kind asked for: anything else in a list is not ours to show.
        Ok(items
            .iter()
            .filter(|o| o.is_object())
            .map(|o| with_type(o.clone(), kind))
            .filter(|o| o.get("kind").and_then(Value::as_str) == Some(kind.kind.as_str()))
            .collect())
    }

    /// Reads one object. Errors: [`ClusterError::NotFound`] when it does not exist.
    pub async fn get(
        &self,
        kind: &Kind,
        namespace: &str,
        name: &str,
    ) -> Result<Value, ClusterError> {
        let ar = kind.api_resource();
        let ns = kind.namespaced.then_some(namespace);
        let url = DynamicObject::url_path(&ar, ns);
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
                Request::new(url.clone())
                    .get(name, &Default::default())
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

    /// One request with retries and the timeout; the answer parsed as JSON.
    async fn call<F>(&self, op: &Op<'_>, build: F) -> Result<Value, ClusterError>
    where
        F: Fn() -> Result<http::Request<Vec<u8>>, String>,
    {
        let limit = match self.timeout {
            Some(t) => Some((t, "--request-timeout".to_string())),
            None if op.verb == "discover" => Some((
                DISCOVERY_TIMEOUT,
                "kubectl's discovery timeout; --request-timeout sets another".to_string(),
            )),
            None => None,
        };
        self.call_within(op, build, limit).await
    }

    async fn call_within<F>(
        &self,
        op: &Op<'_>,
        build: F,
        limit: Option<(Duration, String)>,
    ) -> Result<Value, ClusterError>
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
                let body = res
                    .into_body()
                    .collect()
                    .await
                    .map_err(|e| self.classify(op, e))?
                    .to_bytes();
                if (200..300).contains(&code) {
                    return parse_json(&body).map_err(|detail| ClusterError::Malformed {
                        verb: op.verb.into(),
                        resource: op.resource.clone(),
                        scope: op.scope.clone(),
                        detail,
                    });
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
            Some((t, why)) => match tokio::time::timeout(t, attempt_all).await {
                Ok(r) => r,
                Err(_) => Err(throttled
                    .into_inner()
                    .unwrap_or_else(|| self.timed_out(op, t, &why))),
            },
        }
    }

    fn timed_out(&self, op: &Op<'_>, after: Duration, limit: &str) -> ClusterError {
        ClusterError::Timeout {
            verb: op.verb.into(),
            resource: op.resource.clone(),
            scope: op.scope.clone(),
            server: self.server.clone(),
            after,
            limit: limit.to_string(),
        }
    }

    fn classify(&self, op: &Op<'_>, e: kube::Error) -> ClusterError {
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
                    return self.timed_out(op, t, "--request-timeout");
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

/// An error answer as the API server words it: the `Status` object's reason and message when the
/// body is one, else the HTTP reason phrase and the body text (a proxy's HTML page, say).
fn status_text(code: u16, body: &[u8], location: Option<&str>) -> (String, String) {
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
    let text = crate::render::one_line(text.trim());
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
fn api_error(op: &Op<'_>, code: u16, reason: String, message: String) -> ClusterError {
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

/// encoding/json's nesting limit (Go `scanner.go` `maxNestingDepth`): deeper answers are refused
/// as kubectl refuses them.
const MAX_DEPTH: usize = 10_000;

/// How deeply a value nests (a scalar is 0), without recursion.
fn depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    deepest
}

/// Parses an answer: JSON up to Go's depth limit (serde_json's own limit of 128 is lower than
/// what the API server accepts), numbers
/// typed as Kubernetes types them. Errors: not UTF-8, not JSON.
fn parse_json(body: &[u8]) -> Result<Value, String> {
    if std::str::from_utf8(body).is_err() {
        return Err("the answer is not UTF-8".to_string());
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    de.disable_recursion_limit();
    let v =
        serde::Deserialize::deserialize(&mut de).map_err(|e: serde_json::Error| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    if depth(&v) > MAX_DEPTH {
        return Err(format!(
            "nested deeper than {MAX_DEPTH} levels (Go's JSON decoder refuses it too)"
        ));
    }
    Ok(crate::object::kube_numbers(v))
}

fn with_type(mut o: Value, kind: &Kind) -> Value {
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
