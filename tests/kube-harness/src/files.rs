//! The files a test cluster starts from, written into its directory: a CA and the API server's
//! serving certificate for 127.0.0.1 (ECDSA P-256, by `openssl`), the service-account key pair
//! (RSA 2048), the static token file, the audit policy, and kubeconfigs.

use crate::Audit;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The admin's bearer token: user `kube-harness-admin`, group `system:masters` (RBAC lets that
/// group do everything).
pub const ADMIN_TOKEN: &str = "kube-harness-admin-token";
/// A second user's bearer token: user `kube-harness-user`, no group but `system:authenticated`,
/// so RBAC grants it nothing until a test binds a role to it.
pub const USER_TOKEN: &str = "kube-harness-user-token";
/// The user name of [`USER_TOKEN`].
pub const USER_NAME: &str = "kube-harness-user";

/// Paths of the files [`write`] makes.
pub struct Files {
    pub ca_crt: PathBuf,
    pub serving_crt: PathBuf,
    pub serving_key: PathBuf,
    pub sa_key: PathBuf,
    pub sa_pub: PathBuf,
    pub tokens: PathBuf,
    pub audit_policy: PathBuf,
}

/// Runs `openssl` with the words of `args` (none contains a space) in `dir`.
fn openssl(dir: &Path, args: &str) -> Result<(), String> {
    let out = Command::new("openssl")
        .args(args.split_whitespace())
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run openssl (it makes the test cluster's keys): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "openssl {args}: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Writes every file into `dir`, the audit policy at `audit`'s level. Errors: openssl missing or
/// failing, a file not writable.
pub fn write(dir: &Path, audit: Audit) -> Result<Files, String> {
    const EC: &str = "genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256";
    openssl(dir, &format!("{EC} -out ca.key"))?;
    openssl(
        dir,
        "req -x509 -new -key ca.key -subj /CN=kube-harness-ca -days 3650 -out ca.crt \
         -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign",
    )?;
    openssl(dir, &format!("{EC} -out apiserver.key"))?;
    openssl(
        dir,
        "req -new -key apiserver.key -subj /CN=kube-apiserver -out apiserver.csr",
    )?;
    write_file(
        &dir.join("apiserver.ext"),
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n\
         extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
    )?;
    openssl(
        dir,
        "x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
         -extfile apiserver.ext -out apiserver.crt",
    )?;
    openssl(
        dir,
        "genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key",
    )?;
    openssl(dir, "pkey -in sa.key -pubout -out sa.pub")?;
    // kube-apiserver's --token-auth-file: token,user,uid,"group1,group2"
    write_file(
        &dir.join("tokens.csv"),
        &format!(
            "{ADMIN_TOKEN},kube-harness-admin,kube-harness-admin,\"system:masters\"\n{USER_TOKEN},{USER_NAME},{USER_NAME}\n"
        ),
    )?;
    // Every request at one level (audit.k8s.io/v1 Policy), without the RequestReceived stage
    // that would repeat each one.
    let level = match audit {
        Audit::Metadata => "Metadata",
        Audit::RequestResponse | Audit::Off => "RequestResponse",
    };
    write_file(
        &dir.join("audit-policy.yaml"),
        &format!(
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: {level}\n"
        ),
    )?;
    Ok(Files {
        ca_crt: dir.join("ca.crt"),
        serving_crt: dir.join("apiserver.crt"),
        serving_key: dir.join("apiserver.key"),
        sa_key: dir.join("sa.key"),
        sa_pub: dir.join("sa.pub"),
        tokens: dir.join("tokens.csv"),
        audit_policy: dir.join("audit-policy.yaml"),
    })
}

/// A kubeconfig (clientcmd v1 Config) for `server` trusting `ca`, authenticating with `token`,
/// its one context named `kube-harness` with `namespace` as its namespace when given.
pub fn kubeconfig(server: &str, ca: &Path, token: &str, namespace: Option<&str>) -> String {
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let ns = namespace.map_or(String::new(), |n| format!(", namespace: {}", q(n)));
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: kube-harness\n  cluster: {{server: {}, certificate-authority: {}}}\nusers:\n- name: kube-harness\n  user: {{token: {}}}\ncontexts:\n- name: kube-harness\n  context: {{cluster: kube-harness, user: kube-harness{ns}}}\ncurrent-context: kube-harness\n",
        q(server),
        q(ca.to_str().expect("UTF-8 temporary path")),
        q(token),
    )
}

/// Writes `text` to `path`, naming the path in the error.
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
