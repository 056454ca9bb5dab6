//! `kubectl pacto reconcile --once` against the fake API server, whose server-side apply merges
//! lists as the served CRD schema declares (tests/fake-apiserver): the first run writes the
//! conditions, a second writes nothing, another manager's condition survives with and without
//! the list-map marker, faults at every request position are survived or reported and never
//! half-applied, requests stay O(pages per kind) on 1,000 Stages, and every request is allowed by
//! the shipped RBAC, which grants nothing more. What the conditions say is table-tested in
//! shared/src/delivery and shared/src/reconcile.

use crate::common::*;
use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

const NOW: &str = "2026-11-29T12:00:00Z";
const STAGE_CRD: &str = "examples/cluster/stages.delivery.pacto.trianalab.io.yaml";

fn yaml_docs(text: &str) -> Vec<Value> {
    text.split("\n---")
        .filter(|d| d.lines().any(|l| l.starts_with("kind:")))
        .map(|d| serde_saphyr::from_str(d).unwrap())
        .collect()
}

/// A fake cluster serving Stages (from the CRD, with or without the list-map marker), Flux and
/// Argo CD kinds, holding `objects`.
struct Cluster {
    server: FakeApiServer,
    _dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Cluster {
    fn new(list_map: bool, objects: &[Value]) -> Cluster {
        let server = FakeApiServer::start();
        let mut crd: Value =
            serde_saphyr::from_str(&std::fs::read_to_string(repo().join(STAGE_CRD)).unwrap())
                .unwrap();
        if !list_map {
            let c = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
                ["status"]["properties"]["conditions"];
            let m = c.as_object_mut().unwrap();
            m.remove("x-kubernetes-list-type");
            m.remove("x-kubernetes-list-map-keys");
        }
        server.register(Resource::from_crd(&crd, "v1alpha1"));
        for (av, kind, plural) in [
            (
                "source.toolkit.fluxcd.io/v1",
                "OCIRepository",
                "ocirepositories",
            ),
            (
                "kustomize.toolkit.fluxcd.io/v1",
                "Kustomization",
                "kustomizations",
            ),
            ("argoproj.io/v1alpha1", "Application", "applications"),
        ] {
            server.register(Resource::new(av, kind, plural, true, true));
        }
        for o in objects {
            server.insert(o.clone());
        }
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path(), Some("test"));
        Cluster {
            server,
            _dir: dir,
            kubeconfig,
        }
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut all = vec!["reconcile", "--once"];
        all.extend(args);
        all.extend(["--kubeconfig", s(&self.kubeconfig)]);
        let home = tempfile::tempdir().unwrap();
        // A hang guard: the largest run here (1,000 Stages) takes about 4 s of CPU, shared
        // with the fake API server in this process.
        run_with(
            &mut isolated(home.path(), NOW, &all),
            None,
            Duration::from_secs(600),
        )
    }

    fn stage(&self, ns: &str, name: &str) -> Value {
        self.server
            .get(
                "delivery.pacto.trianalab.io/v1alpha1",
                "Stage",
                Some(ns),
                name,
            )
            .unwrap()
    }

    fn patches(&self) -> usize {
        self.server
            .requests()
            .iter()
            .filter(|r| r.method == "PATCH")
            .count()
    }
}

fn base() -> Vec<Value> {
    yaml_docs(
        &std::fs::read_to_string(repo().join("shared/src/delivery/testdata/base-flux.yaml"))
            .unwrap(),
    )
}

