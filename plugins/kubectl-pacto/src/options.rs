//! The one step that turns parsed flags and the environment into checked values, decided once
//! per run (ripgrep's "high-level arguments" step): the clock, colour, durations, names and
//! namespaces. Pure: the environment and whether stdout is a terminal are passed in.

use anyhow::{anyhow, bail, Result};
use jiff::Timestamp;
use pacto_gates::k8s::duration::{parse_go_duration, MAX_GO_DURATION_SECONDS};
use std::time::Duration;

/// What every command shares, decided once from the environment.
#[derive(Debug, Clone, Copy)]
pub struct Global {
    /// The clock: `KUBECTL_PACTO_NOW` (RFC 3339, for reproducible output) or the system time.
    pub now: Timestamp,
    /// Whether `KUBECTL_PACTO_NOW` fixed the clock; else a row printed later (`get -w`) is
    /// judged at the time it is printed, as kubectl prints each watch event's AGE.
    pub clock_fixed: bool,
    /// Colour on stdout: a terminal, no non-empty `NO_COLOR`, `TERM` not `dumb`.
    pub colour: bool,
    /// Whether stdout is a terminal: text from objects printed as it is (`-o jsonpath`) is then
    /// escaped.
    pub terminal: bool,
}

impl Global {
    /// Reads `KUBECTL_PACTO_NOW`, `NO_COLOR` and `TERM` through `env`. Errors: a
    /// `KUBECTL_PACTO_NOW` that is not an RFC 3339 time.
    pub fn new(env: impl Fn(&str) -> Option<String>, stdout_is_terminal: bool) -> Result<Global> {
        let (now, clock_fixed) = match env("KUBECTL_PACTO_NOW") {
            Some(s) if !s.is_empty() => (
                s.parse()
                    .map_err(|e| anyhow!("KUBECTL_PACTO_NOW={s:?}: not an RFC 3339 time: {e}"))?,
                true,
            ),
            _ => (Timestamp::now(), false),
        };
        let colour = pacto_gates::render::colour_wanted(
            stdout_is_terminal,
            env("NO_COLOR").as_deref(),
            env("TERM").as_deref(),
        );
        Ok(Global {
            now,
            clock_fixed,
            colour,
            terminal: stdout_is_terminal,
        })
    }

    /// The clock as Unix seconds, for the engines (`os.time`, kstatus).
    pub fn now_unix(&self) -> i64 {
        self.now.as_second()
    }
}

/// The cluster flags, checked once: how to connect, and the namespace `-n` names (None: the
/// context's).
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    pub connect: pacto_gates::cluster::ConnectOptions,
    pub namespace: Option<String>,
}

impl ClusterOptions {
    /// Errors: a `--request-timeout` that is not a duration, an invalid `-n`, override flags
    /// that do not go together (`--as-group` without `--as`, ...).
    pub fn new(c: &crate::cli::ClusterArgs) -> Result<ClusterOptions> {
        let options = ClusterOptions {
            connect: pacto_gates::cluster::ConnectOptions {
                kubeconfig: c.kubeconfig.clone(),
                context: c.context.clone(),
                request_timeout: request_timeout(&c.request_timeout)?,
                discovery_timeout: None,
                chunk_size: Some(c.chunk_size),
                overrides: pacto_gates::cluster::Overrides {
                    server: c.server.clone(),
                    token: c.token.clone(),
                    certificate_authority: c.certificate_authority.clone(),
                    insecure_skip_tls_verify: c.insecure_skip_tls_verify,
                    impersonate: c.impersonate.clone(),
                    impersonate_groups: c.impersonate_groups.clone(),
                },
                max_response_bytes: Some(size_flag("--max-response-bytes", &c.max_response_bytes)?),
                max_list_items: Some(c.max_list_items),
                deadline: None,
            },
            namespace: namespace_flag(c.namespace.as_deref())?,
        };
        options
            .connect
            .overrides
            .check()
            .map_err(|e| anyhow!("{e}"))?;
        Ok(options)
    }
}

/// A duration flag as kubectl reads `--request-timeout`: a bare number of seconds or a Go
/// duration (`1s`, `2m`, `1h30m`). Errors name the flag and give `hint` as an example.
pub fn duration_flag(flag: &str, s: &str, hint: &str) -> Result<Duration> {
    if let Ok(n) = s.parse::<u64>() {
        if n as f64 > MAX_GO_DURATION_SECONDS {
            bail!("{flag} {s:?}: longer than the longest duration (2562047h)");
        }
        return Ok(Duration::from_secs(n));
    }
    parse_go_duration(s).ok_or_else(|| anyhow!("{flag} {s:?}: expected a duration such as {hint}"))
}

