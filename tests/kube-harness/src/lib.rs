//! A real Kubernetes API server for the end-to-end tests: etcd and kube-apiserver, built from Go
//! modules by `tests/kube/build.sh` (or found in its cache), started on 127.0.0.1 on free ports
//! with RBAC (`--authorization-mode=RBAC`), a static admin token in `system:masters`, an audit
//! log at level RequestResponse and service-account keys; the CRDs of `examples/cluster/` are
//! applied and Established before a test gets it.
//!
//! [`shared`] starts one cluster per test binary on first use and gives every test the same one;
//! a test isolates itself with [`Kube::namespace`]. A test that disturbs the cluster (restarting
//! the API server, compacting etcd) starts its own with [`Kube::start`]: those operations take
//! `&mut self`, which the shared one never lends. Both processes stop when the cluster is dropped
//! or, for the shared one, when the test process ends in any way (see `process`).
//!
//! When the server cannot be had (Go or the module proxy missing, a build failing, kubectl or
//! openssl missing) every test that asks for it panics with the reason; none passes without it.

mod binaries;
mod files;
mod http;
mod process;
mod run;

pub use binaries::BIN_ENV;
pub use files::{ADMIN_TOKEN, USER_NAME, USER_TOKEN};
pub use run::Output;

use process::Server;
use serde_json::Value;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long etcd, then the API server, may take to become ready (a guard against a hang on a
/// busy machine, not a measure).
const STARTUP: Duration = Duration::from_secs(300);
/// How long one kubectl run may take.
const KUBECTL_DEADLINE: Duration = Duration::from_secs(120);
/// How long a stopped server may take to exit after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(30);
/// Tries at a pair of free ports (another process may take a port between the probe and the bind).
const PORT_TRIES: usize = 3;
/// The service CIDR (`--service-cluster-ip-range`); nothing routes to it.
const SERVICE_CIDR: &str = "10.96.0.0/24";
/// The service-account token issuer (`--service-account-issuer`), as kubeadm sets it.
const SA_ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// What the API server's audit log records (`--audit-policy-file`'s one rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Audit {
    /// Every request with its request and response bodies (level `RequestResponse`): what the
    /// tests read back.
    #[default]
    RequestResponse,
    /// Only who asked for what (level `Metadata`), as many clusters log: each request costs the
    /// server less than at `RequestResponse`, which serialises both bodies again.
    Metadata,
    /// No audit log (no `--audit-log-path`): the API server's cost alone.
    Off,
}

/// How [`Kube::start_with`] starts a cluster.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The audit level of every request.
    pub audit: Audit,
}

/// A running etcd and kube-apiserver pair.
pub struct Kube {
    options: Options,
    dir: PathBuf,
    repo: PathBuf,
    kubectl: PathBuf,
    bins: PathBuf,
    files: files::Files,
    etcd: Server,
    etcd_client: SocketAddr,
    apiserver: Server,
    port: u16,
    server: String,
    kubeconfig: PathBuf,
    audit_log: PathBuf,
    watchdog: Child,
    namespaces: AtomicUsize,
}

static SHARED: OnceLock<Result<Kube, String>> = OnceLock::new();

/// The test binary's cluster, started on first use (the first caller builds or finds the
/// binaries and starts the servers; concurrent callers wait). Panics with the reason when it
/// cannot start, in every test that asks.
pub fn shared() -> &'static Kube {
    match SHARED.get_or_init(|| Kube::try_start(Options::default())) {
        Ok(k) => k,
        Err(e) => panic!("the real Kubernetes API server could not be started: {e}"),
    }
}

/// The repository root (`tests/kube-harness/../..`).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// kubectl from PATH, else /usr/bin/kubectl.
fn find_kubectl() -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("kubectl"))
                .find(|k| k.is_file())
        })
        .or_else(|| Some(PathBuf::from("/usr/bin/kubectl")).filter(|k| k.is_file()))
        .ok_or_else(|| {
            "kubectl is not installed (not on PATH, not /usr/bin/kubectl); the harness applies CRDs and checks readiness with it".to_string()
        })
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port on 127.0.0.1: {e}"))
}

