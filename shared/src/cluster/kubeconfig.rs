//! The client of a cluster, built from the flags kubectl users expect: `--kubeconfig`,
//! `KUBECONFIG` with several files merged, `--context`, the context's namespace,
//! `--request-timeout`, in-cluster configuration. Follows kube-rs's
//! `kube-client/src/config/file_loader.rs` and, for the merge and the context checks, client-go's
//! `tools/clientcmd/loader.go` (kubectl's own loader). The client's own retry layer is off so
//! that the bounds of `request` hold.

use super::discovery::discovery_timeout;
use super::{chain, proxy, root_cause, Cluster, ClusterError};
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};
use std::path::{Path, PathBuf};
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
    /// The bound of a discovery request when no `--request-timeout` is given; None or zero:
    /// [`DISCOVERY_TIMEOUT`](super::DISCOVERY_TIMEOUT), kubectl's.
    pub discovery_timeout: Option<Duration>,
    /// `--chunk-size`: list in pages of this many objects (`limit`/`continue`); None:
    /// [`DEFAULT_CHUNK_SIZE`](super::DEFAULT_CHUNK_SIZE), kubectl's; 0: one request.
    pub chunk_size: Option<u32>,
    /// `--server`, `--token`, `--as`, ...: what the flags change in the kubeconfig's context.
    pub overrides: super::Overrides,
    /// `--max-response-bytes`: the most bytes read from one answer; None or 0:
    /// [`DEFAULT_MAX_RESPONSE_BYTES`](super::DEFAULT_MAX_RESPONSE_BYTES).
    pub max_response_bytes: Option<u64>,
    /// `--max-list-items`: the most objects one list may bring; None or 0:
    /// [`DEFAULT_MAX_LIST_ITEMS`](super::DEFAULT_MAX_LIST_ITEMS).
    pub max_list_items: Option<u64>,
    /// The command's deadline (`--timeout`), if any: see [`Cluster::set_deadline`].
    pub deadline: Option<super::Deadline>,
}

/// The `proxy-url` of the cluster the context in use names.
fn cluster_proxy_url(kc: &Kubeconfig, context: Option<&str>) -> Option<proxy::Explicit> {
    let name = context.or(kc.current_context.as_deref())?;
    let ctx = kc
        .contexts
        .iter()
        .find(|c| c.name == name)?
        .context
        .as_ref()?;
    let cluster = kc.clusters.iter().find(|c| c.name == ctx.cluster)?;
    let url = cluster
        .cluster
        .as_ref()?
        .proxy_url
        .clone()
        .filter(|p| !p.is_empty())?;
    Some(proxy::Explicit {
        url,
        cluster: cluster.name.clone(),
    })
}

/// The context in use must name a cluster and a user the kubeconfig defines (kubectl refuses
/// otherwise; kube would connect without credentials).
/// The context in use: `context` (`--context`), else the kubeconfig's current-context; None
/// when neither names a context the kubeconfig has (the caller's checks report that).
pub(super) fn context_in_use(
    kc: &Kubeconfig,
    context: Option<&str>,
) -> Option<kube::config::Context> {
    let name = context.or(kc.current_context.as_deref())?;
    kc.contexts
        .iter()
        .find(|c| c.name == name)
        .and_then(|c| c.context.clone())
}

/// The user (AuthInfo) named `user` in `kc`, to change in place.
pub(super) fn user_mut<'a>(
    kc: &'a mut Kubeconfig,
    user: &str,
) -> Option<&'a mut kube::config::AuthInfo> {
    kc.auth_infos
        .iter_mut()
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_mut())
}

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

