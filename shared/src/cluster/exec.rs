//! The kubeconfig's exec credential plugin, run here rather than by kube-rs (whose
//! `Command::output()` reads an endless answer until memory runs out and leaves a stuck plugin
//! running): as client-go's exec authenticator runs it (`client-go/plugin/pkg/client/auth/exec/
//! exec.go`): the command with its `args` and `env` (less `dropEnv`), `KUBERNETES_EXEC_INFO`
//! holding the `ExecCredential` request (`spec.interactive: false`, `spec.cluster` when
//! `provideClusterInfo`), standard error passed through, the answer an `ExecCredential` JSON
//! whose `status.token` or `status.clientCertificateData`/`clientKeyData` become the user's
//! credentials. Here the answer is read up to `--max-response-bytes`, and the plugin is killed
//! when `--request-timeout` fires or the answer is too large.
//!
//! The credentials are used for the whole run (a run is one command): they are not refreshed
//! at `status.expirationTimestamp`. Standard input is not passed on (`interactive: false`):
//! a plugin that needs to ask the user something fails, and says so on standard error.

use kube::config::{AuthInfo, Kubeconfig};
use serde_json::{json, Value};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// client-go's default `apiVersion` of the request when the kubeconfig gives none is an error;
/// kube-rs accepts its absence: v1beta1 is what such plugins speak.
const DEFAULT_API_VERSION: &str = "client.authentication.k8s.io/v1beta1";

/// How long an exec plugin may run when `--request-timeout` is not given.
pub const EXEC_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs the exec plugin of the user the context in use names, if it has one, and replaces it
/// in `kc` by the credentials it answered. `timeout`: kill the plugin after it (None:
/// [`EXEC_TIMEOUT`]);
/// `limit`: the most bytes read from its standard output. Errors (the message of a configuration
/// error) name the plugin, the bound and its flag.
pub(super) fn resolve(
    kc: &mut Kubeconfig,
    context: Option<&str>,
    timeout: Option<Duration>,
    limit: u64,
) -> Result<(), String> {
    // A plugin that never answers must not hang the command: without --request-timeout the
    // plugin gets EXEC_TIMEOUT (kubectl would wait for ever).
    let timeout = Some(timeout.unwrap_or(EXEC_TIMEOUT));
    let Some(ctx) = super::kubeconfig::context_in_use(kc, context) else {
        return Ok(());
    };
    let cluster_info = kc
        .clusters
        .iter()
        .find(|c| c.name == ctx.cluster)
        .and_then(|c| c.cluster.as_ref())
        .map(|c| {
            json!({
                "server": c.server,
                "certificate-authority-data": c.certificate_authority_data,
                "insecure-skip-tls-verify": c.insecure_skip_tls_verify.unwrap_or(false),
                "proxy-url": c.proxy_url,
                "tls-server-name": c.tls_server_name,
            })
        });
    let Some(user) = ctx.user.as_deref() else {
        return Ok(());
    };
    let Some(auth) = super::kubeconfig::user_mut(kc, user) else {
        return Ok(());
    };
    if auth.exec.is_none() {
        return Ok(());
    }
    let answer = run(auth, cluster_info, timeout, limit)?;
    apply(auth, answer)
}

/// A configuration error's message (the caller adds the kubeconfig's name).
fn config(message: String) -> String {
    message
}