fn condition<'a>(stage: &'a Value, type_: &str) -> Option<&'a Value> {
    stage["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

#[test]
fn the_first_run_writes_the_conditions_and_the_second_writes_nothing() {
    for list_map in [true, false] {
        let c = Cluster::new(list_map, &base());
        let r = c.run(&["-n", "test"]);
        r.assert_code(0).assert_no_panic();
        let stage = c.stage("test", "payments");
        let ready = condition(&stage, "Ready").expect("Ready written");
        assert_eq!(
            (ready["status"].as_str(), ready["reason"].as_str()),
            (Some("True"), Some("Promotable"))
        );
        assert_eq!(ready["lastTransitionTime"], NOW);
        let mediated = condition(&stage, "Mediated").expect("Mediated written");
        assert_eq!(
            (mediated["status"].as_str(), mediated["reason"].as_str()),
            (Some("True"), Some("PointerDecides"))
        );
        assert_eq!(
            stage["status"]["observedGeneration"],
            stage["metadata"]["generation"]
        );
        assert_eq!(cell(&r.stdout, 0, "RESULT"), "updated");
        let managers: Vec<&str> = stage["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["manager"].as_str())
            .collect();
        assert!(managers.contains(&"kubectl-pacto"), "{managers:?}");
        let writes: Vec<_> = c
            .server
            .requests()
            .into_iter()
            .filter(|r| r.method == "PATCH")
            .collect();
        assert_eq!(writes.len(), 1);
        assert_eq!(
            writes[0].path,
            "/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages/payments/status"
        );
        let content_type = if list_map {
            "application/apply-patch+yaml"
        } else {
            "application/merge-patch+json"
        };
        assert_eq!(
            writes[0].content_type.as_deref(),
            Some(content_type),
            "list-map {list_map}"
        );
        assert_eq!(
            writes[0].user_agent.as_deref(),
            Some(concat!("kubectl-pacto/", env!("CARGO_PKG_VERSION")))
        );
        // A second run: nothing to write, no request.
        c.server.clear_requests();
        let again = c.run(&["-n", "test", "-o", "json"]);
        again.assert_code(0);
        assert_eq!(c.patches(), 0, "list-map {list_map}");
        let report: Value = serde_json::from_str(&again.stdout).unwrap();
        assert_eq!(report["stages"][0]["result"], "unchanged");
    }
}

#[test]
fn another_managers_condition_survives_with_and_without_the_marker() {
    for list_map in [true, false] {
        let mut objects = base();
        objects[0]["status"] = json!({"conditions": [
            {"type": "Frozen", "status": "True", "reason": "RollbackRefused", "message": "a person froze it",
             "lastTransitionTime": "2026-11-28T00:00:00Z"}]});
        objects[0]["metadata"]["managedFields"] = json!([{"manager": "pacto-promoter", "operation": "Apply",
        "apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "subresource": "status", "time": "2026-11-28T00:00:00Z",
        "fieldsType": "FieldsV1", "fieldsV1": if list_map {
            json!({"f:status": {"f:conditions": {"k:{\"type\":\"Frozen\"}": {".": {}, "f:type": {}, "f:status": {}, "f:reason": {}, "f:message": {}, "f:lastTransitionTime": {}}}}})
        } else {
            json!({"f:status": {"f:conditions": {}}})
        }}]);
        let c = Cluster::new(list_map, &objects);
        c.run(&["-n", "test"]).assert_code(0);
        let stage = c.stage("test", "payments");
        let frozen = condition(&stage, "Frozen")
            .unwrap_or_else(|| panic!("Frozen dropped (list-map {list_map}): {stage}"));
        assert_eq!(frozen["reason"], "RollbackRefused");
        assert!(condition(&stage, "Ready").is_some() && condition(&stage, "Mediated").is_some());
    }
}

#[test]
fn a_conflict_is_read_again_and_retried() {
    let c = Cluster::new(false, &base());
    c.server.fault(Fault::once(
        "/stages/payments/status",
        FaultAction::Status(409),
    ));
    let r = c.run(&["-n", "test"]);
    r.assert_code(0).assert_no_panic();
    assert_eq!(c.patches(), 2);
    assert_eq!(
        c.server
            .requests()
            .iter()
            .filter(|q| q.method == "GET" && q.path.ends_with("/stages/payments"))
            .count(),
        1
    );
    assert!(condition(&c.stage("test", "payments"), "Ready").is_some());
}

#[test]
fn a_forbidden_write_is_named_and_the_others_are_written() {
    let mut objects = base();
    let mut other = objects[0].clone();
    other["metadata"]["name"] = json!("billing");
    objects.push(other);
    let c = Cluster::new(true, &objects);
    c.server.fault(Fault::always(
        "/stages/billing/status",
        FaultAction::Status(403),
    ));
    let r = c.run(&["-n", "test", "-o", "json"]);
    r.assert_code(1).assert_no_panic();
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    let results: Vec<(String, String)> = report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["result"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            ("billing".to_string(), "failed".to_string()),
            ("payments".to_string(), "updated".to_string())
        ]
    );
    assert!(
        report["stages"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("forbidden"),
        "{report}"
    );
    assert!(
        r.stderr
            .contains("error: 1 Stage(s) left unwritten: test/billing"),
        "{}",
        r.stderr
    );
    assert!(condition(&c.stage("test", "billing"), "Ready").is_none());
}

/// A fault at each request position of a normal run: the run survives it (retries) or reports
/// it (exit 1 or 2); no Stage ever holds one computed condition without the other.
#[test]
fn faults_at_every_request_position_are_survived_or_reported() {
    let mut objects = base();
    let mut other = objects[0].clone();
    other["metadata"]["name"] = json!("billing");
    objects.push(other);
    let baseline = Cluster::new(true, &objects);
    baseline.run(&["-n", "test"]).assert_code(0);
    let paths: Vec<(String, String)> = baseline
        .server
        .requests()
        .iter()
        .map(|r| (r.method.clone(), r.path.clone()))
        .collect();
    assert!(paths.len() >= 8, "{paths:?}");
    for (i, (method, path)) in paths.iter().enumerate() {
        for action in [
            FaultAction::Status(500),
            FaultAction::Status(409),
            FaultAction::Drop,
            FaultAction::Silence,
            FaultAction::EndlessPages {
                item: objects[0].clone(),
                per_page: 50,
            },
        ] {
            let c = Cluster::new(true, &objects);
            let mut f = Fault::once(path, action.clone());
            f.method = Some(method.clone());
            c.server.fault(f);
            // A silent answer ends the run at its deadline.
            let r = match action {
                FaultAction::Silence => c.run(&["-n", "test", "--timeout", "5s"]),
                _ => c.run(&["-n", "test"]),
            };
            r.assert_no_panic();
            writes_only_to_listed(&c, &["payments", "billing"]);
            let code = r.code;
            assert!(
                matches!(code, Some(0..=2)),
                "request {i} {method} {path} {action:?}: {code:?} {}",
                r.stderr
            );
            for name in ["payments", "billing"] {
                let stage = c.stage("test", name);
                let both =
                    condition(&stage, "Ready").is_some() == condition(&stage, "Mediated").is_some();
                assert!(both, "half-written {name} after a fault at request {i} ({method} {path}, {action:?})");
            }
            if code == Some(0) {
                for name in ["payments", "billing"] {
                    assert!(
                        condition(&c.stage("test", name), "Ready").is_some(),
                        "exit 0 but {name} unwritten ({path} {action:?})"
                    );
                }
            } else {
                assert!(
                    r.stderr.contains("error: "),
                    "{i} {path} {action:?}: {}",
                    r.stderr
                );
            }
        }
    }
}

#[test]
fn a_dry_run_prints_the_patches_and_writes_nothing() {
    let c = Cluster::new(true, &base());
    let r = c.run(&["-n", "test", "--dry-run"]);
    r.assert_code(0);
    assert_eq!(c.patches(), 0);
    assert!(r.stdout.starts_with("---\n# Stage test/payments: server-side apply of stages/status, field manager kubectl-pacto\n# why: Ready is not written; Mediated is not written"), "{}", r.stdout);
    let doc: Value = serde_saphyr::from_str(
        r.stdout
            .split_once("\n# why:")
            .unwrap()
            .1
            .split_once('\n')
            .unwrap()
            .1,
    )
    .unwrap();
    assert_eq!(doc["status"]["conditions"][0]["type"], "Ready");
}

/// 1,000 Stages with their appliers: each kind is listed in pages of 500, and the first run
/// writes one patch per Stage, the second none.
#[test]
fn a_thousand_stages_cost_pages_per_kind() {
    let base = base();
    let mut objects = Vec::new();
    for i in 0..1000 {
        for o in &base {
            let mut o = o.clone();
            let name = o["metadata"]["name"].as_str().unwrap().to_string();
            o["metadata"]["name"] = json!(format!("{name}-{i:04}"));
            if o["kind"] == "Stage" {
                o["spec"]["applyRef"]["name"] = json!(format!("payments-{i:04}"));
                o["spec"]["candidates"]["ociRepositoryRef"]["name"] =
                    json!(format!("payments-candidates-{i:04}"));
            }
            if o["kind"] == "Kustomization" {
                o["spec"]["sourceRef"]["name"] = json!(format!("payments-{i:04}"));
            }
            if o["metadata"]["labels"].is_object() {
                o["metadata"]["labels"]["delivery.pacto.trianalab.io/apply-ref"] =
                    json!(format!("payments-{i:04}"));
            }
            objects.push(o);
        }
    }
    let c = Cluster::new(true, &objects);
    c.run(&["-n", "test"]).assert_code(0);
    let reqs = c.server.requests();
    let lists = |plural: &str| {
        reqs.iter()
            .filter(|r| r.method == "GET" && r.path.ends_with(plural))
            .count()
    };
    assert_eq!(lists("/stages"), 2); // 1,000 Stages: two pages of 500
    assert_eq!(lists("/ocirepositories"), 4); // 2,000 repositories
    assert_eq!(lists("/kustomizations"), 2);
    assert_eq!(lists("/applications"), 1);
    assert_eq!(c.patches(), 1000);
    assert!(reqs.len() <= 1000 + 9 + 5, "{} requests", reqs.len());
    c.server.clear_requests();
    c.run(&["-n", "test"]).assert_code(0);
    assert_eq!(c.patches(), 0);
    assert!(
        c.server.requests().len() <= 14,
        "{}",
        c.server.requests().len()
    );
}

/// One RBAC rule, as read from deploy/rbac.yaml.
struct Rule {
    groups: Vec<String>,
    resources: Vec<String>,
    verbs: Vec<String>,
}

fn rbac_rules() -> Vec<Rule> {
    let text = std::fs::read_to_string(repo().join("deploy/rbac.yaml")).unwrap();
    let docs = yaml_docs(&text);
    let role = docs
        .iter()
        .find(|d| d["kind"] == "ClusterRole")
        .expect("a ClusterRole");
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    role["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert!(
                r.get("nonResourceURLs").is_none(),
                "the role grants non-resource URLs: {r}"
            );
            Rule {
                groups: strings(&r["apiGroups"]),
                resources: strings(&r["resources"]),
                verbs: strings(&r["verbs"]),
            }
        })
        .collect()
}