/// A value an HTTP header can carry (RFC 9110 field-value: visible ASCII, space, tab and bytes
/// above 0x7f; the http crate refuses the rest, and kube panics on a refused token). Errors name
/// the first control character and its byte offset.
pub(super) fn header_safe(v: &str) -> Result<(), String> {
    match v
        .bytes()
        .enumerate()
        .find(|(_, b)| (*b < 0x20 && *b != b'\t') || *b == 0x7f)
    {
        Some((i, b)) => Err(format!(
            "holds a control character (\\x{b:02x} at byte {i})"
        )),
        None => Ok(()),
    }
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

/// kube-rs's `Kubeconfig::from_yaml` (`kube-client/src/config/file_config.rs`: serde-saphyr,
/// several documents merged), with the parser's bounds grown with the text's size as every YAML
/// input's are (`k8s::yaml::Bounds`; the file itself is bounded by `--max-input-bytes`):
/// kube-rs's defaults stop at 250,000 nodes, a kubeconfig of some 100,000 clusters. Errors:
/// [`ClusterError::Config`] naming `source`, a bound in a user's words.
fn kubeconfig_from_yaml(text: &str, source: &str) -> Result<Kubeconfig, Box<ClusterError>> {
    let (options, bounds) = crate::k8s::yaml::options_for_len(text.len());
    let docs: Vec<Kubeconfig> =
        serde_saphyr::from_multiple_with_options(text, options).map_err(|e| {
            let message = crate::k8s::yaml::first_line(&e.to_string());
            Box::new(ClusterError::Config(format!(
                "{source}: failed to parse kubeconfig YAML: {}",
                crate::k8s::yaml::readable(&message, &bounds)
            )))
        })?;
    docs.into_iter()
        .try_fold(Kubeconfig::default(), Kubeconfig::merge)
        .map_err(|e| Box::new(config_error(source, e)))
}

/// Reads a kubeconfig file, at most `--max-input-bytes`, as kube-rs's `Kubeconfig::read_from`
/// does (`kube-client/src/config/file_config.rs`): several documents merged, relative paths of
/// certificate, key, token files and exec commands with a `/` made absolute from the file's
/// directory. Errors name the file.
fn read_kubeconfig(path: &Path) -> Result<Kubeconfig, Box<ClusterError>> {
    let source = path.display().to_string();
    let text = crate::k8s::read::read_text(path)
        .map_err(|e| Box::new(ClusterError::Config(format!("{source}: {e}"))))?;
    let mut kc = kubeconfig_from_yaml(&text, &source)?;
    let Some(dir) = path.parent() else {
        return Ok(kc);
    };
    let absolute = |p: &mut Option<String>| {
        if let Some(v) = p.as_ref().filter(|v| Path::new(v).is_relative()) {
            if let Some(abs) = dir.join(v).to_str() {
                *p = Some(abs.to_string());
            }
        }
    };
    for c in kc.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        absolute(&mut c.certificate_authority);
    }
    for a in kc
        .auth_infos
        .iter_mut()
        .filter_map(|a| a.auth_info.as_mut())
    {
        absolute(&mut a.client_certificate);
        absolute(&mut a.client_key);
        absolute(&mut a.token_file);
        if let Some(e) = a.exec.as_mut() {
            // client-go `GetAuthInfoFileReferences`: only commands with a path separator.
            if e.command.as_deref().is_some_and(|c| c.contains('/')) {
                absolute(&mut e.command);
            }
        }
    }
    Ok(kc)
}

/// A kubeconfig's text checked as [`Cluster::connect`] checks it before any connection: kube-rs's
/// `Kubeconfig::from_yaml` (several documents merged), the context in use (`context`, else the
/// current-context) naming a cluster and a user the file defines, and the URLs of its cluster
/// (`server`, `proxy-url`) parsed as the proxy choice parses them (`cluster::proxy`, without
/// the environment). Returns the proxy the cluster names, if any. Pure (no file is read, no
/// plugin run), for fuzzing and tests. Errors: [`ClusterError::Config`] naming `source`, boxed.
#[doc(hidden)]
pub fn check_kubeconfig_text(
    text: &str,
    source: &str,
    context: Option<&str>,
) -> Result<Option<http::Uri>, Box<ClusterError>> {
    let config = |m: String| Box::new(ClusterError::Config(format!("{source}: {m}")));
    let kc = kubeconfig_from_yaml(text, source)?;
    check_context(&kc, context).map_err(config)?;
    let explicit = cluster_proxy_url(&kc, context);
    let server = context
        .or(kc.current_context.as_deref())
        .and_then(|name| kc.contexts.iter().find(|c| c.name == name))
        .and_then(|c| c.context.as_ref())
        .and_then(|ctx| kc.clusters.iter().find(|c| c.name == ctx.cluster))
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone());
    let Some(server) = server else {
        return Ok(None);
    };
    let uri: http::Uri = server
        .parse()
        .map_err(|e| config(format!("server {server:?}: {e}")))?;
    proxy::proxy_for(&uri, explicit.as_ref(), |_| None).map_err(config)
}

