//! The reconcile as the CronJob runs it: the ServiceAccount of `deploy/serviceaccount.yaml`,
//! bound by exactly `deploy/rbac.yaml`, with the arguments of `deploy/cronjob.yaml`, over the
//! Stages of `examples/delivery` and their appliers. The audit log (audit.k8s.io/v1 Events:
//! `user.username`, `verb`, `objectRef.{apiGroup,resource,subresource}`) says what the run used;
//! the ClusterRole grants exactly that: nothing refused, nothing granted that the run does not use
//! (but the grants named in [`GRANTED_FOR_OTHER_RUNS`]).

use super::*;
use std::collections::BTreeSet;

/// (apiGroup, resource, subresource, verb); subresource `""` for the resource itself.
type Permission = (String, String, String, String);

/// Grants a run over every namespace does not use, and the run that does: `get` of a Stage
/// reads an upstream Stage outside the listed namespace (`-n`) and re-reads a Stage after a
/// `409 Conflict`.
const GRANTED_FOR_OTHER_RUNS: &[(&str, &str, &str, &str)] =
    &[("delivery.pacto.trianalab.io", "stages", "", "get")];

/// What the ClusterRole of `deploy/rbac.yaml` grants, one entry per group, resource and verb.
fn granted() -> BTreeSet<Permission> {
    let role = yaml_documents("deploy/rbac.yaml")
        .into_iter()
        .find(|d| d["kind"] == "ClusterRole")
        .expect("deploy/rbac.yaml has a ClusterRole");
    let mut out = BTreeSet::new();
    for rule in role["rules"].as_array().expect("rules") {
        let strings = |k: &str| -> Vec<String> {
            rule[k]
                .as_array()
                .unwrap_or_else(|| panic!("rule without {k}: {rule}"))
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        for group in strings("apiGroups") {
            for resource in strings("resources") {
                let (r, sub) = resource.split_once('/').unwrap_or((&resource, ""));
                for verb in strings("verbs") {
                    out.insert((group.clone(), r.to_string(), sub.to_string(), verb));
                }
            }
        }
    }
    out
}

/// The resource requests of `user` in the audit log, completed (stage ResponseComplete).
fn audited(kube: &kube_harness::Kube, user: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(kube.audit_log()).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| {
            e["user"]["username"] == user
                && e["stage"] == "ResponseComplete"
                && e["objectRef"]["resource"].is_string()
        })
        .collect()
}

fn permission(e: &Value) -> Permission {
    let f = |v: &Value| v.as_str().unwrap_or("").to_string();
    (
        f(&e["objectRef"]["apiGroup"]),
        f(&e["objectRef"]["resource"]),
        f(&e["objectRef"]["subresource"]),
        f(&e["verb"]),
    )
}