/// The RBAC attributes of a request path (`/apis/G/V/namespaces/N/R[/NAME[/SUB]]`), None for
/// discovery and OpenAPI (granted to every authenticated user by system:discovery).
fn attributes(method: &str, path: &str) -> Option<(String, String, String)> {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, rest) = match parts.first() {
        Some(&"apis") if parts.len() > 3 => (parts[1].to_string(), &parts[3..]),
        Some(&"api") if parts.len() > 2 => (String::new(), &parts[2..]),
        _ => return None,
    };
    let rest: Vec<&str> = if rest.first() == Some(&"namespaces") && rest.len() > 2 {
        rest[2..].to_vec()
    } else {
        rest.to_vec()
    };
    let resource = match rest.len() {
        1 | 2 => rest[0].to_string(),
        3 => format!("{}/{}", rest[0], rest[2]),
        _ => return None,
    };
    let verb = match (method, rest.len()) {
        ("GET", 1) => "list",
        ("GET", _) => "get",
        ("PATCH", _) => "patch",
        (m, _) => return Some((group, resource, m.to_lowercase())),
    };
    Some((group, resource, verb.to_string()))
}

#[test]
fn every_request_is_allowed_by_the_shipped_rbac_which_grants_nothing_more() {
    let rules = rbac_rules();
    for r in &rules {
        for field in [&r.groups, &r.resources, &r.verbs] {
            assert!(
                !field.iter().any(|x| x.contains('*')),
                "a wildcard in the RBAC"
            );
        }
        let writes: Vec<&String> = r
            .verbs
            .iter()
            .filter(|v| !matches!(v.as_str(), "get" | "list" | "watch"))
            .collect();
        if !writes.is_empty() {
            assert_eq!(
                r.resources,
                ["stages/status"],
                "writes outside stages/status: {writes:?}"
            );
            assert_eq!(writes, [&"patch".to_string()]);
        }
    }
    let mut objects = base();
    objects.push(json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
        "metadata": {"name": "payments", "namespace": "staging"},
        "spec": {"service": {"name": "payments"}, "applyRef": {"name": "payments"}, "candidates": {"ociRepositoryRef": {"name": "x"}}}}));
    objects[0]["spec"]["candidates"] =
        json!({"upstreamStage": {"name": "payments", "namespace": "staging"}});
    let c = Cluster::new(true, &objects);
    c.server.fault(Fault::once(
        "/stages/payments/status",
        FaultAction::Status(409),
    ));
    c.run(&["-n", "test"]).assert_no_panic();
    let made = c.server.requests();
    assert!(made.iter().any(|r| r.method == "PATCH"));
    for req in &made {
        let Some((group, resource, verb)) = attributes(&req.method, &req.path) else {
            continue;
        };
        let allowed = rules.iter().any(|r| {
            r.groups.contains(&group) && r.resources.contains(&resource) && r.verbs.contains(&verb)
        });
        assert!(
            allowed,
            "{} {} ({verb} {resource} in {group:?}) is not allowed by deploy/rbac.yaml",
            req.method, req.path
        );
    }
}

