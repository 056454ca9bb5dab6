//! The fake API server against the real one: the same requests sent to both (with `curl`, so
//! neither answer passes through this project's client), and the facts a client depends on
//! compared. The fake is the project's model of kube-apiserver for the fault tests; where it
//! answers otherwise than Kubernetes itself these tests fail, naming the request and both
//! answers.
//!
//! What is compared, per scenario: the HTTP status code; a `Status` answer's `reason`,
//! `message` and `details`; and, for an object, the fields named in the scenario (generation,
//! status, managedFields without their timestamps). Each expectation is the real server's
//! answer, so a scenario also checks the real server does what its doc comment says
//! (apiextensions-apiserver's status-subresource strategy, apimachinery's name validation, the
//! RBAC authorizer's denial text).

use super::*;
use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
use serde_json::json;

/// One API server reached over HTTP(S) with curl.
struct Endpoint {
    name: &'static str,
    base: String,
    /// curl flags for TLS and credentials.
    auth: Vec<String>,
}

/// One answer: the status code and the body as JSON (`Value::Null` when it is not JSON).
#[derive(Debug)]
struct Answer {
    code: u16,
    body: Value,
}

impl Endpoint {
    fn real(kube: &kube_harness::Kube) -> Endpoint {
        Endpoint {
            name: "kube-apiserver",
            base: kube.server().to_string(),
            auth: vec![
                "--cacert".into(),
                kube.ca_file().display().to_string(),
                "-H".into(),
                format!("Authorization: Bearer {}", kube.token()),
            ],
        }
    }

    fn fake(server: &FakeApiServer) -> Endpoint {
        Endpoint {
            name: "fake-apiserver",
            base: server.url(),
            auth: vec!["-H".into(), "Authorization: Bearer fake-token".into()],
        }
    }

    /// `METHOD PATH` with `body` of `content_type`. Panics when curl cannot reach the server.
    fn call(&self, method: &str, path: &str, content_type: &str, body: Option<&str>) -> Answer {
        let mut c = Command::new("curl");
        c.args(["-sS", "--max-time", "60", "-X", method])
            .args(&self.auth)
            .args(["-w", "\n%{http_code}"]);
        if let Some(b) = body {
            c.args([
                "-H",
                &format!("Content-Type: {content_type}"),
                "--data-binary",
                b,
            ]);
        }
        c.arg(format!("{}{path}", self.base));
        let out = c
            .output()
            .unwrap_or_else(|e| panic!("curl cannot run (install curl): {e}"));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{}: curl {method} {path}: {}{text}",
            self.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let (body, code) = text
            .rsplit_once('\n')
            .expect("curl printed the status code");
        Answer {
            code: code.trim().parse().expect("a status code"),
            body: serde_json::from_str(body).unwrap_or(Value::Null),
        }
    }
}

/// The facts of `a` a scenario compares: the code, and a Status' reason, message and details,
/// or the object's fields at `fields` (JSON pointers), with `managedFields` timestamps dropped.
fn facts(a: &Answer, fields: &[&str]) -> Value {
    if a.body["kind"] == "Status" {
        return json!({
            "code": a.code,
            "reason": a.body["reason"],
            "message": a.body["message"],
            "details": a.body["details"],
        });
    }
    let mut out = serde_json::Map::new();
    out.insert("code".into(), json!(a.code));
    for f in fields {
        let mut v = a.body.pointer(f).cloned().unwrap_or(Value::Null);
        if let Value::Array(entries) = &mut v {
            for e in entries.iter_mut().filter(|e| e.get("manager").is_some()) {
                e.as_object_mut().unwrap().remove("time");
            }
            // apimachinery sorts managedFields by operation (Apply first), then by the second
            // of each entry's time, then by manager: entries of one operation come in an order
            // that depends on whether the writes landed in the same second, which differs
            // between two servers on a loaded machine. Compared in the order of operation,
            // manager and subresource.
            if entries.iter().all(|e| e.get("manager").is_some()) {
                let key = |e: &Value| {
                    ["operation", "manager", "subresource"]
                        .map(|k| e[k].as_str().unwrap_or_default().to_string())
                };
                entries.sort_by_key(key);
            }
        }
        out.insert((*f).into(), v);
    }
    Value::Object(out)
}

