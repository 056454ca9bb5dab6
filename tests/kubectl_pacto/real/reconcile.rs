//! `reconcile --once` against the real server where a real server decides: a status write that
//! never ends (a validating admission webhook whose endpoint accepts connections and never
//! answers, so kube-apiserver waits its `timeoutSeconds` on every write) ends at the run's
//! `--timeout`; a Stage deleted while its write is under way is named as kubectl names a missing
//! object; and on a Stage CRD without the list-map marker, `doctor --cluster` says that a
//! reconcile write owns the whole conditions list, which the server confirms by refusing
//! another manager's apply (structured-merge-diff's conflict), while the run still leaves one
//! entry per condition type.

use super::*;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// An endpoint on 127.0.0.1 that accepts every connection and never sends a byte: a TLS client
/// (kube-apiserver calling a webhook) waits on its handshake until its own timeout.
struct Silent {
    port: u16,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    held: Arc<Mutex<Vec<TcpStream>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Silent {
    fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let held = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let (accepted, stop, held) = (accepted.clone(), stop.clone(), held.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((conn, _)) => {
                            accepted.fetch_add(1, Ordering::SeqCst);
                            held.lock().unwrap().push(conn);
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(10)),
                    }
                }
            })
        };
        Silent {
            port,
            accepted,
            stop,
            held,
            thread: Some(thread),
        }
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Closes every held connection and the listener: the calls waiting on it fail at once, and
    /// later ones are refused.
    fn release(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        for c in self.held.lock().unwrap().drain(..) {
            let _ = c.shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        self.release();
    }
}

