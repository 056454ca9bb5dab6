//! kubectl's client flags that override the kubeconfig: `--server`, `--token`,
//! `--certificate-authority`, `--insecure-skip-tls-verify`, `--as`, `--as-group` (client-go
//! `tools/clientcmd/overrides.go` and `client_config.go`: each flag replaces the context's value;
//! `--insecure-skip-tls-verify` drops the certificate authority, `--certificate-authority` its
//! inline data; a token replaces every other way the user authenticates). As in client-go, no
//! credential is sent to a server reached over plain HTTP (impersonation is).

use kube::config::AuthInfo;
use kube::Config;
use std::path::PathBuf;

/// The override flags; all empty by default.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--server`: the API server URL.
    pub server: Option<String>,
    /// `--token`: a bearer token.
    pub token: Option<String>,
    /// `--certificate-authority`: a PEM file of the CAs that sign the server's certificate.
    pub certificate_authority: Option<PathBuf>,
    /// `--insecure-skip-tls-verify`: do not check the server's certificate.
    pub insecure_skip_tls_verify: bool,
    /// `--as`: the user to impersonate.
    pub impersonate: Option<String>,
    /// `--as-group`: the groups to impersonate (repeatable; needs `--as`).
    pub impersonate_groups: Vec<String>,
}

impl Overrides {
    /// Checks the flags together (kubectl's rules). Errors: `--as-group` without `--as`,
    /// `--certificate-authority` with `--insecure-skip-tls-verify`, an empty `--server` or a
    /// server that is not a URL.
    pub fn check(&self) -> Result<(), String> {
        if !self.impersonate_groups.is_empty() && self.impersonate.is_none() {
            return Err(
                "--as-group needs --as: groups are impersonated together with a user".into(),
            );
        }
        if self.insecure_skip_tls_verify && self.certificate_authority.is_some() {
            return Err("specifying a root certificates file with the insecure flag is not allowed (--certificate-authority with --insecure-skip-tls-verify)".into());
        }
        if let Some(s) = &self.server {
            server_uri(s)?;
        }
        if let Some(t) = &self.token {
            super::kubeconfig::header_safe(t)
                .map_err(|e| format!("--token {e}: it cannot be sent in an HTTP header"))?;
        }
        Ok(())
    }

    /// A configuration made of the flags alone, for when there is no kubeconfig and `--server`
    /// is given (kubectl works from flags then). None without `--server`.
    pub(super) fn standalone(&self) -> Result<Option<Config>, String> {
        let Some(server) = &self.server else {
            return Ok(None);
        };
        let uri = server_uri(server)?;
        Ok(Some(Config::new(uri)))
    }

    /// Applies the flags to a configuration built from a kubeconfig or the in-cluster service
    /// account.
    pub(super) fn apply(&self, config: &mut Config) -> Result<(), String> {
        self.check()?;
        if let Some(server) = &self.server {
            config.cluster_url = server_uri(server)?;
        }
        if let Some(ca) = &self.certificate_authority {
            check_ca_file(ca)?;
            config.root_cert = None;
            config.root_cert_file = Some(ca.clone());
        }
        if self.insecure_skip_tls_verify {
            config.accept_invalid_certs = true;
            config.root_cert = None;
            config.root_cert_file = None;
        }
        if let Some(token) = &self.token {
            // AuthInfo keeps its token secret; it is built through its own deserializer.
            let with_token: AuthInfo = serde_json::from_value(serde_json::json!({"token": token}))
                .map_err(|e| format!("--token: {e}"))?;
            let a = &mut config.auth_info;
            a.token = with_token.token;
            a.token_file = None;
            a.username = None;
            a.password = None;
            a.exec = None;
            a.auth_provider = None;
        }
        if let Some(user) = &self.impersonate {
            config.auth_info.impersonate = Some(user.clone());
            config.auth_info.impersonate_groups =
                (!self.impersonate_groups.is_empty()).then(|| self.impersonate_groups.clone());
        }
        if config.cluster_url.scheme_str() == Some("http") {
            // client-go reads the user's credentials only when the transport is TLS (clientcmd
            // `DirectClientConfig.ClientConfig`): no secret goes out in the clear, whatever the
            // kubeconfig or the flags say. Impersonation is sent either way.
            let a = &config.auth_info;
            config.auth_info = AuthInfo {
                impersonate: a.impersonate.clone(),
                impersonate_uid: a.impersonate_uid.clone(),
                impersonate_groups: a.impersonate_groups.clone(),
                impersonate_user_extra: a.impersonate_user_extra.clone(),
                ..AuthInfo::default()
            };
        }
        Ok(())
    }
}