/// One request of a scenario and the fields compared in its answer. `NS` in the path is the
/// scenario's namespace.
struct Step {
    method: &'static str,
    path: &'static str,
    content_type: &'static str,
    body: Option<Value>,
    fields: &'static [&'static str],
}

const PACTOS: &str = "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos";

fn step(
    method: &'static str,
    path: &'static str,
    body: Option<Value>,
    fields: &'static [&'static str],
) -> Step {
    let content_type = match method {
        "PATCH" => "application/merge-patch+json",
        _ => "application/json",
    };
    Step {
        method,
        path,
        content_type,
        body,
        fields,
    }
}

/// Runs `steps` on both servers (the real one in namespace `real_ns`, the fake in `fake_ns`,
/// where the namespace is replaced by `NS` in every answer) and returns where they differ.
fn differences(real: (&Endpoint, &str), fake: (&Endpoint, &str), steps: &[Step]) -> Vec<String> {
    let mut out = Vec::new();
    for s in steps {
        let mut answers = Vec::new();
        for (e, ns) in [real, fake] {
            let path = s.path.replace("NS", ns);
            let body = s
                .body
                .as_ref()
                .map(|b| b.to_string().replace("\"NS\"", &format!("\"{ns}\"")));
            let a = e.call(s.method, &path, s.content_type, body.as_deref());
            let text = facts(&a, s.fields).to_string().replace(ns, "NS");
            answers.push(serde_json::from_str::<Value>(&text).unwrap());
        }
        if answers[0] != answers[1] {
            out.push(format!(
                "{} {}:\n  kube-apiserver: {}\n  fake-apiserver: {}",
                s.method, s.path, answers[0], answers[1]
            ));
        }
    }
    out
}

/// A fake API server serving the Pacto CRD of `examples/cluster/` (status subresource and all).
fn fake_with_pactos() -> FakeApiServer {
    let server = FakeApiServer::start();
    let crd =
        std::fs::read_to_string(repo().join("examples/cluster/pactos.pacto.trianalab.io.yaml"))
            .unwrap();
    server.register(Resource::from_crd_yaml(&crd, "v1alpha1"));
    server
}

fn assert_same(diffs: Vec<String>) {
    assert!(
        diffs.is_empty(),
        "the fake API server answers otherwise than kube-apiserver:\n{}",
        diffs.join("\n")
    );
}

/// Runs `steps` on the test binary's real server (in a namespace of its own) and on a fake
/// serving the Pacto CRD, and fails where they answer otherwise.
fn assert_both_answer_alike(steps: &[Step]) {
    let kube = kube_harness::shared();
    let real_ns = kube.namespace("conformance");
    let fake = fake_with_pactos();
    assert_same(differences(
        (&Endpoint::real(kube), &real_ns),
        (&Endpoint::fake(&fake), &real_ns),
        steps,
    ));
}

/// A CRD with a status subresource (apiextensions-apiserver's `statusStrategy`): a create keeps
/// no status; a write of the main resource ignores status; a write of `/status` changes only
/// status; `metadata.generation` starts at 1 and grows with spec changes only (not with labels,
/// not with status).
#[test]
fn status_subresource_and_generation_answer_as_kube_apiserver() {
    let spec = json!({"contractRef": {"oci": "ghcr.io/acme/orders-pacto:1.0.0"}, "target": {"serviceName": "orders"}});
    let steps = [
        step(
            "POST",
            PACTOS,
            Some(
                json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
                "metadata": {"name": "orders", "namespace": "NS"}, "spec": spec,
                "status": {"contractStatus": "Compliant"}}),
            ),
            &["/metadata/generation", "/status", "/spec"],
        ),
        step(
            "PATCH",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders/status",
            Some(
                json!({"status": {"contractStatus": "Compliant", "observedGeneration": 1}, "spec": {"target": {"serviceName": "ignored"}}}),
            ),
            &["/metadata/generation", "/status", "/spec"],
        ),
        step(
            "PATCH",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders",
            Some(json!({"status": {"contractStatus": "NonCompliant"}})),
            &["/metadata/generation", "/status"],
        ),
        step(
            "PATCH",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders",
            Some(json!({"metadata": {"labels": {"team": "shop"}}})),
            &["/metadata/generation", "/metadata/labels"],
        ),
        step(
            "PATCH",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders",
            Some(json!({"spec": {"checkIntervalSeconds": 60}})),
            &["/metadata/generation", "/status"],
        ),
        step(
            "GET",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/missing",
            None,
            &[],
        ),
        step("GET", "/api/v1/namespaces/NS/configmaps/missing", None, &[]),
    ];
    assert_both_answer_alike(&steps);
}