/// Seconds of a duration written `Ns` or `Nm` (what the manifests use).
fn manifest_seconds(d: &str) -> i64 {
    match d.split_at(d.len() - 1) {
        (n, "s") => n.parse().unwrap(),
        (n, "m") => n.parse::<i64>().unwrap() * 60,
        _ => panic!("{d}: write it as Ns or Nm"),
    }
}

/// The CronJob runs one Job at a time, and the run's own `--timeout` ends it before the Job's
/// `activeDeadlineSeconds` (with a minute to start the Pod and print the report), so that a
/// hung API server ends in a report, not a killed Pod.
#[test]
fn the_deploy_manifests_run_once_at_a_time_with_a_deadline() {
    let cron = &yaml_docs(&std::fs::read_to_string(repo().join("deploy/cronjob.yaml")).unwrap())[0];
    assert_eq!(cron["spec"]["concurrencyPolicy"], "Forbid");
    let active = cron["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"]
        .as_i64()
        .unwrap();
    let job_args: Vec<&str> = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
        [0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let flag = |name: &str| {
        let at = job_args
            .iter()
            .position(|a| *a == name)
            .unwrap_or_else(|| panic!("the CronJob does not give {name}: {job_args:?}"));
        manifest_seconds(job_args[at + 1])
    };
    let (timeout, request_timeout) = (flag("--timeout"), flag("--request-timeout"));
    assert!(
        timeout > 0 && timeout + 60 <= active,
        "--timeout {timeout}s, activeDeadlineSeconds {active}"
    );
    assert!(request_timeout < timeout);
    let pod = &cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], "kubectl-pacto-reconcile");
    let args: Vec<&str> = pod["containers"][0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&args[..2], ["reconcile", "--once"]);
    // The arguments parse: the same command line runs against the fake cluster.
    let c = Cluster::new(true, &base());
    c.run(&args[2..]).assert_code(0);
}