/// A validating webhook on every status write of a Stage in `ns` (UPDATE of `stages/status`),
/// calling `silent`: each such write waits on it (30 s, the most `timeoutSeconds` allows), then
/// fails (`Fail`) or goes ahead (`Ignore`). Returns once a probe write in `ns` is held (the
/// configuration takes a moment to reach the admission chain); the probe Stage is labelled
/// `probe: "yes"`, the others are not.
fn hold_status_writes(kube: &kube_harness::Kube, ns: &str, silent: &Silent, policy: &str) {
    let config = serde_json::json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": format!("hold-stage-status-{ns}")},
        "webhooks": [{
            "name": "hold.stages.kube-harness.test",
            "clientConfig": {"url": format!("https://127.0.0.1:{}/hold", silent.port)},
            "rules": [{"apiGroups": ["delivery.pacto.trianalab.io"], "apiVersions": ["v1alpha1"],
                "operations": ["UPDATE"], "resources": ["stages/status"]}],
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
            "failurePolicy": policy,
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 30,
        }],
    });
    kube.kubectl_ok(&["apply", "-f", "-"], Some(&config.to_string()));
    let mut probe = stage("probe");
    probe["metadata"]["labels"] = serde_json::json!({"probe": "yes"});
    kube.apply(ns, &[probe]);
    let start = std::time::Instant::now();
    loop {
        let before = silent.accepted();
        let o = kube.kubectl_output(
            &[
                "patch",
                "stage",
                "probe",
                "-n",
                ns,
                "--subresource=status",
                "--type=merge",
                "-p",
                r#"{"status":{"level":"probe"}}"#,
                "--request-timeout=2s",
            ],
            None,
        );
        if o.code != Some(0) && silent.accepted() > before {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the webhook never held a write: {}{}",
            o.stdout,
            o.stderr
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn delete_webhook(kube: &kube_harness::Kube, ns: &str) {
    kube.kubectl_ok(
        &[
            "delete",
            "validatingwebhookconfiguration",
            &format!("hold-stage-status-{ns}"),
        ],
        None,
    );
}

/// The base Stage of the delivery tests, named `name`.
fn stage(name: &str) -> Value {
    let text = std::fs::read_to_string(repo().join("shared/src/delivery/testdata/base-flux.yaml"))
        .unwrap();
    let mut s = serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .find(|o| o["kind"] == "Stage")
        .unwrap();
    s["metadata"]["name"] = Value::from(name);
    s
}

/// `(name, result, detail)` of each Stage of a `-o json` report.
fn report(stdout: &str) -> Vec<(String, String, String)> {
    let r: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    r["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let f = |k: &str| s[k].as_str().unwrap_or("").to_string();
            (f("name"), f("result"), f("detail"))
        })
        .collect()
}

/// Every status write waits on a webhook that never answers (as the CronJob runs it,
/// `--request-timeout 30s`): the run ends at its `--timeout` with the writes in flight
/// (`--concurrent` of them) cancelled and the others never started, every Stage reported
/// unwritten, exit 1 — not one `--request-timeout` per Stage, one after another (12 of them
/// would take six minutes).
#[test]
fn a_stalled_write_ends_at_the_run_deadline() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("stalled");
    let mut silent = Silent::start();
    hold_status_writes(kube, &ns, &silent, "Fail");
    let stages: Vec<Value> = (0..12).map(|i| stage(&format!("stage-{i:02}"))).collect();
    kube.apply(&ns, &stages);
    let home = tempfile::tempdir().unwrap();
    let r = pacto_on(
        kube,
        home.path(),
        &[
            "reconcile",
            "--once",
            "-n",
            &ns,
            "-l",
            "!probe",
            "-o",
            "json",
            "--request-timeout",
            "30s",
            "--timeout",
            "8s",
            "--concurrent",
            "4",
        ],
    );
    silent.release();
    delete_webhook(kube, &ns);
    r.assert_code(1).assert_no_panic();
    let results = report(&r.stdout);
    assert_eq!(results.len(), 12, "{}", r.stdout);
    let count = |d: &str| {
        results
            .iter()
            .filter(|(_, res, detail)| res == "failed" && detail == d)
            .count()
    };
    assert_eq!(
        (
            count("the run's --timeout of 8s passed while it was being written: the request was cancelled, and the API server may or may not have applied it"),
            count("not written: the run's --timeout of 8s passed before its turn"),
        ),
        (4, 8),
        "{results:?}"
    );
    assert!(
        r.stderr.contains("error: 12 Stage(s) left unwritten"),
        "{}",
        r.stderr
    );
    // The webhook refused what it held (failurePolicy Fail): no Stage was written.
    let listed = kube.kubectl_ok(&["get", "stages", "-n", &ns, "-o", "json"], None);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    for s in listed["items"].as_array().unwrap() {
        assert!(s["status"]["conditions"].is_null(), "{s}");
    }
}