fn path_arg(flag: &str, p: &Path) -> String {
    format!("--{flag}={}", p.display())
}

/// What a start has brought up so far, stopped again when the start fails.
struct Starting {
    dir: PathBuf,
    watchdog: Option<Child>,
    etcd: Option<Server>,
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let Some(mut e) = self.etcd.take() {
            e.stop(STOP_GRACE);
        }
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// kubectl with `kubeconfig`, `home` as HOME (its discovery cache) and no KUBECONFIG of the
/// caller's.
fn kubectl_command(kubectl: &Path, home: &Path, kubeconfig: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(kubectl);
    c.arg(path_arg("kubeconfig", kubeconfig))
        .args(args)
        .env("HOME", home)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    c
}

/// Starts etcd on free loopback ports and waits for its `/health`. Errors: it exits (quoting its
/// log), stays unhealthy past [`STARTUP`], or every try finds its ports taken.
fn start_etcd(dir: &Path, bins: &Path) -> Result<(Server, SocketAddr), String> {
    let mut last = String::new();
    for _ in 0..PORT_TRIES {
        let (client, peer) = (free_port()?, free_port()?);
        let addr = SocketAddr::from(([127, 0, 0, 1], client));
        let args = vec![
            "--name=kube-harness".to_string(),
            path_arg("data-dir", &dir.join("etcd-data")),
            format!("--listen-client-urls=http://{addr}"),
            format!("--advertise-client-urls=http://{addr}"),
            format!("--listen-peer-urls=http://127.0.0.1:{peer}"),
            format!("--initial-advertise-peer-urls=http://127.0.0.1:{peer}"),
            format!("--initial-cluster=kube-harness=http://127.0.0.1:{peer}"),
            // A throw-away store: no fsync per write.
            "--unsafe-no-fsync".to_string(),
            "--log-level=warn".to_string(),
        ];
        let mut etcd = process::spawn(dir, "etcd", &bins.join("etcd"), &args)?;
        let start = Instant::now();
        loop {
            if let Some(status) = etcd.exited() {
                let log = etcd.log_tail();
                etcd.stop(STOP_GRACE);
                if log.contains("address already in use") {
                    last = format!("etcd: its ports were taken: {log}");
                    break;
                }
                return Err(format!(
                    "etcd exited ({status}) while starting; its log:\n{log}"
                ));
            }
            match http::request(addr, "GET", "/health", None, Duration::from_secs(5)) {
                Ok((200, body)) if body.contains("\"health\":\"true\"") => return Ok((etcd, addr)),
                _ if start.elapsed() > STARTUP => {
                    let log = etcd.log_tail();
                    etcd.stop(STOP_GRACE);
                    return Err(format!(
                        "etcd was not healthy after {STARTUP:?}; its log:\n{log}"
                    ));
                }
                _ => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }
    Err(last)
}

/// The kube-apiserver flags of a cluster in `dir` on `port` over etcd at `etcd`.
fn apiserver_args(
    dir: &Path,
    f: &files::Files,
    etcd: SocketAddr,
    port: u16,
    audit: Audit,
) -> Vec<String> {
    let mut args = vec![
        format!("--etcd-servers=http://{etcd}"),
        "--bind-address=127.0.0.1".to_string(),
        "--advertise-address=127.0.0.1".to_string(),
        format!("--secure-port={port}"),
        path_arg("cert-dir", &dir.join("certs")),
        path_arg("tls-cert-file", &f.serving_crt),
        path_arg("tls-private-key-file", &f.serving_key),
        "--authorization-mode=RBAC".to_string(),
        path_arg("token-auth-file", &f.tokens),
        format!("--service-account-issuer={SA_ISSUER}"),
        path_arg("service-account-key-file", &f.sa_pub),
        path_arg("service-account-signing-key-file", &f.sa_key),
        format!("--service-cluster-ip-range={SERVICE_CIDR}"),
        // No controller manager runs: nothing would create the default ServiceAccounts that
        // this plugin waits for, and nothing would use the endpoints of the `kubernetes`
        // Service (which may not be a loopback address anyway).
        "--disable-admission-plugins=ServiceAccount".to_string(),
        "--endpoint-reconciler-type=none".to_string(),
        "--profiling=false".to_string(),
    ];
    if audit != Audit::Off {
        args.push(path_arg("audit-policy-file", &f.audit_policy));
        args.push(path_arg("audit-log-path", &dir.join("audit.log")));
    }
    args
}

/// Waits until the API server answers `/readyz` with `ok`. Errors: it exits (quoting its log) or
/// is not ready within [`STARTUP`].
fn wait_apiserver(
    apiserver: &mut Server,
    port: u16,
    kubectl: &Path,
    home: &Path,
    kubeconfig: &Path,
) -> Result<(), String> {
    let start = Instant::now();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut last = String::new();
    loop {
        if let Some(status) = apiserver.exited() {
            return Err(format!(
                "kube-apiserver exited ({status}) while starting; its log:\n{}",
                apiserver.log_tail()
            ));
        }
        if start.elapsed() > STARTUP {
            return Err(format!(
                "kube-apiserver was not ready after {STARTUP:?} (last /readyz: {last}); its log:\n{}",
                apiserver.log_tail()
            ));
        }
        if TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok() {
            let mut c = kubectl_command(
                kubectl,
                home,
                kubeconfig,
                &["get", "--raw", "/readyz", "--request-timeout=10s"],
            );
            match run::run(&mut c, None, KUBECTL_DEADLINE) {
                Ok(o) if o.success() && o.stdout.trim() == "ok" => return Ok(()),
                Ok(o) => last = format!("{}{}", o.stdout, o.stderr),
                Err(e) => last = e,
            }
            std::thread::sleep(Duration::from_millis(500));
        } else {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Kube {
    /// Starts a cluster of the caller's own (its start costs about what the shared one's does;
    /// the binaries are built only once). Panics with the reason when it cannot start.
    pub fn start() -> Kube {
        Kube::start_with(Options::default())
    }

    /// [`Kube::start`] with `options` (e.g. a lighter audit log for a benchmark). Panics with the
    /// reason when it cannot start.
    pub fn start_with(options: Options) -> Kube {
        Kube::try_start(options)
            .unwrap_or_else(|e| panic!("the real Kubernetes API server could not be started: {e}"))
    }

    fn try_start(options: Options) -> Result<Kube, String> {
        let repo = repo();
        let kubectl = find_kubectl()?;
        let bins = binaries::find_or_build(&repo)?;
        let dir = tempfile::Builder::new()
            .prefix("kube-harness.")
            .tempdir()
            .map_err(|e| format!("creating a temporary directory: {e}"))?
            .keep();
        let mut starting = Starting {
            dir: dir.clone(),
            watchdog: Some(process::watchdog(&dir)?),
            etcd: None,
        };
        let files = files::write(&dir, options.audit)?;
        let home = dir.join("home");
        std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
        let (etcd, etcd_client) = start_etcd(&dir, &bins)?;
        starting.etcd = Some(etcd);
        let kubeconfig = dir.join("kubeconfig");
        let audit_log = dir.join("audit.log");
        let mut last = String::new();
        for _ in 0..PORT_TRIES {
            let port = free_port()?;
            let server = format!("https://127.0.0.1:{port}");
            files::write_file(
                &kubeconfig,
                &files::kubeconfig(&server, &files.ca_crt, ADMIN_TOKEN, Some("default")),
            )?;
            let args = apiserver_args(&dir, &files, etcd_client, port, options.audit);
            let mut apiserver =
                process::spawn(&dir, "kube-apiserver", &bins.join("kube-apiserver"), &args)?;
            if let Err(e) = wait_apiserver(&mut apiserver, port, &kubectl, &home, &kubeconfig) {
                let in_use = apiserver.log_tail().contains("address already in use");
                apiserver.stop(STOP_GRACE);
                if !in_use {
                    return Err(e);
                }
                last = e;
                continue;
            }
            let kube = Kube {
                options,
                etcd: starting.etcd.take().expect("etcd started"),
                watchdog: starting.watchdog.take().expect("watchdog started"),
                dir,
                repo,
                kubectl,
                bins,
                files,
                etcd_client,
                apiserver,
                port,
                server,
                kubeconfig,
                audit_log,
                namespaces: AtomicUsize::new(0),
            };
            kube.apply_crds()?;
            return Ok(kube);
        }
        Err(last)
    }

    /// Applies the CRDs of `examples/cluster/` and waits until each is Established.
    fn apply_crds(&self) -> Result<(), String> {
        let crds = self.repo.join("examples/cluster");
        let crds = crds.to_str().expect("UTF-8 repository path");
        self.try_kubectl(&["apply", "-f", crds], None)?;
        self.try_kubectl(
            &[
                "wait",
                "--for=condition=Established",
                "-f",
                crds,
                "--timeout=120s",
            ],
            None,
        )?;
        Ok(())
    }

    /// The kubeconfig of the admin (token [`ADMIN_TOKEN`], context namespace `default`).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The API server's URL, `https://127.0.0.1:PORT`.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The admin's bearer token (group `system:masters`).
    pub fn token(&self) -> &str {
        ADMIN_TOKEN
    }

    /// The PEM file of the CA that signed the API server's serving certificate.
    pub fn ca_file(&self) -> &Path {
        &self.files.ca_crt
    }

    /// The audit log (JSON lines of audit.k8s.io/v1 Events, level RequestResponse, stages
    /// ResponseStarted/ResponseComplete/Panic).
    pub fn audit_log(&self) -> &Path {
        &self.audit_log
    }

    /// The directory holding the `kube-apiserver` and `etcd` executables.
    pub fn bin_dir(&self) -> &Path {
        &self.bins
    }

    /// A directory of this cluster's files (certificates, logs, kubeconfigs), removed with it.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// etcd's client URL, `http://127.0.0.1:PORT` (its v3 JSON gateway is served there too).
    pub fn etcd_url(&self) -> String {
        format!("http://{}", self.etcd_client)
    }

    /// Writes a kubeconfig for this server at `path` with `token` (e.g. [`USER_TOKEN`], or a
    /// ServiceAccount's token) and, when given, `namespace` as its context's namespace.
    pub fn write_kubeconfig(&self, path: &Path, token: &str, namespace: Option<&str>) {
        files::write_file(
            path,
            &files::kubeconfig(&self.server, &self.files.ca_crt, token, namespace),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }

    /// A new namespace named `PREFIX-N` (N counting the namespaces made on this cluster), created
    /// before this returns. Panics when the server refuses it (e.g. PREFIX is no DNS-1123 label).
    pub fn namespace(&self, prefix: &str) -> String {
        let n = self.namespaces.fetch_add(1, Ordering::SeqCst) + 1;
        let name = format!("{prefix}-{n}");
        self.kubectl_ok(&["create", "namespace", &name], None);
        name
    }

    /// `kubectl --kubeconfig=ADMIN ARGS`, with this cluster's HOME (discovery cache) and none
    /// of the caller's KUBECONFIG.
    pub fn kubectl(&self, args: &[&str]) -> Command {
        kubectl_command(
            &self.kubectl,
            &self.dir.join("home"),
            &self.kubeconfig,
            args,
        )
    }

    fn try_kubectl(&self, args: &[&str], input: Option<&str>) -> Result<Output, String> {
        let o = run::run(&mut self.kubectl(args), input, KUBECTL_DEADLINE)?;
        if o.success() {
            Ok(o)
        } else {
            Err(format!(
                "kubectl {} exited {:?}:\n{}{}",
                args.join(" "),
                o.code,
                o.stdout,
                o.stderr
            ))
        }
    }

    /// Runs `kubectl ARGS` as the admin with `input` on stdin and returns its stdout. Panics
    /// (quoting both streams) unless it exits 0 within two minutes.
    pub fn kubectl_ok(&self, args: &[&str], input: Option<&str>) -> String {
        self.try_kubectl(args, input)
            .unwrap_or_else(|e| panic!("{e}"))
            .stdout
    }

    /// Runs `kubectl ARGS` as the admin and returns what it did, whatever its exit code.
    pub fn kubectl_output(&self, args: &[&str], input: Option<&str>) -> Output {
        run::run(&mut self.kubectl(args), input, KUBECTL_DEADLINE).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Creates or updates `objects` in `namespace` (`kubectl apply`; each object's
    /// `metadata.namespace` is set to it) and returns what the server stored, in order.
    pub fn apply(&self, namespace: &str, objects: &[Value]) -> Vec<Value> {
        let items: Vec<Value> = objects
            .iter()
            .cloned()
            .map(|mut o| {
                o["metadata"]["namespace"] = Value::from(namespace);
                o
            })
            .collect();
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
        let out = self.kubectl_ok(&["apply", "-o", "json", "-f", "-"], Some(&list.to_string()));
        let doc: Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("kubectl apply -o json printed no JSON ({e}): {out}"));
        match doc["kind"].as_str() {
            Some("List") => doc["items"].as_array().cloned().unwrap_or_default(),
            _ => vec![doc],
        }
    }

    /// etcd's current revision (the newest resourceVersion the API server can have handed out).
    pub fn etcd_revision(&self) -> u64 {
        let body = r#"{"key":"AA==","range_end":"AA==","count_only":true}"#;
        let v = self.etcd_call("/v3/kv/range", body);
        revision_of(&v).unwrap_or_else(|| panic!("etcd's range answer has no revision: {v}"))
    }

    fn etcd_call(&self, path: &str, body: &str) -> Value {
        match http::request(
            self.etcd_client,
            "POST",
            path,
            Some(body),
            Duration::from_secs(30),
        ) {
            Ok((200, text)) => serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("etcd {path}: not JSON ({e}): {text}")),
            Ok((code, text)) => panic!("etcd {path}: HTTP {code}: {text}"),
            Err(e) => panic!("etcd {path}: {e}"),
        }
    }

    /// Compacts etcd's history up to its current revision (as the API server's own compactor
    /// does every `--etcd-compaction-interval`), so that no resourceVersion older than that can
    /// be read or watched from etcd any more. Returns the revision. Only on a cluster of the
    /// test's own ([`Kube::start`]): other tests' watches would see it.
    pub fn compact(&mut self) -> u64 {
        let rev = self.etcd_revision();
        let body = serde_json::json!({"revision": rev.to_string(), "physical": true}).to_string();
        self.etcd_call("/v3/kv/compaction", &body);
        rev
    }

    /// Stops the API server (SIGTERM, SIGKILL after 30 s) and starts it again on the same port
    /// over the same etcd, returning once it is ready: its watch cache starts anew from etcd.
    /// Only on a cluster of the test's own ([`Kube::start`]).
    pub fn restart_apiserver(&mut self) {
        self.apiserver.stop(STOP_GRACE);
        let args = apiserver_args(
            &self.dir,
            &self.files,
            self.etcd_client,
            self.port,
            self.options.audit,
        );
        self.apiserver = process::spawn(
            &self.dir,
            "kube-apiserver",
            &self.bins.join("kube-apiserver"),
            &args,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        wait_apiserver(
            &mut self.apiserver,
            self.port,
            &self.kubectl,
            &self.dir.join("home"),
            &self.kubeconfig,
        )
        .unwrap_or_else(|e| panic!("restarting kube-apiserver: {e}"));
    }
}

/// `header.revision` of an etcd gateway answer (a JSON string, int64 as protobuf's JSON mapping
/// writes it, or a number).
fn revision_of(v: &Value) -> Option<u64> {
    let r = &v["header"]["revision"];
    r.as_u64()
        .or_else(|| r.as_str().and_then(|s| s.parse().ok()))
}

impl Drop for Kube {
    fn drop(&mut self) {
        self.apiserver.stop(STOP_GRACE);
        self.etcd.stop(STOP_GRACE);
        let _ = self.watchdog.kill();
        let _ = self.watchdog.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