/// `n` Stages named `stage-00`, `stage-01`, ... (copies of the base Stage, on its appliers).
fn stages(n: usize) -> Vec<Value> {
    let base = base();
    let mut objects: Vec<Value> = base[1..].to_vec();
    for i in 0..n {
        let mut s = base[0].clone();
        s["metadata"]["name"] = json!(format!("stage-{i:02}"));
        objects.push(s);
    }
    objects
}

/// The `(name, result, detail)` of each Stage of a `-o json` report.
fn results(stdout: &str) -> Vec<(String, String, String)> {
    let report: Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let f = |k: &str| s[k].as_str().unwrap_or("").to_string();
            (f("name"), f("result"), f("detail"))
        })
        .collect()
}

/// A server that takes every status PATCH and never answers: the run ends at `--timeout`, not
/// after a `--request-timeout` per Stage; the writes in flight (`--concurrent` of them, no more)
/// are cancelled, none is started after the deadline, and every Stage is reported unwritten.
#[test]
fn a_hung_server_ends_the_run_at_its_deadline_with_what_was_left() {
    for concurrent in [None, Some("3")] {
        let c = Cluster::new(true, &stages(20));
        c.server.fault(
            Fault::always("/status", FaultAction::Delay(Duration::from_secs(60)))
                .on_method("PATCH"),
        );
        let mut args = vec!["-n", "test", "-o", "json", "--timeout", "10s"];
        if let Some(n) = concurrent {
            args.extend(["--concurrent", n]);
        }
        let r = c.run(&args);
        r.assert_code(1).assert_no_panic();
        let in_flight: usize = concurrent.map_or(8, |n| n.parse().unwrap());
        assert_eq!(c.patches(), in_flight, "{concurrent:?}");
        let results = results(&r.stdout);
        assert_eq!(results.len(), 20);
        let cancelled = "the run's --timeout of 10s passed while it was being written: the request was cancelled, and the API server may or may not have applied it";
        let not_started = "not written: the run's --timeout of 10s passed before its turn";
        let count = |d: &str| {
            results
                .iter()
                .filter(|(_, res, detail)| res == "failed" && detail == d)
                .count()
        };
        assert_eq!(
            (count(cancelled), count(not_started)),
            (in_flight, 20 - in_flight),
            "{results:?}"
        );
        assert!(
            r.stderr
                .contains("error: 20 Stage(s) left unwritten: test/stage-00, test/stage-01"),
            "{}",
            r.stderr
        );
    }
}

/// A deadline that passes while the Stages are still being read: nothing is written, exit 2.
#[test]
fn a_deadline_that_passes_while_reading_writes_nothing() {
    let c = Cluster::new(true, &stages(2));
    c.server.fault(
        Fault::always(
            "/namespaces/test/stages",
            FaultAction::Delay(Duration::from_secs(60)),
        )
        .on_method("GET"),
    );
    let r = c.run(&["-n", "test", "--timeout", "3s"]);
    r.assert_code(2).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: the run's --timeout of 3s passed before the Stages and their appliers were read: nothing was written\n"
    );
    assert_eq!(c.patches(), 0);
}