/// apimachinery's object-meta validation (`ValidateObjectMeta` with the kind's name rule:
/// `NameIsDNSSubdomain` for custom resources, `ValidateNamespaceName` (a DNS-1123 label) for
/// Namespaces): a bad name is refused with 422 Invalid, the message naming the kind, the name
/// and the rule, and `details.causes` the field.
#[test]
fn invalid_names_are_refused_as_kube_apiserver_refuses_them() {
    let pacto = |name: &str| {
        json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": name, "namespace": "NS"}, "spec": {}})
    };
    let steps = [
        step("POST", PACTOS, Some(pacto("Orders_1")), &[]),
        step("POST", PACTOS, Some(pacto("orders.")), &[]),
        step("POST", PACTOS, Some(pacto(&"a".repeat(254))), &[]),
        step("POST", PACTOS, Some(pacto("")), &[]),
        step(
            "POST",
            "/api/v1/namespaces",
            Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Shop.1"}})),
            &[],
        ),
    ];
    assert_both_answer_alike(&steps);
}

/// The RBAC authorizer's denial as the fake's injected 403 words it: the same reason, the
/// same message but for the user's name, the same details, for a list in a namespace, a get
/// of one object and a list at the cluster scope.
#[test]
fn a_denied_request_is_worded_as_the_rbac_authorizer_words_it() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("conformance");
    let fake = fake_with_pactos();
    fake.fault(Fault::always("/pactos", FaultAction::Status(403)));
    let real = Endpoint {
        name: "kube-apiserver",
        base: kube.server().to_string(),
        auth: vec![
            "--cacert".into(),
            kube.ca_file().display().to_string(),
            "-H".into(),
            format!("Authorization: Bearer {}", kube_harness::USER_TOKEN),
        ],
    };
    let fake_user = "system:serviceaccount:default:pacto";
    for path in [
        format!("/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos"),
        format!("/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos/orders"),
        "/apis/pacto.trianalab.io/v1alpha1/pactos".to_string(),
    ] {
        let r = real.call("GET", &path, "", None);
        let f = Endpoint::fake(&fake).call("GET", &path, "", None);
        let r = facts(&r, &[]);
        let f: Value = serde_json::from_str(
            &facts(&f, &[])
                .to_string()
                .replace(fake_user, kube_harness::USER_NAME),
        )
        .unwrap();
        assert_eq!(f, r, "GET {path}: the fake (left) answers otherwise");
    }
}

/// Field ownership as kube-apiserver records it (structured-merge-diff's `FieldsV1`): an
/// update records the fields it set under its manager with operation Update, a server-side
/// apply records the applied fields with operation Apply, a write through `/status` is an entry
/// with `subresource: status`; entries are compared whole but for their timestamps.
#[test]
fn managed_fields_are_recorded_as_kube_apiserver_records_them() {
    let fields: &[&str] = &["/metadata/managedFields"];
    let mut apply = step(
        "PATCH",
        "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders?fieldManager=applier&force=true",
        Some(json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "NS", "labels": {"team": "shop"}},
            "spec": {"target": {"serviceName": "orders"}, "checkIntervalSeconds": 30}})),
        fields,
    );
    apply.content_type = "application/apply-patch+yaml";
    let mut status_apply = step(
        "PATCH",
        "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders/status?fieldManager=reconciler&force=true",
        Some(json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "NS"},
            "status": {"contractStatus": "Compliant",
                "conditions": [{"type": "Ready", "status": "True", "reason": "Compliant"}]}})),
        fields,
    );
    status_apply.content_type = "application/apply-patch+yaml";
    let steps = [
        step(
            "POST",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos?fieldManager=creator",
            Some(json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
                "metadata": {"name": "orders", "namespace": "NS"},
                "spec": {"contractRef": {"oci": "ghcr.io/acme/orders-pacto:1.0.0"}}})),
            fields,
        ),
        apply,
        step(
            "PATCH",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders/status?fieldManager=writer",
            Some(json!({"status": {"contractVersion": "1.0.0"}})),
            fields,
        ),
        status_apply,
        step(
            "PATCH",
            "/apis/pacto.trianalab.io/v1alpha1/namespaces/NS/pactos/orders?fieldManager=creator",
            Some(json!({"spec": {"checkIntervalSeconds": 60}})),
            fields,
        ),
    ];
    assert_both_answer_alike(&steps);
}