#[test]
fn the_reconcile_uses_exactly_what_deploy_rbac_grants() {
    // ClusterRole, ClusterRoleBinding and the examples' fixed namespaces: a cluster of its own.
    let kube = kube_harness::Kube::start();
    let at_repo = |args: &[&str], input: Option<&str>| {
        let mut c = kube.kubectl(args);
        c.current_dir(repo());
        run_with(&mut c, input, Duration::from_secs(120)).assert_code(0);
    };
    at_repo(&["apply", "-f", "tests/fixtures/real/crds"], None);
    at_repo(
        &[
            "wait",
            "--for=condition=Established",
            "-f",
            "tests/fixtures/real/crds",
            "--timeout=120s",
        ],
        None,
    );
    let sa = yaml_documents("deploy/serviceaccount.yaml")
        .into_iter()
        .find(|d| d["kind"] == "ServiceAccount")
        .expect("deploy/serviceaccount.yaml has a ServiceAccount");
    let (sa_ns, sa_name) = (
        sa["metadata"]["namespace"].as_str().unwrap().to_string(),
        sa["metadata"]["name"].as_str().unwrap().to_string(),
    );
    let files = [
        "examples/delivery/argo-orders.yaml",
        "examples/delivery/flux-payments.yaml",
        "examples/delivery/operation-held.yaml",
    ];
    let mut namespaces = BTreeSet::from([sa_ns.clone()]);
    for f in files {
        for o in yaml_documents(f) {
            namespaces.insert(o["metadata"]["namespace"].as_str().unwrap().to_string());
        }
    }
    for ns in &namespaces {
        at_repo(&["create", "namespace", ns], None);
    }
    at_repo(&["apply", "-f", "deploy/serviceaccount.yaml"], None);
    at_repo(&["apply", "-f", "deploy/rbac.yaml"], None);
    for f in files {
        at_repo(&["apply", "-f", f], None);
        // The appliers' status, as their controllers write it (through /status where the CRD has
        // the subresource); the Stages' is the reconcile's to write.
        for o in yaml_documents(f) {
            if o["status"].is_object()
                && matches!(o["kind"].as_str(), Some("OCIRepository" | "Kustomization"))
            {
                at_repo(
                    &["apply", "--server-side", "--subresource=status", "-f", "-"],
                    Some(&o.to_string()),
                );
            }
        }
    }

    let token = kube.kubectl_ok(&["create", "token", &sa_name, "-n", &sa_ns], None);
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("sa-kubeconfig");
    kube.write_kubeconfig(&config, token.trim(), Some(&sa_ns));
    let cronjob = yaml_documents("deploy/cronjob.yaml")
        .into_iter()
        .find(|d| d["kind"] == "CronJob")
        .expect("deploy/cronjob.yaml has a CronJob");
    let job_args: Vec<String> = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        ["containers"][0]["args"]
        .as_array()
        .expect("the container's args")
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        job_args.first().map(String::as_str),
        Some("reconcile"),
        "{job_args:?}"
    );
    let mut args: Vec<&str> = job_args.iter().map(String::as_str).collect();
    args.extend(["--kubeconfig", s(&config)]);
    let mut c = pacto(&args);
    c.env("HOME", home.path())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    let r = run_with(&mut c, None, Duration::from_secs(120));
    r.assert_code(0).assert_no_panic();

    let user = format!("system:serviceaccount:{sa_ns}:{sa_name}");
    // The audit backend writes each event as its request completes; wait for the Stage writes.
    let start = std::time::Instant::now();
    let events = loop {
        let events = audited(&kube, &user);
        let writes = events
            .iter()
            .filter(|e| e["objectRef"]["subresource"] == "status")
            .count();
        if writes >= 2 || start.elapsed() > Duration::from_secs(30) {
            break events;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let refused: Vec<&Value> = events
        .iter()
        .filter(|e| e["responseStatus"]["code"] == 403)
        .collect();
    assert!(
        refused.is_empty(),
        "refused: {refused:?}\n{}{}",
        r.stdout,
        r.stderr
    );
    let used: BTreeSet<Permission> = events.iter().map(permission).collect();
    let granted = granted();
    let missing: Vec<&Permission> = used.difference(&granted).collect();
    assert!(missing.is_empty(), "used but not granted: {missing:?}");
    let unused: BTreeSet<Permission> = granted
        .difference(&used)
        .filter(|p| {
            !GRANTED_FOR_OTHER_RUNS.iter().any(|(g, r, s, v)| {
                (*g, *r, *s, *v) == (p.0.as_str(), p.1.as_str(), p.2.as_str(), p.3.as_str())
            })
        })
        .cloned()
        .collect();
    assert!(
        unused.is_empty(),
        "granted but not used: {unused:?}\nused: {used:?}"
    );
    // Both example Stages were written (one status patch each).
    let writes: Vec<String> = events
        .iter()
        .filter(|e| e["objectRef"]["subresource"] == "status")
        .map(|e| {
            format!(
                "{} {}/{}",
                e["verb"], e["objectRef"]["namespace"], e["objectRef"]["name"]
            )
        })
        .collect();
    assert_eq!(writes.len(), 2, "{writes:?}\n{}", r.stdout);
}