/// The help states the deadline and the writes in flight, with their defaults.
#[test]
fn the_deadline_and_the_writes_in_flight_are_in_the_help() {
    let r = run(&mut pacto(&["reconcile", "--help"]));
    r.assert_code(0);
    let help = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "--timeout <DURATION> The deadline of the whole run",
        "[default: 3m]",
        "--concurrent <N> How many Stage writes are in flight at once",
        "[default: 8]",
    ] {
        assert!(help.contains(want), "{want:?} not in {}", r.stdout);
    }
}

/// A Stage deleted after the list: the status PATCH is a 404, and the report names the Stage as
/// kubectl names a missing object (`stages.delivery.pacto.trianalab.io "NAME" not found`, the
/// API server's NotFound of the resource and name), with both ways of writing.
#[test]
fn a_stage_deleted_mid_run_is_named() {
    for list_map in [true, false] {
        let c = Cluster::new(list_map, &stages(2));
        c.server.fault(
            Fault::once("/stages/stage-01/status", FaultAction::Status(404)).on_method("PATCH"),
        );
        let r = c.run(&["-n", "test", "-o", "json"]);
        r.assert_code(1).assert_no_panic();
        assert_eq!(
            results(&r.stdout)[1],
            (
                "stage-01".to_string(),
                "failed".to_string(),
                "stages.delivery.pacto.trianalab.io \"stage-01\" not found".to_string()
            ),
            "list-map {list_map}"
        );
        assert_eq!(results(&r.stdout)[0].1, "updated");
    }
}

/// After a 409 the re-read answers another object (another namespace and name, or the same
/// name with another uid): nothing is written to it, the Stage is reported unwritten, exit 1;
/// the only write of the run is the first one, to the listed Stage's status.
#[test]
fn a_reread_that_answers_another_object_is_not_written() {
    let mut elsewhere = base()[0].clone();
    elsewhere["metadata"] = json!({"name": "other", "namespace": "prod", "uid": "u-other",
        "resourceVersion": "900", "generation": 1});
    let mut recreated = base()[0].clone();
    recreated["metadata"] = json!({"name": "payments", "namespace": "test", "uid": "u-recreated",
        "resourceVersion": "901", "generation": 1});
    for (answer, why) in [
        (
            elsewhere,
            "the re-read answered prod/other, not test/payments",
        ),
        (
            recreated,
            "the re-read answered uid \"u-recreated\", not the listed",
        ),
    ] {
        for list_map in [true, false] {
            let c = Cluster::new(list_map, &base());
            c.server.fault(
                Fault::once("/stages/payments/status", FaultAction::Status(409)).on_method("PATCH"),
            );
            c.server.fault(
                Fault::once("/stages/payments", FaultAction::Reply(200, answer.clone()))
                    .on_method("GET"),
            );
            let r = c.run(&["-n", "test", "-o", "json"]);
            r.assert_code(1).assert_no_panic();
            let (name, result, detail) = results(&r.stdout).remove(0);
            assert_eq!((name.as_str(), result.as_str()), ("payments", "failed"));
            assert!(detail.contains(why), "{detail}");
            let writes: Vec<String> = c
                .server
                .requests()
                .into_iter()
                .filter(|q| q.is_write())
                .map(|q| format!("{} {}", q.method, q.path))
                .collect();
            assert_eq!(
                writes,
                ["PATCH /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages/payments/status"],
                "list-map {list_map}"
            );
            assert!(
                r.stderr
                    .contains("error: 1 Stage(s) left unwritten: test/payments"),
                "{}",
                r.stderr
            );
        }
    }
}