/// A watch from a resourceVersion the server no longer holds (etcd compacted past it and the
/// API server restarted, so its watch cache starts anew) ends with one ERROR event carrying a
/// `410 Expired` Status, `too old resource version: RV (OLDEST)`: apimachinery's
/// `NewResourceExpired`, as the watch cache returns it. The fake's `restart` does the same.
#[test]
fn a_watch_from_a_compacted_resource_version_is_410_gone_on_both() {
    let mut kube = kube_harness::Kube::start();
    let ns = kube.namespace("gone");
    let fake = fake_with_pactos();
    let pacto = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "orders", "namespace": ns}, "spec": {}});
    let path = format!("/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos");
    let mut olds = Vec::new();
    for e in [Endpoint::real(&kube), Endpoint::fake(&fake)] {
        let created = e.call("POST", &path, "application/json", Some(&pacto.to_string()));
        assert_eq!(created.code, 201, "{}: {:?}", e.name, created);
        olds.push(
            created.body["metadata"]["resourceVersion"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        for n in 0..3 {
            let label = json!({"metadata": {"labels": {"step": n.to_string()}}}).to_string();
            let a = e.call(
                "PATCH",
                &format!("{path}/orders"),
                "application/merge-patch+json",
                Some(&label),
            );
            assert_eq!(a.code, 200, "{}: {:?}", e.name, a);
        }
    }
    kube.compact();
    kube.restart_apiserver();
    fake.restart();
    // A restarted server serves a CRD's resource only once it has loaded the CRD (404 until
    // then): wait for it (a hang guard, not a measure).
    let real = Endpoint::real(&kube);
    let served = (0..240).any(|_| {
        if real.call("GET", &path, "", None).code == 200 {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
        false
    });
    assert!(served, "the restarted kube-apiserver does not serve {path}");
    let mut shapes = Vec::new();
    for (e, old) in [Endpoint::real(&kube), Endpoint::fake(&fake)]
        .iter()
        .zip(&olds)
    {
        let mut c = Command::new("curl");
        // Not curl's user agent: kube-apiserver pretty-prints JSON for curl, one event over
        // many lines.
        c.args(["-sS", "--max-time", "60", "-A", "conformance-test"])
            .args(&e.auth)
            .arg(format!(
                "{}{path}?watch=1&resourceVersion={old}&timeoutSeconds=5",
                e.base
            ));
        let out = c.output().expect("curl runs");
        let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|err| panic!("{err}: {l}")))
            .collect();
        assert_eq!(events.len(), 1, "{}: {events:?}", e.name);
        let status = &events[0]["object"];
        let message = status["message"].as_str().unwrap_or_default();
        let prefix = format!("too old resource version: {old} (");
        assert!(message.starts_with(&prefix), "{}: {message}", e.name);
        shapes.push(json!({
            "type": events[0]["type"], "kind": status["kind"], "apiVersion": status["apiVersion"],
            "status": status["status"], "code": status["code"], "reason": status["reason"],
            "message ends": message.ends_with(')'),
        }));
    }
    assert_eq!(shapes[1], shapes[0], "the fake (right) answers otherwise");
    assert_eq!(shapes[0]["code"], 410);
    assert_eq!(shapes[0]["reason"], "Expired");
}
