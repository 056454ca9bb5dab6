//! Which proxy a request to the API server goes through, as kubectl (Go's `net/http`
//! `ProxyFromEnvironment`, golang.org/x/net `http/httpproxy`) decides: the kubeconfig cluster's
//! `proxy-url`; else `HTTPS_PROXY` for an https server and `HTTP_PROXY` for an http one
//! (upper case first, then lower case); never for localhost or a loopback address; never when
//! `NO_PROXY` matches the server's host. kube-rs 5 matches `NO_PROXY` against the proxy's own
//! address instead, so the plugin decides itself. Pure: the environment comes in as a function.

use ipnet::IpNet;
use std::net::IpAddr;

/// A kubeconfig cluster's `proxy-url` and the cluster's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explicit {
    pub url: String,
    pub cluster: String,
}

/// The proxy for `server` (`https://host:port`), or None to connect directly. `env` reads an
/// environment variable (None when unset or empty). Errors: a proxy URL that does not parse or
/// has a scheme kubectl refuses; for the kubeconfig's, in kubectl's words (client-go
/// `tools/clientcmd/validation.go`: `invalid 'proxy-url' "URL" for cluster "NAME": ...`), the
/// password shown `xxxxx`.
pub fn proxy_for(
    server: &http::Uri,
    explicit: Option<&Explicit>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<http::Uri>, String> {
    let parse = |p: &str| {
        let uri = p.parse::<http::Uri>().map_err(|e| e.to_string())?;
        // kubectl's proxy schemes (client-go `rest/transport.go` `ParseProxyURL`).
        match uri.scheme_str() {
            Some("http" | "https" | "socks5") => Ok(Some(uri)),
            other => Err(format!(
                "unsupported scheme {:?}, must be http, https, or socks5",
                other.unwrap_or("")
            )),
        }
    };
    if let Some(p) = explicit.filter(|p| !p.url.is_empty()) {
        return parse(&p.url).map_err(|e| {
            format!(
                "invalid 'proxy-url' {:?} for cluster {:?}: {e}",
                redacted(&p.url),
                p.cluster
            )
        });
    }
    let host = server.host().unwrap_or("").trim_matches(['[', ']']);
    let ip = host.parse::<IpAddr>().ok();
    if host.eq_ignore_ascii_case("localhost") || ip.is_some_and(|ip| ip.is_loopback()) {
        return Ok(None);
    }
    let var = |upper: &str, lower: &str| env(upper).or_else(|| env(lower));
    let proxy = if server.scheme_str() == Some("https") {
        var("HTTPS_PROXY", "https_proxy")
    } else {
        var("HTTP_PROXY", "http_proxy")
    };
    let Some(proxy) = proxy else { return Ok(None) };
    let port = server
        .port_u16()
        .unwrap_or(if server.scheme_str() == Some("https") {
            443
        } else {
            80
        });
    if let Some(no_proxy) = var("NO_PROXY", "no_proxy") {
        if no_proxy_matches(&no_proxy, host, ip, port) {
            return Ok(None);
        }
    }
    // golang.org/x/net `http/httpproxy`: "invalid proxy address %q: %v".
    parse(&proxy).map_err(|e| format!("invalid proxy address {:?}: {e}", redacted(&proxy)))
}

/// A URL as an error shows it when it may carry a password: the password replaced by `xxxxx`,
/// as Go's `url.URL.Redacted` shows it (`socks5://user:xxxxx@proxy:1080`). Works on text that
/// does not parse as a URL too (no scheme, a bad host), since that is when it is shown.
pub fn redacted(text: &str) -> String {
    let start = text.find("://").map_or(0, |i| i + 3);
    let end = text[start..]
        .find(['/', '?', '#'])
        .map_or(text.len(), |i| start + i);
    let Some(at) = text[start..end].rfind('@').map(|i| start + i) else {
        return text.to_string();
    };
    match text[start..at].find(':') {
        Some(colon) => format!("{}xxxxx{}", &text[..start + colon + 1], &text[at..]),
        None => text.to_string(),
    }
}

/// httpproxy `useProxy`: `*`; an IP or CIDR; a domain (`example.com` also covers its
/// subdomains, `.example.com` and `*.example.com` only them), optionally with `:port`.
fn no_proxy_matches(list: &str, host: &str, ip: Option<IpAddr>, port: u16) -> bool {
    let host = host.to_ascii_lowercase();
    list.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            if let Ok(net) = entry.parse::<IpNet>() {
                return ip.is_some_and(|ip| net.contains(&ip));
            }
            if let Ok(e) = entry.trim_matches(['[', ']']).parse::<IpAddr>() {
                return ip == Some(e);
            }
            let (name, entry_port) = match entry.rsplit_once(':') {
                Some((n, p)) => match p.parse::<u16>() {
                    Ok(p) => (n, Some(p)),
                    Err(_) => (entry, None),
                },
                None => (entry, None),
            };
            if entry_port.is_some_and(|p| p != port) {
                return false;
            }
            let name = name.to_ascii_lowercase();
            let name = name.strip_prefix('*').unwrap_or(&name);
            match name.strip_prefix('.') {
                Some(bare) => host.ends_with(name) || host == bare,
                None => host == name || host.ends_with(&format!(".{name}")),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    fn uri(s: &str) -> http::Uri {
        s.parse().unwrap()
    }

    #[test]
    fn no_proxy_is_matched_against_the_server_not_the_proxy() {
        let vars = [
            ("HTTPS_PROXY", "http://proxy.corp:3128"),
            ("NO_PROXY", "10.0.0.0/8,.cluster.local,api.example.com:6443"),
        ];
        let got = |s: &str| {
            proxy_for(&uri(s), None, env(&vars))
                .unwrap()
                .map(|u| u.to_string())
        };
        assert_eq!(got("https://10.1.2.3:6443"), None);
        assert_eq!(got("https://k8s.cluster.local:443"), None);
        assert_eq!(got("https://cluster.local:443"), None);
        assert_eq!(got("https://api.example.com:6443"), None);
        assert_eq!(
            got("https://api.example.com:443").as_deref(),
            Some("http://proxy.corp:3128/")
        );
        assert_eq!(
            got("https://other.example.com").as_deref(),
            Some("http://proxy.corp:3128/")
        );
        // HTTPS_PROXY is for https servers; an http server uses HTTP_PROXY (unset here).
        assert_eq!(got("http://other.example.com"), None);
    }

    /// A password never reaches a message; kubectl's scheme rule.
    #[test]
    fn proxy_urls_in_errors_carry_no_password() {
        for (text, shown) in [
            (
                "socks5://user:SECRET@proxy:1080",
                "socks5://user:xxxxx@proxy:1080",
            ),
            ("user:SECRET@proxy:1080", "user:xxxxx@proxy:1080"),
            ("http://user:S@CRET@%zz/x@y", "http://user:xxxxx@%zz/x@y"),
            ("http://user@proxy:3128", "http://user@proxy:3128"),
            ("http://proxy:3128/a:b@c", "http://proxy:3128/a:b@c"),
        ] {
            assert_eq!(redacted(text), shown, "{text}");
        }
        let server = uri("https://10.0.0.1:6443");
        let named = |url: &str| Explicit {
            url: url.to_string(),
            cluster: "prod".to_string(),
        };
        let e = proxy_for(&server, Some(&named("user:SECRET@proxy:1080")), |_| None).unwrap_err();
        assert_eq!(
            e,
            "invalid 'proxy-url' \"user:xxxxx@proxy:1080\" for cluster \"prod\": unsupported scheme \"\", must be http, https, or socks5"
        );
        // kubectl v1.32 says the same of an ftp proxy (with the password shown; here xxxxx).
        let e = proxy_for(&server, Some(&named("ftp://user:SECRET@proxy:21")), |_| {
            None
        })
        .unwrap_err();
        assert_eq!(
            e,
            "invalid 'proxy-url' \"ftp://user:xxxxx@proxy:21\" for cluster \"prod\": unsupported scheme \"ftp\", must be http, https, or socks5"
        );
        let e = proxy_for(&server, Some(&named("http://user:SECRET@%zz")), |_| None).unwrap_err();
        assert!(!e.contains("SECRET") && e.contains("user:xxxxx@"), "{e}");
        let env = |k: &str| (k == "HTTPS_PROXY").then(|| "http://u:SECRET@%zz".to_string());
        let e = proxy_for(&uri("https://example.com"), None, env).unwrap_err();
        assert!(!e.contains("SECRET"), "{e}");
        assert!(
            e.starts_with("invalid proxy address \"http://u:xxxxx@%zz\": "),
            "{e}"
        );
        assert!(proxy_for(&server, Some(&named("socks5://u:p@proxy:1080")), |_| None).is_ok());
    }

    #[test]
    fn loopback_and_explicit_proxies() {
        let vars = [
            ("https_proxy", "http://proxy:1"),
            ("HTTP_PROXY", "http://proxy:2"),
        ];
        let explicit = |url: &str| Explicit {
            url: url.to_string(),
            cluster: "c".to_string(),
        };
        let got = |s: &str, e: Option<&str>| {
            proxy_for(&uri(s), e.map(explicit).as_ref(), env(&vars))
                .unwrap()
                .map(|u| u.to_string())
        };
        assert_eq!(got("https://127.0.0.1:6443", None), None);
        assert_eq!(got("https://localhost:6443", None), None);
        assert_eq!(got("https://[::1]:6443", None), None);
        assert_eq!(
            got("https://example.com", None).as_deref(),
            Some("http://proxy:1/")
        );
        assert_eq!(
            got("http://example.com", None).as_deref(),
            Some("http://proxy:2/")
        );
        // The kubeconfig's proxy-url wins, even for loopback.
        assert_eq!(
            got("https://127.0.0.1", Some("socks5://jump:1080")).as_deref(),
            Some("socks5://jump:1080/")
        );
        assert!(proxy_for(
            &uri("https://example.com"),
            Some(&explicit("not a url")),
            env(&[])
        )
        .is_err());
        let star = [("HTTPS_PROXY", "http://p:1"), ("no_proxy", "*")];
        assert_eq!(
            proxy_for(&uri("https://example.com"), None, env(&star)).unwrap(),
            None
        );
    }
}