/// The types of `stage`'s conditions, in order.
fn condition_types(stage: &Value) -> Vec<String> {
    stage["status"]["conditions"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| c["type"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// An atomic conditions list holding two `Ready` entries (a writer that appended instead of
/// replacing): the run leaves one entry per type (`meta.RemoveStatusCondition` drops every
/// entry of a type, `meta.FindStatusCondition` reads the first), also when the first already
/// says what is computed; the other writers' entry is kept.
#[test]
fn an_atomic_list_with_two_ready_entries_keeps_one() {
    let stale = json!({"type": "Ready", "status": "True", "reason": "Promotable", "message": "stale",
        "lastTransitionTime": "2026-11-01T00:00:00Z", "observedGeneration": 1});
    let frozen = json!({"type": "Frozen", "status": "False", "reason": "NotFrozen", "message": "",
        "lastTransitionTime": "2026-11-01T00:00:00Z"});
    // What the first run writes on a fresh Stage, read back from a run without duplicates.
    let fresh = Cluster::new(false, &base());
    fresh.run(&["-n", "test"]).assert_code(0);
    let written = fresh.stage("test", "payments")["status"].clone();
    let ready = condition(&fresh.stage("test", "payments"), "Ready")
        .unwrap()
        .clone();
    let mediated = condition(&fresh.stage("test", "payments"), "Mediated")
        .unwrap()
        .clone();
    for conditions in [
        // A stale Ready after the one that is not yet written right.
        vec![
            json!({"type": "Ready", "status": "False", "reason": "NoCandidateSource", "message": "x",
            "lastTransitionTime": "2026-11-01T00:00:00Z"}),
            frozen.clone(),
            stale.clone(),
        ],
        // The first entries already right: only the duplicate is wrong.
        vec![
            ready.clone(),
            mediated.clone(),
            frozen.clone(),
            stale.clone(),
        ],
    ] {
        let mut objects = base();
        objects[0]["status"] =
            json!({"observedGeneration": written["observedGeneration"], "conditions": conditions});
        let c = Cluster::new(false, &objects);
        c.run(&["-n", "test"]).assert_code(0).assert_no_panic();
        let stage = c.stage("test", "payments");
        let mut types = condition_types(&stage);
        types.sort();
        assert_eq!(types, ["Frozen", "Mediated", "Ready"], "{stage}");
        let ready = condition(&stage, "Ready").unwrap();
        assert_eq!(ready["reason"], "Promotable");
        assert_ne!(ready["message"], "stale");
        assert_eq!(condition(&stage, "Frozen"), Some(&frozen));
        // A second run has nothing left to write.
        c.server.clear_requests();
        c.run(&["-n", "test"]).assert_code(0);
        assert_eq!(c.patches(), 0);
    }
}

/// The list answer of the run's Stages, as a hostile or broken server may give it: the stored
/// Stage `payments` of `c` changed by `edit`.
fn listed_as(c: &Cluster, edit: impl Fn(&mut Value)) -> Fault {
    let mut stage = c.stage("test", "payments");
    edit(&mut stage);
    let list = json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "StageList",
        "metadata": {"resourceVersion": "1000"}, "items": [stage]});
    Fault::once(
        "/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages",
        FaultAction::Reply(200, list),
    )
    .on_method("GET")
}

/// A Stage listed without `metadata.resourceVersion` cannot be written by a guarded merge patch
/// (a body with `resourceVersion: null` is no guard: the API server would take it): it is left
/// unwritten and reported, and nothing is sent.
#[test]
fn no_merge_patch_without_a_resource_version() {
    for rv in [None, Some(json!("")), Some(json!(41))] {
        let c = Cluster::new(false, &base());
        c.server.fault(listed_as(&c, |s| {
            let m = s["metadata"].as_object_mut().unwrap();
            match &rv {
                None => {
                    m.remove("resourceVersion");
                }
                Some(v) => {
                    m.insert("resourceVersion".into(), v.clone());
                }
            }
        }));
        let r = c.run(&["-n", "test", "-o", "json"]);
        r.assert_code(1).assert_no_panic();
        assert_eq!(c.patches(), 0, "resourceVersion {rv:?}");
        assert_eq!(
            results(&r.stdout)[0],
            (
                "payments".to_string(),
                "failed".to_string(),
                "not written: the Stage carries no metadata.resourceVersion to guard the merge patch of its whole conditions list".to_string()
            )
        );
    }
}

/// `observedGeneration` (of the status and of each condition) is copied from
/// `metadata.generation` only when that is an int64 (apimachinery's `ObjectMeta.Generation`):
/// not a number beyond it (2^70, which a saturating conversion writes as 2^63-1), not a string
/// (which would be written `null`, deleting the field under a merge patch), with both ways of
/// writing. The body sent carries no observedGeneration at all.
#[test]
fn observed_generation_only_from_an_int64_generation() {
    let too_big: Value = serde_json::from_str("1180591620717411303424").unwrap();
    for generation in [too_big, json!("2"), json!(2.5)] {
        for list_map in [true, false] {
            let c = Cluster::new(list_map, &base());
            c.server.fault(listed_as(&c, |s| {
                s["metadata"]["generation"] = generation.clone()
            }));
            let r = c.run(&["-n", "test"]);
            r.assert_no_panic();
            let patches: Vec<Value> = c
                .server
                .requests()
                .into_iter()
                .filter(|q| q.method == "PATCH")
                .map(|q| serde_json::from_str(&q.body).unwrap())
                .collect();
            assert_eq!(
                patches.len(),
                1,
                "{generation} list-map {list_map}: {}",
                r.stderr
            );
            let status = &patches[0]["status"];
            assert!(
                status.get("observedGeneration").is_none(),
                "{generation} list-map {list_map}: {status}"
            );
            for cond in status["conditions"].as_array().unwrap() {
                if matches!(cond["type"].as_str(), Some("Ready" | "Mediated")) {
                    assert!(
                        cond.get("observedGeneration").is_none(),
                        "{generation}: {cond}"
                    );
                }
            }
        }
    }
}

/// Every write of the run went to the status subresource of a Stage it listed, in `test`.
fn writes_only_to_listed(c: &Cluster, names: &[&str]) {
    let allowed: Vec<String> = names
        .iter()
        .map(|n| {
            format!("/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages/{n}/status")
        })
        .collect();
    for q in c.server.requests() {
        if q.method != "GET" {
            assert!(
                q.method == "PATCH" && allowed.contains(&q.path),
                "a write elsewhere: {} {}?{}",
                q.method,
                q.path,
                q.query
            );
        }
    }
}

/// A Stage whose spec.candidates.upstreamStage names something that is not a name (a path
/// `../x`, a query `a?watch=true&...`, a subresource `x/status`) or a namespace that is not one:
/// no request carries that text (each request is one the run without it makes too), the read is
/// refused in client-go's words and named, and only the listed Stage's status is written.
#[test]
fn names_from_objects_never_reach_a_request_path() {
    let clean = Cluster::new(true, &base());
    clean.run(&["-n", "test"]).assert_code(0);
    let baseline: Vec<(String, String)> = clean
        .server
        .requests()
        .iter()
        .map(|q| (q.method.clone(), q.path.clone()))
        .collect();
    let cases = [
        (json!({"name": "../x"}), "invalid resource name \"../x\": [may not contain '/']"),
        (json!({"name": "x/status"}), "invalid resource name \"x/status\": [may not contain '/']"),
        (json!({"name": ".."}), "invalid resource name \"..\": [may not be '..']"),
        (
            json!({"name": "a?watch=true&timeoutSeconds=1"}),
            "invalid resource name \"a?watch=true&timeoutSeconds=1\": [a lowercase RFC 1123 subdomain",
        ),
        (
            json!({"name": "x", "namespace": "../kube-system"}),
            "invalid namespace \"../kube-system\": [may not contain '/']",
        ),
        (
            json!({"name": "x", "namespace": "a?dryRun=All"}),
            "invalid namespace \"a?dryRun=All\": [a lowercase RFC 1123 label",
        ),
    ];
    for (upstream, words) in cases {
        let c = Cluster::new(true, &base());
        c.server.fault(listed_as(&c, |s| {
            s["spec"]["candidates"] = json!({"upstreamStage": upstream.clone()});
        }));
        let r = c.run(&["-n", "test", "-o", "json"]);
        r.assert_no_panic();
        assert!(r.stderr.contains(words), "{upstream}: {}", r.stderr);
        for q in c.server.requests() {
            let line = format!("{} {}?{}", q.method, q.path, q.query);
            assert!(
                baseline.contains(&(q.method.clone(), q.path.clone())),
                "{upstream}: a request the clean run does not make: {line}"
            );
            for text in [
                "../",
                "..",
                "watch=true",
                "kube-system",
                "dryRun",
                "x/status",
            ] {
                assert!(!line.contains(text), "{upstream}: {line}");
            }
        }
        writes_only_to_listed(&c, &["payments"]);
    }
}

/// A listed Stage whose name is not a name (`payments?dryRun=All&fieldManager=evil` used to
/// move the status PATCH onto the main resource, with those parameters) is never written: it is
/// reported unwritten with client-go's words, and no PATCH is sent.
#[test]
fn a_listed_name_that_is_not_a_name_is_never_written() {
    for name in [
        "payments?dryRun=All&fieldManager=evil",
        "../payments",
        "payments/status",
    ] {
        let c = Cluster::new(true, &base());
        c.server
            .fault(listed_as(&c, |s| s["metadata"]["name"] = json!(name)));
        let r = c.run(&["-n", "test", "-o", "json"]);
        r.assert_code(1).assert_no_panic();
        assert_eq!(c.patches(), 0, "{name}");
        let results = results(&r.stdout);
        assert_eq!(results.len(), 1);
        assert_eq!(
            (results[0].0.as_str(), results[0].1.as_str()),
            (name, "failed")
        );
        assert!(
            results[0]
                .2
                .contains(&format!("invalid resource name {name:?}")),
            "{name}: {:?}",
            results[0]
        );
    }
}
