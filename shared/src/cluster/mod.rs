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
mod gates;

pub use gates::cluster_gates;

pub use error::{chain, reason_phrase, root_cause, ClusterError};

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
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
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
    /// The API server URL, for messages.
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
        let env_files = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty());
        let home_file = std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".kube/config"))
            .filter(|p| p.exists());
        let mut config = if let Some(path) = &o.kubeconfig {
            let source = path.display().to_string();
            let kc = Kubeconfig::read_from(path).map_err(|e| config_error(&source, e))?;
            Config::from_custom_kubeconfig(kc, &opts)
                .await
                .map_err(|e| config_error(&source, e))?
        } else if env_files.is_some() || home_file.is_some() {
            let source = match &env_files {
                Some(v) => format!("KUBECONFIG={}", v.to_string_lossy()),
                None => home_file.unwrap_or_default().display().to_string(),
            };
            Config::from_kubeconfig(&opts)
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
        let timeout = o.request_timeout.filter(|t| !t.is_zero());
        if let Some(t) = timeout {
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
        let client = Client::try_from(config).map_err(|e| {
            ClusterError::Config(format!("cannot build a client for {server}: {}", chain(&e)))
        })?;
        Ok(Cluster {
            client,
            default_namespace,
            server,
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
            .call(&op, || http::Request::get(url.clone()).body(Vec::new()))
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
                Request::new(url.clone()).list(&lp).map_err(to_http_error)
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
        let items =
            list.get("items")
                .and_then(Value::as_array)
                .ok_or_else(|| ClusterError::Malformed {
                    verb: op.verb.into(),
                    resource: op.resource.clone(),
                    scope: op.scope.clone(),
                    detail: "the answer has no items list".into(),
                })?;
        Ok(items.iter().map(|o| with_type(o.clone(), kind)).collect())
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
                    .map_err(to_http_error)
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
        Ok(with_type(obj, kind))
    }

    /// One request with retries and the timeout; the answer parsed as JSON.
    async fn call<F>(&self, op: &Op<'_>, build: F) -> Result<Value, ClusterError>
    where
        F: Fn() -> Result<http::Request<Vec<u8>>, http::Error>,
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
        F: Fn() -> Result<http::Request<Vec<u8>>, http::Error>,
    {
        let attempt_all = async {
            let mut attempt = 0u32;
            loop {
                let req = build()
                    .map_err(|e| ClusterError::Config(format!("cannot build the request: {e}")))?;
                match self.client.request_text(req).await {
                    Ok(text) => {
                        return serde_json::from_str::<Value>(&text)
                            .map(crate::object::kube_numbers)
                            .map_err(|e| ClusterError::Malformed {
                                verb: op.verb.into(),
                                resource: op.resource.clone(),
                                scope: op.scope.clone(),
                                detail: e.to_string(),
                            })
                    }
                    Err(kube::Error::Api(s)) if matches!(s.code, 429 | 503 | 504) => {
                        attempt += 1;
                        if attempt > MAX_RETRIES {
                            return Err(ClusterError::Throttled {
                                verb: op.verb.into(),
                                resource: op.resource.clone(),
                                scope: op.scope.clone(),
                                code: s.code,
                                reason: reason_phrase(s.code).into(),
                                attempts: attempt,
                                message: s.message.clone(),
                            });
                        }
                        let server_says = s
                            .details
                            .as_ref()
                            .map(|d| Duration::from_secs(d.retry_after_seconds.into()))
                            .filter(|d| !d.is_zero());
                        let backoff = Duration::from_millis(200 << (attempt - 1));
                        tokio::time::sleep(server_says.unwrap_or(backoff).min(MAX_RETRY_AFTER))
                            .await;
                    }
                    Err(e) => return Err(self.classify(op, e)),
                }
            }
        };
        match limit {
            None => attempt_all.await,
            Some((t, why)) => match tokio::time::timeout(t, attempt_all).await {
                Ok(r) => r,
                Err(_) => Err(self.timed_out(op, t, &why)),
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

fn to_http_error(e: kube::core::request::Error) -> http::Error {
    match e {
        kube::core::request::Error::BuildRequest(e) => e,
        // Building a GET or a list only fails on a malformed URL, which becomes an http error.
        other => http::Request::get(format!("\u{0}{other}"))
            .body(())
            .unwrap_err(),
    }
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