/// A Stage deleted while its status write is under way (held at the webhook, then let through:
/// failurePolicy Ignore): the server answers 404, and the report names the Stage exactly as
/// kubectl names it when its own patch of the deleted Stage's status fails.
#[test]
fn a_stage_deleted_mid_run_is_named_as_kubectl_names_it() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("deleted");
    let mut silent = Silent::start();
    hold_status_writes(kube, &ns, &silent, "Ignore");
    kube.apply(&ns, &[stage("payments")]);
    let held = silent.accepted();
    let home = tempfile::tempdir().unwrap();
    let mut c = pacto(&[
        "reconcile",
        "--once",
        "-n",
        &ns,
        "-l",
        "!probe",
        "-o",
        "json",
        "--kubeconfig",
        s(kube.kubeconfig()),
    ]);
    c.env("HOME", home.path())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let audited_from = std::fs::read_to_string(kube.audit_log()).unwrap().len();
    let child = c.spawn().unwrap();
    // The run has listed the Stage and its write reaches the webhook: delete the Stage, then
    // let the write go on.
    let listed = || {
        let log = std::fs::read_to_string(kube.audit_log()).unwrap();
        log[audited_from..].lines().any(|l| {
            serde_json::from_str::<Value>(l).is_ok_and(|e| {
                e["stage"] == "ResponseComplete"
                    && e["verb"] == "list"
                    && e["objectRef"]["resource"] == "stages"
                    && e["objectRef"]["namespace"] == ns.as_str()
                    && e["userAgent"]
                        .as_str()
                        .is_some_and(|u| u.starts_with("kubectl-pacto/"))
            })
        })
    };
    let start = std::time::Instant::now();
    while silent.accepted() == held || !listed() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the run's write never reached the webhook"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    kube.kubectl_ok(
        &["delete", "stage", "payments", "-n", &ns, "--wait=false"],
        None,
    );
    silent.release();
    let r = finish(child, Duration::from_secs(120), "reconcile");
    r.assert_no_panic();
    let by_kubectl = kube.kubectl_output(
        &[
            "patch",
            "stage",
            "payments",
            "-n",
            &ns,
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"level":"x"}}"#,
        ],
        None,
    );
    delete_webhook(kube, &ns);
    assert_eq!(by_kubectl.code, Some(1), "{}", by_kubectl.stderr);
    let kubectl_says = by_kubectl
        .stderr
        .trim()
        .strip_prefix("Error from server (NotFound): ")
        .unwrap_or_else(|| panic!("kubectl: {}", by_kubectl.stderr))
        .to_string();
    assert_eq!(
        kubectl_says,
        "stages.delivery.pacto.trianalab.io \"payments\" not found"
    );
    r.assert_code(1);
    assert_eq!(
        report(&r.stdout),
        [("payments".to_string(), "failed".to_string(), kubectl_says)],
        "{}",
        r.stderr
    );
}

/// The `doctor --cluster -o json` findings with ID `id`.
fn findings(r: &Run, id: &str) -> Vec<Value> {
    let doc: Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == id)
        .cloned()
        .collect()
}

/// Another manager (`pacto-promoter`) applies its own `Frozen` condition to the status of
/// `ns/payments` by server-side apply, without force.
fn promoter_applies_frozen(kube: &kube_harness::Kube, ns: &str) -> kube_harness::Output {
    let frozen = serde_json::json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
        "metadata": {"name": "payments", "namespace": ns},
        "status": {"conditions": [{"type": "Frozen", "status": "False", "reason": "NotFrozen",
            "message": "", "lastTransitionTime": "2026-11-01T00:00:00Z"}]}});
    kube.kubectl_output(
        &[
            "apply",
            "--server-side",
            "--subresource=status",
            "--field-manager=pacto-promoter",
            "-f",
            "-",
        ],
        Some(&frozen.to_string()),
    )
}

/// The Stage CRD of `examples/cluster` (status.conditions a list-map keyed by type): doctor
/// finds nothing to say of it, and after a reconcile run another manager applies its own
/// condition without a conflict.
#[test]
fn a_list_map_of_conditions_is_shared_by_its_writers() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("listmap");
    kube.apply(&ns, &[stage("payments")]);
    let home = tempfile::tempdir().unwrap();
    pacto_on(kube, home.path(), &["reconcile", "--once", "-n", &ns]).assert_code(0);
    let o = promoter_applies_frozen(kube, &ns);
    assert_eq!(o.code, Some(0), "{}{}", o.stdout, o.stderr);
    let d = pacto_on(kube, home.path(), &["doctor", "--cluster", "-o", "json"]);
    assert!(findings(&d, "S05").is_empty(), "{}", d.stdout);
}