/// A size flag (`1Gi`, `512Mi`, `1000000`); errors name the flag.
pub fn size_flag(flag: &str, s: &str) -> Result<u64> {
    pacto_gates::k8s::read::parse_size(s).map_err(|e| anyhow!("{flag} {e}"))
}

/// kubectl's `--request-timeout`: `0` none, a bare number of seconds, or a Go duration.
pub fn request_timeout(s: &str) -> Result<Option<Duration>> {
    let d = duration_flag("--request-timeout", s, "1s, 2m or 3h (0: no timeout)")?;
    Ok((!d.is_zero()).then_some(d))
}

/// A name the API server could hold: an RFC 1123 subdomain (custom resource names, 253
/// characters at most). Checked before it goes into a request path, so `a/b`, `a?x=1` or `..`
/// never reach the server as something else.
pub fn check_name(name: &str, what: &str) -> Result<()> {
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if name.len() <= 253 && name.split('.').all(label_ok) {
        return Ok(());
    }
    bail!(
        "{:?} is not a valid {what} (lowercase letters, digits, '-' and '.', at most 253 characters)",
        name
    )
}

/// A namespace the API server could hold: a DNS-1123 label, checked before it goes into a
/// request path, refused in client-go's words (`invalid namespace "a/b": [may not contain
/// '/']`, as kubectl refuses it) or apimachinery's.
pub fn check_namespace(ns: &str) -> Result<()> {
    pacto_gates::cluster::check_namespace(ns).map_err(|e| anyhow!("{e}"))
}

/// `--argocd-namespace`: a namespace, named with its flag.
pub fn argocd_namespace(ns: &str) -> Result<&str> {
    check_namespace(ns).map_err(|e| anyhow!("--argocd-namespace: {e}"))?;
    Ok(ns)
}

/// The command's deadline from a `--timeout` flag (`0`: none), from now.
pub fn deadline(s: &str, hint: &str) -> Result<Option<pacto_gates::cluster::Deadline>> {
    let d = duration_flag("--timeout", s, hint)?;
    Ok((!d.is_zero()).then(|| pacto_gates::cluster::Deadline::after(d, "--timeout")))
}

/// `-n` as given: empty or absent means the context's namespace, as in kubectl.
pub fn namespace_flag(given: Option<&str>) -> Result<Option<String>> {
    match given {
        None | Some("") => Ok(None),
        Some(ns) => {
            check_namespace(ns)?;
            Ok(Some(ns.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_clock_and_colour_are_decided_once_from_the_environment() {
        let g = Global::new(env(&[("KUBECTL_PACTO_NOW", "2026-11-29T12:00:00Z")]), true).unwrap();
        assert_eq!(g.now_unix(), 1_795_953_600);
        assert!(g.colour);
        let g = Global::new(env(&[("NO_COLOR", "1")]), true).unwrap();
        assert!(!g.colour);
        assert!(!Global::new(env(&[]), false).unwrap().colour);
        let e = Global::new(env(&[("KUBECTL_PACTO_NOW", "yesterday")]), false).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("KUBECTL_PACTO_NOW=\"yesterday\": not an RFC 3339 time"));
    }

    /// kubectl's --request-timeout: 0 is none, bare numbers are seconds, else a Go duration.
    #[test]
    fn request_timeouts_as_kubectl_reads_them() {
        assert_eq!(request_timeout("0").unwrap(), None);
        assert_eq!(request_timeout("5").unwrap(), Some(Duration::from_secs(5)));
        assert_eq!(
            request_timeout("1m30s").unwrap(),
            Some(Duration::from_secs(90))
        );
        assert!(request_timeout("soon").is_err());
    }

    /// RFC 1123: subdomains for names (253), labels for namespaces (63).
    #[test]
    fn names_and_namespaces() {
        assert!(check_name("orders.v2", "name").is_ok());
        for bad in ["a/b", "A", "-a", "a..b", "a?x=1", ""] {
            assert!(check_name(bad, "name").is_err(), "{bad}");
        }
        assert!(check_namespace("shop").is_ok());
        assert!(check_namespace("a.b").is_err());
        assert!(check_namespace(&"a".repeat(64)).is_err());
        // kubectl's words where kubectl refuses it (client-go's path-segment check).
        assert_eq!(
            check_namespace("a/b").unwrap_err().to_string(),
            "invalid namespace \"a/b\": [may not contain '/']"
        );
        assert_eq!(
            check_namespace("..").unwrap_err().to_string(),
            "invalid namespace \"..\": [may not be '..']"
        );
        assert_eq!(
            argocd_namespace("a?x").unwrap_err().to_string(),
            "--argocd-namespace: invalid namespace \"a?x\": [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]"
        );
        assert_eq!(namespace_flag(Some("")).unwrap(), None);
        assert_eq!(
            namespace_flag(Some("shop")).unwrap().as_deref(),
            Some("shop")
        );
    }
}