/// Runs the plugin and returns its parsed answer.
fn run(
    auth: &AuthInfo,
    cluster_info: Option<Value>,
    timeout: Option<Duration>,
    limit: u64,
) -> Result<Value, String> {
    let Some(exec) = auth.exec.as_ref() else {
        return Err(config("no exec plugin".into()));
    };
    let Some(command) = exec.command.as_deref().filter(|c| !c.is_empty()) else {
        return Err(config(
            "the kubeconfig's exec plugin has no command".to_string(),
        ));
    };
    let api_version = exec
        .api_version
        .clone()
        .unwrap_or_else(|| DEFAULT_API_VERSION.to_string());
    let mut spec = json!({"interactive": false});
    if exec.provide_cluster_info {
        if let Some(c) = cluster_info {
            spec["cluster"] = c;
        }
    }
    let info = json!({"apiVersion": api_version, "kind": "ExecCredential", "spec": spec});
    let mut cmd = Command::new(command);
    cmd.args(exec.args.iter().flatten());
    for name in exec.drop_env.iter().flatten() {
        cmd.env_remove(name);
    }
    for pair in exec.env.iter().flatten() {
        if let (Some(k), Some(v)) = (pair.get("name"), pair.get("value")) {
            cmd.env(k, v);
        }
    }
    // The plugin leads a process group of its own, so that stopping it stops what it started
    // too (a plugin that runs a helper which hangs would otherwise leave it running).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.env("KUBERNETES_EXEC_INFO", info.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let hint = exec
        .install_hint
        .as_deref()
        .map(|h| format!("\n{}", h.trim_end()))
        .unwrap_or_default();
    let mut child = cmd.spawn().map_err(|e| {
        config(format!(
            "cannot run the kubeconfig's exec plugin {command:?}: {e}{hint}"
        ))
    })?;
    let Some(stdout) = child.stdout.take() else {
        stop(&mut child);
        return Err(config("the exec plugin's output is not readable".into()));
    };
    // The answer is read on its own thread so that a plugin which neither ends nor writes is
    // still killed at the deadline; one that writes more than the bound is killed at once.
    let reader = std::thread::spawn(move || -> std::io::Result<(Vec<u8>, bool)> {
        let mut buf = Vec::new();
        stdout.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
        let over = buf.len() as u64 > limit;
        Ok((buf, over))
    });
    let started = Instant::now();
    let bound = crate::k8s::read::size_words(limit);
    let status = loop {
        if let Some(t) = timeout {
            if started.elapsed() >= t {
                stop(&mut child);
                let _ = child.wait();
                return Err(config(format!(
                    "the kubeconfig's exec plugin {command:?} gave no credentials within {} (--request-timeout; 60s without it): it was stopped",
                    crate::k8s::duration::go_duration(t)
                )));
            }
        }
        if reader.is_finished() {
            break None;
        }
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                stop(&mut child);
                return Err(config(format!("exec plugin {command:?}: {e}")));
            }
        }
    };
    // The plugin exited (its output may still be draining) or its output ended.
    let (out, over) = loop {
        if reader.is_finished() {
            match reader.join() {
                Ok(Ok(r)) => break r,
                Ok(Err(e)) => {
                    stop(&mut child);
                    return Err(config(format!(
                        "exec plugin {command:?}: reading its answer: {e}"
                    )));
                }
                Err(_) => {
                    stop(&mut child);
                    return Err(config(format!(
                        "exec plugin {command:?}: reading its answer failed"
                    )));
                }
            }
        }
        if timeout.is_some_and(|t| started.elapsed() >= t) {
            // A child of the plugin still holds its output open.
            stop(&mut child);
            return Err(config(format!(
                "the kubeconfig's exec plugin {command:?} did not close its output within --request-timeout (60s without it)"
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if over {
        stop(&mut child);
        let _ = child.wait();
        return Err(config(format!(
            "the kubeconfig's exec plugin {command:?} answered more than {bound} (--max-response-bytes): it was stopped"
        )));
    }
    let status = match status {
        Some(s) => s,
        None => match wait_until(
            &mut child,
            timeout.map(|t| t.saturating_sub(started.elapsed())),
        ) {
            Some(s) => s,
            None => {
                stop(&mut child);
                let _ = child.wait();
                return Err(config(format!(
                    "the kubeconfig's exec plugin {command:?} did not exit within --request-timeout (60s without it): it was stopped"
                )));
            }
        },
    };
    if !status.success() {
        return Err(config(format!(
            "the kubeconfig's exec plugin {command:?} failed ({status}){hint}"
        )));
    }
    let answer: Value = serde_json::from_slice(&out).map_err(|e| {
        config(format!(
            "the kubeconfig's exec plugin {command:?} answered something other than an ExecCredential in JSON: {e}"
        ))
    })?;
    check_answer(&answer, &api_version)
        .map_err(|e| config(format!("exec plugin {command:?}: {e}")))?;
    Ok(answer)
}

/// Waits for the exit, at most `t` (None: for ever); None when it did not exit.
fn wait_until(
    child: &mut std::process::Child,
    t: Option<Duration>,
) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) => {}
            Err(_) => return None,
        }
        if t.is_some_and(|t| started.elapsed() >= t) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// client-go's checks of the answer: kind `ExecCredential`, the `apiVersion` asked for, a
/// `status` with a token or a certificate and key.
fn check_answer(answer: &Value, api_version: &str) -> Result<(), String> {
    if answer.get("kind").and_then(Value::as_str) != Some("ExecCredential") {
        return Err("the answer is not an ExecCredential".into());
    }
    let got = answer
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if got != api_version {
        return Err(format!(
            "the kubeconfig asks for API version {api_version}, the plugin answered {got:?}"
        ));
    }
    let Some(status) = answer.get("status").filter(|s| s.is_object()) else {
        return Err("the answer has no status".into());
    };
    let s = |k: &str| status.get(k).and_then(Value::as_str).unwrap_or("");
    let has_cert = !s("clientCertificateData").is_empty();
    let has_key = !s("clientKeyData").is_empty();
    if has_cert != has_key {
        return Err(
            "the answer has a client certificate without its key, or a key without its certificate"
                .into(),
        );
    }
    if s("token").is_empty() && !has_cert {
        return Err("the answer has neither status.token nor a client certificate and key".into());
    }
    Ok(())
}

/// The credentials of a checked answer in place of the exec plugin.
fn apply(auth: &mut AuthInfo, answer: Value) -> Result<(), String> {
    let status = &answer["status"];
    let s = |k: &str| {
        status
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    auth.exec = None;
    let token = s("token");
    if !token.is_empty() {
        auth.token = Some(token.into());
        auth.token_file = None;
    }
    let cert = s("clientCertificateData");
    if !cert.is_empty() {
        // The kubeconfig's `*-data` fields are base64 of the PEM the plugin answers.
        auth.client_certificate_data = Some(base64(cert.as_bytes()));
        auth.client_key_data = Some(base64(s("clientKeyData").as_bytes()).into());
        auth.client_certificate = None;
        auth.client_key = None;
    }
    Ok(())
}

/// Standard base64 with padding (RFC 4648 §4), as client-go stores `clientCertificateData`.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Stops the plugin and every process of its group (SIGKILL to the group on Unix), then reaps
/// nothing: the caller waits where it needs the status.
fn stop(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the plugin leads; it
        // touches no memory of this process.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_rfc_4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn answers_are_checked_as_client_go_checks_them() {
        let v = DEFAULT_API_VERSION;
        let ok = json!({"apiVersion": v, "kind": "ExecCredential", "status": {"token": "t"}});
        assert!(check_answer(&ok, v).is_ok());
        let other = json!({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": "t"}});
        assert!(check_answer(&other, v).unwrap_err().contains("API version"));
        let none = json!({"apiVersion": v, "kind": "ExecCredential"});
        assert_eq!(
            check_answer(&none, v).unwrap_err(),
            "the answer has no status"
        );
        let half = json!({"apiVersion": v, "kind": "ExecCredential", "status": {"clientCertificateData": "c"}});
        assert!(check_answer(&half, v).is_err());
    }
}