/// A Stage CRD without the list-map marker on `status.conditions`: `doctor --cluster` says that
/// a reconcile write owns the whole list (S05), and the server agrees: after the run, another
/// manager's apply of its own condition is refused with a conflict naming `kubectl-pacto`. The
/// run, writing the atomic list whole, leaves one entry per type where the list held two
/// `Ready`.
#[test]
fn without_the_list_map_marker_a_write_owns_the_whole_conditions_list() {
    // The Stage CRD changes: a cluster of this test's own.
    let kube = kube_harness::Kube::start();
    let mut crd = yaml_documents("examples/cluster/stages.delivery.pacto.trianalab.io.yaml")
        .pop()
        .unwrap();
    let conditions = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
        ["status"]["properties"]["conditions"];
    let m = conditions.as_object_mut().unwrap();
    assert!(m.remove("x-kubernetes-list-type").is_some());
    m.remove("x-kubernetes-list-map-keys");
    kube.kubectl_ok(&["apply", "-f", "-"], Some(&crd.to_string()));
    // The served OpenAPI document follows the CRD a moment later.
    let path = "/openapi/v3/apis/delivery.pacto.trianalab.io/v1alpha1";
    let start = std::time::Instant::now();
    // Until the group version is served again (a 404 meanwhile) or the Stage's schema is in
    // it, the answer is "not yet".
    let not_yet = Value::Bool(true);
    let served_marker = || {
        let out = kube.kubectl_output(&["get", "--raw", path], None);
        if !out.success() {
            return not_yet.clone();
        }
        let Ok(doc) = serde_json::from_str::<Value>(&out.stdout) else {
            return not_yet.clone();
        };
        let stage = doc["components"]["schemas"].as_object().and_then(|m| {
            m.values()
                .find(|s| s["x-kubernetes-group-version-kind"][0]["kind"] == "Stage")
                .cloned()
        });
        match stage {
            Some(stage) => stage["properties"]["status"]["properties"]["conditions"]
                ["x-kubernetes-list-type"]
                .clone(),
            None => not_yet.clone(),
        }
    };
    while !served_marker().is_null() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the schema was not served"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let home = tempfile::tempdir().unwrap();
    let d = pacto_on(&kube, home.path(), &["doctor", "--cluster", "-o", "json"]);
    let s05 = findings(&d, "S05");
    assert_eq!(s05.len(), 1, "{}{}", d.stdout, d.stderr);
    assert_eq!(s05[0]["severity"], "warning");
    assert_eq!(
        s05[0]["object"],
        "CustomResourceDefinition stages.delivery.pacto.trianalab.io"
    );
    assert_eq!(
        s05[0]["evidence"],
        "status.conditions of Stage (delivery.pacto.trianalab.io/v1alpha1) in the served OpenAPI v3 schema: no x-kubernetes-list-type"
    );
    assert_eq!(d.code, Some(1), "a warning: {}", d.stderr);

    // Two Ready entries (an atomic list takes them), and another writer's condition.
    let ns = kube.namespace("atomic");
    kube.apply(&ns, &[stage("payments")]);
    let status = serde_json::json!({"status": {"conditions": [
        {"type": "Ready", "status": "False", "reason": "NoCandidateSource", "message": "x",
         "lastTransitionTime": "2026-11-01T00:00:00Z"},
        {"type": "Frozen", "status": "False", "reason": "NotFrozen", "message": "",
         "lastTransitionTime": "2026-11-01T00:00:00Z"},
        {"type": "Ready", "status": "True", "reason": "Promotable", "message": "stale",
         "lastTransitionTime": "2026-11-01T00:00:00Z"}]}});
    kube.kubectl_ok(
        &[
            "patch",
            "stage",
            "payments",
            "-n",
            &ns,
            "--subresource=status",
            "--type=merge",
            "-p",
            &status.to_string(),
        ],
        None,
    );
    let r = pacto_on(&kube, home.path(), &["reconcile", "--once", "-n", &ns]);
    r.assert_code(0).assert_no_panic();
    let written: Value = serde_json::from_str(
        &kube.kubectl_ok(&["get", "stage", "payments", "-n", &ns, "-o", "json"], None),
    )
    .unwrap();
    let mut types: Vec<&str> = written["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    types.sort();
    assert_eq!(types, ["Frozen", "Mediated", "Ready"], "{written}");
    // kubectl-pacto now owns the whole list: the promoter's own apply conflicts with it.
    let o = promoter_applies_frozen(&kube, &ns);
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains("conflict with \"kubectl-pacto\"")
            && o.stderr.contains(".status.conditions"),
        "{}",
        o.stderr
    );
}