/// A kubeconfig found and where from (None: no file), and the `KUBECONFIG` text when every file
/// it names is missing.
type Found = (Option<(Kubeconfig, String)>, Option<String>);

/// The kubeconfig kubectl would read, and where from: `kubeconfig` (`--kubeconfig`) alone; else
/// the files of `KUBECONFIG` merged (missing ones skipped; when all are missing, none, with the
/// variable's text as the second value); else `~/.kube/config` when it exists; else none.
/// Errors: a file that cannot be read or parsed, or files that do not merge, named.
fn load(kubeconfig: Option<&Path>) -> Result<Found, Box<ClusterError>> {
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
    let mut missing_env: Option<String> = None;
    let loaded = if let Some(path) = kubeconfig {
        let source = path.display().to_string();
        let kc = read_kubeconfig(path)?;
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
            let kc = read_kubeconfig(f)?;
            merged = Some(match merged {
                None => kc,
                Some(m) => m
                    .merge(kc)
                    .map_err(|e| Box::new(config_error(&source, e)))?,
            });
        }
        // None of them exists: an empty configuration, which the flags alone (`--server`)
        // or the in-cluster service account may still complete, as kubectl's loader
        // (client-go `tools/clientcmd/merged_client_builder.go` `ClientConfig`) does.
        if merged.is_none() {
            missing_env = Some(source.clone());
        }
        merged.map(|kc| (kc, source))
    } else if let Some(home) = &home_file {
        let source = home.display().to_string();
        let kc = read_kubeconfig(home)?;
        Some((kc, source))
    } else {
        None
    };
    Ok((loaded, missing_env))
}

/// The names of the kubeconfig's contexts (`--all-contexts`), from the kubeconfig the command
/// would read (as [`Cluster::connect`] finds it), in byte order as `kubectl config
/// get-contexts` lists them. Errors: as [`Cluster::connect`]'s for an unreadable or malformed
/// kubeconfig; none at all is an error naming where it looked.
pub fn context_names(kubeconfig: Option<&Path>) -> Result<Vec<String>, Box<ClusterError>> {
    let (loaded, missing_env) = load(kubeconfig)?;
    let Some((kc, _)) = loaded else {
        return Err(Box::new(ClusterError::Config(match missing_env {
            Some(env) => format!("{env}: no kubeconfig file exists, so there are no contexts"),
            None => "no kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config), so there are no contexts".into(),
        })));
    };
    let mut names: Vec<String> = kc.contexts.into_iter().map(|c| c.name).collect();
    names.sort();
    names.dedup();
    Ok(names)
}