/// The most a certificate authority file may hold: a bundle of every public CA is about 250 KiB.
pub const MAX_CA_BYTES: u64 = 1 << 20;

/// A certificate authority file kube can read: a regular file (not a FIFO or a device, which
/// would block or never end) of at most [`MAX_CA_BYTES`], PEM text without NUL bytes.
fn check_ca_file(ca: &std::path::Path) -> Result<(), String> {
    let name = |e: String| format!("--certificate-authority {}: {e}", ca.display());
    let meta = std::fs::metadata(ca).map_err(|e| name(e.to_string()))?;
    if !meta.is_file() {
        return Err(name("not a regular file".into()));
    }
    if meta.len() > MAX_CA_BYTES {
        return Err(name(format!(
            "{} bytes, more than a certificate bundle holds ({} MiB at most)",
            meta.len(),
            MAX_CA_BYTES >> 20
        )));
    }
    let text = std::fs::read(ca).map_err(|e| name(e.to_string()))?;
    if text.contains(&0) || !text.windows(11).any(|w| w == b"-----BEGIN ") {
        return Err(name("not a PEM file of certificates".into()));
    }
    Ok(())
}

fn server_uri(s: &str) -> Result<http::Uri, String> {
    if s.is_empty() {
        return Err("--server is empty".into());
    }
    // kubectl accepts a bare host[:port] and means https.
    let with_scheme = if s.contains("://") {
        s.to_string()
    } else {
        format!("https://{s}")
    };
    let uri: http::Uri = with_scheme
        .parse()
        .map_err(|e| format!("--server {:?}: not a URL: {e}", super::proxy::redacted(s)))?;
    if uri.host().is_none() {
        return Err(format!(
            "--server {:?}: not a URL: no host",
            super::proxy::redacted(s)
        ));
    }
    Ok(uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// client-go's rules: groups need a user; a CA file and insecure exclude each other.
    #[test]
    fn flags_checked_together_as_kubectl_does() {
        let o = Overrides {
            impersonate_groups: vec!["ops".into()],
            ..Default::default()
        };
        assert!(o.check().unwrap_err().starts_with("--as-group needs --as"));
        let o = Overrides {
            certificate_authority: Some("ca.pem".into()),
            insecure_skip_tls_verify: true,
            ..Default::default()
        };
        assert!(o.check().unwrap_err().contains("with the insecure flag"));
        for (path, want) in [
            ("/dev/zero", "not a regular file"),
            ("/nonexistent/ca.pem", "No such file or directory"),
        ] {
            let e = check_ca_file(std::path::Path::new(path)).unwrap_err();
            assert!(e.contains(want), "{path}: {e}");
        }
        assert_eq!(
            server_uri("10.0.0.1:6443").unwrap().to_string(),
            "https://10.0.0.1:6443/"
        );
        assert!(server_uri("http://").is_err());
        let o = Overrides {
            token: Some("a\u{1b}b".into()),
            ..Default::default()
        };
        assert_eq!(
            o.check().unwrap_err(),
            "--token holds a control character (\\x1b at byte 1): it cannot be sent in an HTTP header"
        );
    }

    #[test]
    fn a_token_replaces_every_other_credential_and_impersonation_is_set() {
        let mut config = Config::new("https://k8s.example:6443".parse().unwrap());
        config.auth_info.username = Some("admin".into());
        let o = Overrides {
            server: Some("https://other.example".into()),
            token: Some("t0k".into()),
            impersonate: Some("jane".into()),
            impersonate_groups: vec!["ops".into(), "dev".into()],
            insecure_skip_tls_verify: true,
            ..Default::default()
        };
        o.apply(&mut config).unwrap();
        assert_eq!(config.cluster_url.to_string(), "https://other.example/");
        assert!(config.auth_info.token.is_some());
        assert_eq!(config.auth_info.username, None);
        assert_eq!(config.auth_info.impersonate.as_deref(), Some("jane"));
        assert_eq!(
            config.auth_info.impersonate_groups,
            Some(vec!["ops".to_string(), "dev".to_string()])
        );
        assert!(config.accept_invalid_certs);
    }

    /// client-go: over plain HTTP the token stays home; impersonation still goes.
    #[test]
    fn no_credential_goes_out_over_plain_http() {
        let mut config = Config::new("http://127.0.0.1:8080".parse().unwrap());
        let o = Overrides {
            token: Some("t0k".into()),
            impersonate: Some("jane".into()),
            ..Default::default()
        };
        o.apply(&mut config).unwrap();
        assert!(config.auth_info.token.is_none());
        assert_eq!(config.auth_info.impersonate.as_deref(), Some("jane"));
    }
}
