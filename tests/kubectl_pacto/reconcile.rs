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
        ] {
            let c = Cluster::new(true, &objects);
            let mut f = Fault::once(path, action.clone());
            f.method = Some(method.clone());
            c.server.fault(f);
            let r = c.run(&["-n", "test"]);
            r.assert_no_panic();
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

#[test]
fn the_deploy_manifests_run_once_at_a_time_with_a_deadline() {
    let cron = &yaml_docs(&std::fs::read_to_string(repo().join("deploy/cronjob.yaml")).unwrap())[0];
    assert_eq!(cron["spec"]["concurrencyPolicy"], "Forbid");
    assert!(
        cron["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"]
            .as_i64()
            .unwrap()
            > 0
    );
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