impl Cluster {
    /// Builds the client. Order, as kubectl: `--kubeconfig`; else `KUBECONFIG` (files merged,
    /// missing ones skipped) or `~/.kube/config`; else (no kubeconfig, or `KUBECONFIG` naming
    /// only missing files) the flags alone when `--server` is given, else the in-cluster service
    /// account. Errors: an unreadable or malformed kubeconfig, an unknown context, no
    /// configuration at all (`KUBECONFIG` naming only missing files is said so).
    pub async fn connect(o: &ConnectOptions) -> Result<Cluster, ClusterError> {
        let opts = KubeConfigOptions {
            context: o.context.clone(),
            cluster: None,
            user: None,
        };
        let (loaded, missing_env) = load(o.kubeconfig.as_deref()).map_err(|e| *e)?;
        let mut explicit_proxy = None;
        let timeout = o.request_timeout.filter(|t| !t.is_zero());
        let max_response_bytes = o
            .max_response_bytes
            .filter(|n| *n > 0)
            .unwrap_or(super::DEFAULT_MAX_RESPONSE_BYTES);
        let mut config = if let Some((mut kc, source)) = loaded {
            check_context(&kc, o.context.as_deref())
                .map_err(|e| ClusterError::Config(format!("{source}: {e}")))?;
            let ca_overridden =
                o.overrides.certificate_authority.is_some() || o.overrides.insecure_skip_tls_verify;
            super::referenced::inline_referenced_files(
                &mut kc,
                o.context.as_deref(),
                ca_overridden,
            )
            .map_err(|e| ClusterError::Config(format!("{source}: {e}")))?;
            // The exec credential plugin runs here, bounded, not inside kube-rs.
            let context = o.context.clone();
            kc = tokio::task::spawn_blocking(move || {
                super::exec::resolve(&mut kc, context.as_deref(), timeout, max_response_bytes)
                    .map(|_| kc)
            })
            .await
            .map_err(|e| ClusterError::Config(format!("the exec plugin's runner failed: {e}")))?
            .map_err(|m| ClusterError::Config(format!("{source}: {m}")))?;
            explicit_proxy = cluster_proxy_url(&kc, o.context.as_deref());
            Config::from_custom_kubeconfig(kc, &opts)
                .await
                .map_err(|e| config_error(&source, e))?
        } else if let Some(config) = o.overrides.standalone().map_err(ClusterError::Config)? {
            config
        } else if let (Some(source), false) = (&missing_env, in_cluster_possible()) {
            return Err(ClusterError::Config(format!(
                "{source}: none of these files exists: give --kubeconfig or --server, or fix KUBECONFIG (get, explain and doctor also read files with -f)"
            )));
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
                    "no kubeconfig (KUBECONFIG is unset and ~/.kube/config does not exist) and not running in a cluster{detail}: give --kubeconfig or --server, or set KUBECONFIG (get, explain and doctor also read files with -f)"
                ))
            })?
        };
        o.overrides
            .apply(&mut config)
            .map_err(ClusterError::Config)?;
        config.default_retry = false;
        config.proxy_url = proxy::proxy_for(&config.cluster_url, explicit_proxy.as_ref(), |k| {
            std::env::var(k).ok().filter(|v| !v.is_empty())
        })
        .map_err(ClusterError::Config)?;
        let via = config
            .proxy_url
            .as_ref()
            .map(|p| format!(" through the proxy {}", without_credentials(p)));
        if let Some(t) = timeout {
            // The transport's own timers add the duration to an Instant: keep them in range
            // (the overall limit below has no such bound).
            let t = t.min(Duration::from_secs(86_400));
            config.read_timeout = Some(t);
            config.reset_reader_on_write = true;
            config.connect_timeout = Some(config.connect_timeout.map_or(t, |c| c.min(t)));
        }
        let server = without_credentials(&config.cluster_url);
        let default_namespace = config.default_namespace.clone();
        // Audit logs name the tool: kube-rs sends no User-Agent of its own.
        config.headers.push((
            http::header::USER_AGENT,
            http::HeaderValue::from_static(super::USER_AGENT),
        ));
        // Messages name the proxy when there is one: a refused connection may be the proxy's.
        let described = format!("{server}{}", via.unwrap_or_default());
        // Building the client reads certificate and token files (the exec plugin has already
        // run, see `exec`): off the runtime's thread, within the request timeout.
        if let Some(token) = &config.auth_info.token {
            use secrecy::ExposeSecret;
            header_safe(token.expose_secret()).map_err(|e| {
                ClusterError::Config(format!(
                    "the bearer token (from --token, the kubeconfig or its exec plugin) {e}: it cannot be sent in an HTTP header"
                ))
            })?;
        }
        let build = tokio::task::spawn_blocking(move || Client::try_from(config));
        let built = match timeout {
            None => build.await,
            Some(t) => tokio::time::timeout(t, build).await.map_err(|_| {
                ClusterError::Config(format!(
                    "the kubeconfig's credentials for {server} were not ready within {} (--request-timeout)",
                    crate::k8s::duration::go_duration(t)
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
            discovery_timeout: discovery_timeout(o.discovery_timeout),
            chunk_size: o.chunk_size.unwrap_or(super::DEFAULT_CHUNK_SIZE),
            max_response_bytes,
            max_list_items: o
                .max_list_items
                .filter(|n| *n > 0)
                .unwrap_or(super::DEFAULT_MAX_LIST_ITEMS),
            reading: Default::default(),
            held: Default::default(),
            deadline: o.deadline,
        })
    }
}

/// Whether the in-cluster configuration may apply (client-go `tools/clientcmd/client_config.go`
/// `inClusterClientConfig.Possible`: `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT`
/// set, the service account's token a file).
fn in_cluster_possible() -> bool {
    std::env::var_os("KUBERNETES_SERVICE_HOST").is_some_and(|v| !v.is_empty())
        && std::env::var_os("KUBERNETES_SERVICE_PORT").is_some_and(|v| !v.is_empty())
        && Path::new("/var/run/secrets/kubernetes.io/serviceaccount/token").is_file()
}

/// A URL as messages show it: without the user information a server or proxy URL may carry
/// (`https://user:password@host` is shown `https://host`, as kubectl names a server by its host),
/// and without a trailing `/`.
fn without_credentials(uri: &http::Uri) -> String {
    let text = uri.to_string();
    let shown = match (uri.authority(), text.find("://")) {
        (Some(a), Some(at)) if a.as_str().contains('@') => {
            let host = a.as_str().rsplit('@').next().unwrap_or("");
            let rest = &text[at + 3 + a.as_str().len()..];
            format!("{}{host}{rest}", &text[..at + 3])
        }
        _ => text,
    };
    shown.trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECONFIG: &str = "apiVersion: v1\nkind: Config\ncurrent-context: dev\nclusters:\n- name: c\n  cluster: {server: 'https://10.0.0.1:6443', proxy-url: 'http://proxy:3128'}\ncontexts:\n- name: dev\n  context: {cluster: c, user: u}\n- name: lost\n  context: {cluster: gone, user: u}\nusers:\n- name: u\n  user: {token: t}\n";

    /// The checks `connect` makes before connecting, with client-go's wording of a context that
    /// names what the file does not define (`tools/clientcmd/validation.go`).
    #[test]
    fn kubeconfig_text_is_checked_before_connecting() {
        let proxy = check_kubeconfig_text(KUBECONFIG, "k", None).unwrap();
        assert_eq!(proxy.unwrap().to_string(), "http://proxy:3128/");
        assert_eq!(
            check_kubeconfig_text(KUBECONFIG, "k", Some("lost"))
                .unwrap_err()
                .to_string(),
            "k: cluster \"gone\" was not found for context \"lost\""
        );
        assert_eq!(
            check_kubeconfig_text(KUBECONFIG, "k", Some("prod"))
                .unwrap_err()
                .to_string(),
            "k: context \"prod\" not found in the kubeconfig"
        );
    }

    /// Credentials in a server or proxy URL never reach a message.
    #[test]
    fn urls_are_shown_without_credentials() {
        for (url, shown) in [
            ("https://user:secret@10.0.0.1:6443", "https://10.0.0.1:6443"),
            ("http://u:p@proxy:3128/", "http://proxy:3128"),
            ("https://10.0.0.1:6443/", "https://10.0.0.1:6443"),
            ("https://token@host/prefix", "https://host/prefix"),
        ] {
            let uri: http::Uri = url.parse().unwrap();
            assert_eq!(without_credentials(&uri), shown, "{url}");
        }
    }
}
