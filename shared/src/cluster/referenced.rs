//! The files a kubeconfig names for the context in use (`certificate-authority`,
//! `client-certificate`, `client-key`, `tokenFile`), read here with a bound and put in the
//! kubeconfig as data, so the client never opens them itself: a FIFO would block for ever and
//! `/dev/zero` would grow without end. The TLS settings are checked as kubectl checks them: a
//! certificate authority together with `insecure-skip-tls-verify` is refused (client-go
//! `transport/transport.go`: "specifying a root certificates file with the insecure flag is not
//! allowed"), and a certificate authority holding no PEM certificate is refused (client-go
//! `transport/transport.go` `rootCertPool`: "unable to load root certificates: unable to parse
//! bytes as PEM block") instead of falling back to the system's roots.

use base64::Engine as _;
use kube::config::{AuthInfo, Kubeconfig};
use std::io::Read as _;
use std::path::Path;

/// The most a file a kubeconfig names may hold (1 MiB: a bundle of every public CA is about
/// 250 KiB; a token or a key is a few KiB).
pub const MAX_REFERENCED_BYTES: u64 = super::overrides::MAX_CA_BYTES;

/// Reads `path` (the kubeconfig's `field`) if it is a regular file of at most
/// [`MAX_REFERENCED_BYTES`]. Errors name the field and the file.
fn read_bounded(field: &str, path: &str) -> Result<Vec<u8>, String> {
    let name = |e: String| format!("{field} {path}: {e}");
    let meta = std::fs::metadata(Path::new(path)).map_err(|e| name(e.to_string()))?;
    if !meta.is_file() {
        return Err(name(
            "not a regular file (a FIFO or a device would block or never end)".into(),
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| name(e.to_string()))?;
    let mut out = Vec::new();
    file.take(MAX_REFERENCED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| name(e.to_string()))?;
    if out.len() as u64 > MAX_REFERENCED_BYTES {
        return Err(name(format!(
            "larger than {} MiB, more than a certificate, key or token holds",
            MAX_REFERENCED_BYTES >> 20
        )));
    }
    Ok(out)
}

/// Whether `pem` holds at least one `CERTIFICATE` PEM block whose body is base64 of a DER
/// SEQUENCE (what Go's `CertPool.AppendCertsFromPEM` needs to add one certificate).
pub(crate) fn has_pem_certificate(pem: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(pem) else {
        return false;
    };
    let begin = "-----BEGIN CERTIFICATE-----";
    let end = "-----END CERTIFICATE-----";
    let mut rest = text;
    while let Some(b) = rest.find(begin) {
        let after = &rest[b + begin.len()..];
        let Some(e) = after.find(end) else {
            return false;
        };
        let body: String = after[..e].chars().filter(|c| !c.is_whitespace()).collect();
        if base64::engine::general_purpose::STANDARD
            .decode(body)
            .is_ok_and(|der| der.first() == Some(&0x30))
        {
            return true;
        }
        rest = &after[e + end.len()..];
    }
    false
}

/// For the context `context` (else the current-context) of `kc`: checks its cluster's TLS
/// settings and replaces each file its cluster and user name by that file's contents, read
/// with [`read_bounded`]. With `ca_overridden` (`--certificate-authority` or
/// `--insecure-skip-tls-verify` given) the kubeconfig's certificate authority is not used, so
/// it is neither read nor checked (clientcmd drops it too). Errors: kubectl's words for the TLS
/// settings, or the file's (naming the kubeconfig field and the path).
pub(crate) fn inline_referenced_files(
    kc: &mut Kubeconfig,
    context: Option<&str>,
    ca_overridden: bool,
) -> Result<(), String> {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let Some(ctx) = super::kubeconfig::context_in_use(kc, context) else {
        return Ok(());
    };
    if let Some(cluster) = kc
        .clusters
        .iter_mut()
        .find(|c| c.name == ctx.cluster)
        .and_then(|c| c.cluster.as_mut())
        .filter(|_| !ca_overridden)
    {
        if let Some(path) = cluster.certificate_authority.take() {
            if cluster.certificate_authority_data.is_none() {
                let pem = read_bounded("certificate-authority", &path)?;
                cluster.certificate_authority_data = Some(b64(&pem));
            }
        }
        if let Some(data) = &cluster.certificate_authority_data {
            if cluster.insecure_skip_tls_verify == Some(true) {
                return Err(
                    "specifying a root certificates file with the insecure flag is not allowed"
                        .into(),
                );
            }
            let pem = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .unwrap_or_default();
            if !has_pem_certificate(&pem) {
                return Err(
                    "unable to load root certificates: unable to parse bytes as PEM block".into(),
                );
            }
        }
    }
    let Some(user) = ctx.user.as_deref() else {
        return Ok(());
    };
    let Some(a) = super::kubeconfig::user_mut(kc, user) else {
        return Ok(());
    };
    if let Some(path) = a.client_certificate.take() {
        if a.client_certificate_data.is_none() {
            a.client_certificate_data = Some(b64(&read_bounded("client-certificate", &path)?));
        }
    }
    let key = match a.client_key.take() {
        Some(path) => Some(b64(&read_bounded("client-key", &path)?)),
        None => None,
    };
    let token = match a.token_file.take() {
        Some(path) => {
            let bytes = read_bounded("tokenFile", &path)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("tokenFile {path}: not UTF-8 text"))?;
            Some(text.trim().to_string())
        }
        None => None,
    };
    // The secret fields are built through AuthInfo's own deserializer (it keeps them secret);
    // data given inline wins over a file, as in client-go.
    let secrets: AuthInfo = serde_json::from_value(serde_json::json!({
        "client-key-data": key,
        "token": token,
    }))
    .map_err(|e| format!("the kubeconfig's user {user}: {e}"))?;
    if a.client_key_data.is_none() {
        a.client_key_data = secrets.client_key_data;
    }
    if a.token.is_none() {
        a.token = secrets.token;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig(cluster: &str, user: &str) -> Kubeconfig {
        Kubeconfig::from_yaml(&format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n  cluster: {{server: 'https://10.0.0.1:6443', {cluster}}}\nusers:\n- name: u\n  user: {{{user}}}\n- name: other\n  user: {{tokenFile: /does/not/exist}}\ncontexts:\n- name: x\n  context: {{cluster: c, user: u}}\n"
        ))
        .unwrap()
    }

    /// The smallest block the check takes for a certificate: `BEGIN CERTIFICATE` around the
    /// base64 of a DER SEQUENCE (`30 03 02 01 00`).
    const PEM: &str = "-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n";

    #[test]
    fn kubectl_refuses_these_tls_settings() {
        let data = base64::engine::general_purpose::STANDARD.encode(PEM);
        let mut kc = kubeconfig(
            &format!("certificate-authority-data: {data}, insecure-skip-tls-verify: true"),
            "token: t",
        );
        assert_eq!(
            inline_referenced_files(&mut kc, None, false).unwrap_err(),
            "specifying a root certificates file with the insecure flag is not allowed"
        );
        let garbage = base64::engine::general_purpose::STANDARD.encode("garbage\n");
        let mut kc = kubeconfig(
            &format!("certificate-authority-data: {garbage}"),
            "token: t",
        );
        assert_eq!(
            inline_referenced_files(&mut kc, None, false).unwrap_err(),
            "unable to load root certificates: unable to parse bytes as PEM block"
        );
        let mut kc = kubeconfig(&format!("certificate-authority-data: {data}"), "token: t");
        assert_eq!(inline_referenced_files(&mut kc, None, false), Ok(()));
        // `--insecure-skip-tls-verify` or `--certificate-authority` replaces it: not checked.
        let mut kc = kubeconfig(
            &format!("certificate-authority-data: {garbage}"),
            "token: t",
        );
        assert_eq!(inline_referenced_files(&mut kc, None, true), Ok(()));
        assert!(has_pem_certificate(PEM.as_bytes()));
        assert!(!has_pem_certificate(
            b"-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n"
        ));
    }

    /// Files are read with their bound and become data; a FIFO or a device is refused before it
    /// is opened; a file named by a context not in use is not read.
    #[test]
    fn named_files_are_read_bounded_and_inlined() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, PEM).unwrap();
        let token = dir.path().join("token");
        std::fs::write(&token, "abc\n").unwrap();
        let mut kc = kubeconfig(
            &format!("certificate-authority: {}", ca.display()),
            &format!("tokenFile: {}", token.display()),
        );
        inline_referenced_files(&mut kc, None, false).unwrap();
        let cluster = kc.clusters[0].cluster.as_ref().unwrap();
        assert_eq!(cluster.certificate_authority, None);
        let data = cluster.certificate_authority_data.as_deref().unwrap();
        assert_eq!(
            base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap(),
            PEM.as_bytes()
        );
        let user = kc.auth_infos[0].auth_info.as_ref().unwrap();
        assert_eq!(user.token_file, None);
        use secrecy::ExposeSecret;
        assert_eq!(user.token.as_ref().unwrap().expose_secret(), "abc");

        let mut kc = kubeconfig("insecure-skip-tls-verify: true", "tokenFile: /dev/zero");
        assert_eq!(
            inline_referenced_files(&mut kc, None, false).unwrap_err(),
            "tokenFile /dev/zero: not a regular file (a FIFO or a device would block or never end)"
        );
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'a'; (MAX_REFERENCED_BYTES + 1) as usize]).unwrap();
        let mut kc = kubeconfig(
            "insecure-skip-tls-verify: true",
            &format!("client-key: {}", big.display()),
        );
        assert_eq!(
            inline_referenced_files(&mut kc, None, false).unwrap_err(),
            format!(
                "client-key {}: larger than 1 MiB, more than a certificate, key or token holds",
                big.display()
            )
        );
    }
}
