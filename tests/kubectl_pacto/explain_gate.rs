//! `explain application/NAME` and `explain kustomization/NAME` from files: the gate one level
//! up. Expected values: argo-cd `controller/health.go` (`setApplicationHealth`,
//! `formatHealthCauses`: `Caused by group/Kind:namespace/name`), the Lua health contract (a
//! script's `status` and `message`), kustomize-controller `checkHealth` and fluxcd/pkg
//! `ssa/manager_wait.go` (`health check failed after <d>: timeout waiting for: [Kind/ns/name
//! status: 'InProgress']`), at the commits docs/upstream.md names.

use crate::common::{pacto, run, s};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// The argocd-cm key of the Widget health script.
const WIDGET_KEY: &str = "resource.customizations.health.example.io_Widget";

/// Writes an Application of `n` resources (Widgets judged by an argocd-cm health script, every
/// fifth a ConfigMap without health, every seventh a Deployment), the live objects and the
/// argocd-cm into `dir/all.yaml`; the Widget named `broken` is Degraded with `message`.
fn application_files(dir: &Path, n: usize, broken: usize, message: &str) -> std::path::PathBuf {
    let mut resources = String::new();
    let mut live = String::new();
    for i in 0..n {
        let (group, version, kind) = if i == broken {
            ("example.io", "v1", "Widget")
        } else if i % 5 == 0 {
            ("", "v1", "ConfigMap")
        } else if i % 7 == 0 {
            ("apps", "v1", "Deployment")
        } else {
            ("example.io", "v1", "Widget")
        };
        let name = format!("r{i:03}");
        writeln!(
            resources,
            "  - {{group: \"{group}\", version: {version}, kind: {kind}, namespace: shop, name: {name}}}"
        )
        .unwrap();
        let api = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        let status = match kind {
            "Widget" if i == broken => format!("{{phase: Broken, reason: {message:?}}}"),
            "Widget" => "{phase: Ready}".to_string(),
            "Deployment" => "{observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1}".to_string(),
            _ => "{}".to_string(),
        };
        let spec = if kind == "Deployment" {
            "spec: {replicas: 1}\n"
        } else {
            ""
        };
        write!(
            live,
            "---\napiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}, namespace: shop, generation: 1}}\n{spec}status: {status}\n"
        )
        .unwrap();
    }
    let script = "if obj.status.phase == 'Ready' then return {status = 'Healthy'} end \
                  return {status = 'Degraded', message = obj.status.reason}";
    let text = format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: shop, namespace: argocd}}\n\
         status:\n  health: {{status: Degraded}}\n  resources:\n{resources}\
         ---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: argocd-cm, namespace: argocd}}\n\
         data:\n  {WIDGET_KEY}: {}\n{live}",
        Value::from(script)
    );
    let path = dir.join("all.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The acceptance example: 200 resources, one Widget's health script says Degraded. The first
/// screen (20 lines) names that resource as the controller names a cause, the argocd-cm key
/// that judged it and the script's message.
#[test]
fn an_application_of_200_resources_names_the_degraded_one_on_the_first_screen() {
    let dir = tempfile::tempdir().unwrap();
    let message = "disk quota exceeded on volume data-0";
    let f = application_files(dir.path(), 200, 117, message);
    let out = run(&mut pacto(&["explain", "application/shop", "-f", s(&f)]));
    out.assert_no_panic().assert_code(0);
    let screen: Vec<&str> = out.stdout.lines().take(20).collect();
    let screen = screen.join("\n");
    for want in [
        "Degraded",
        "Caused by example.io/Widget:shop/r117",
        "example.io/Widget:shop/r117",
        WIDGET_KEY,
        message,
    ] {
        assert!(
            screen.contains(want),
            "{want:?} not on the first screen:\n{screen}"
        );
    }
    // The first lines: the Application, then its health.
    let first: Vec<&str> = out.stdout.lines().take(2).collect();
    assert!(
        first[0].starts_with("Application:") && first[0].ends_with("argocd/shop"),
        "{first:?}"
    );
    assert!(
        first[1].starts_with("Health:") && first[1].ends_with("Degraded"),
        "{first:?}"
    );
}

/// `-o json`: the health as data, every resource listed, the deciding one first with its rule.
#[test]
fn an_application_as_json_lists_every_resource_worst_first() {
    let dir = tempfile::tempdir().unwrap();
    let f = application_files(dir.path(), 40, 12, "broken");
    let out = run(&mut pacto(&[
        "explain",
        "application/shop",
        "-f",
        s(&f),
        "-o",
        "json",
    ]));
    out.assert_no_panic().assert_code(0);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["kind"], "ApplicationExplanation");
    let h = &v["health"];
    assert_eq!(h["status"], "Degraded");
    assert_eq!(h["message"], "Caused by example.io/Widget:shop/r012");
    let rs = h["resources"].as_array().unwrap();
    assert_eq!(rs.len(), 40);
    assert_eq!(rs[0]["name"], "r012");
    assert_eq!(rs[0]["health"]["message"], "broken");
    assert_eq!(rs[0]["rule"]["keys"][0], WIDGET_KEY);
    assert_eq!(rs[0]["cause"], true);
    // ConfigMaps have no health check: they do not count (health.go: nil health is skipped).
    let cm = rs.iter().find(|r| r["kind"] == "ConfigMap").unwrap();
    assert_eq!(cm["counted"], "NoHealth");
    let yaml = run(&mut pacto(&[
        "explain",
        "application/shop",
        "-f",
        s(&f),
        "-o",
        "yaml",
    ]));
    yaml.assert_code(0);
    assert!(
        yaml.stdout.contains("kind: ApplicationExplanation"),
        "{}",
        yaml.stdout
    );
}

/// A Kustomization whose wait would time out on one Pacto: the report names it, its reader and
/// what Flux prints at the timeout (ssa `timeout waiting for: [...]` under kustomize-controller's
/// `health check failed after <d>: `).
#[test]
fn a_kustomization_that_would_time_out_names_the_pacto_and_the_flux_text() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("ks.yaml");
    std::fs::write(
        &f,
        r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  timeout: 3m
  wait: true
  healthCheckExprs:
    - apiVersion: pacto.trianalab.io/v1alpha1
      kind: Pacto
      current: "status.contractStatus == 'Compliant'"
      failed: "status.contractStatus == 'NonCompliant'"
status:
  inventory:
    entries:
      - {id: shop_orders_pacto.trianalab.io_Pacto, v: v1alpha1}
      - {id: shop_billing_pacto.trianalab.io_Pacto, v: v1alpha1}
      - {id: _shop__Namespace, v: v1}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
status: {phase: Active}
---
apiVersion: pacto.trianalab.io/v1alpha1
kind: Pacto
metadata: {name: orders, namespace: shop}
status: {contractStatus: Compliant}
---
apiVersion: pacto.trianalab.io/v1alpha1
kind: Pacto
metadata: {name: billing, namespace: shop}
status: {contractStatus: Pending}
"#,
    )
    .unwrap();
    let out = run(&mut pacto(&["explain", "kustomization/apps", "-f", s(&f)]));
    out.assert_no_panic().assert_code(0);
    let flux = "health check failed after 3m0s: timeout waiting for: [Pacto/shop/billing status: 'InProgress']";
    assert!(out.stdout.contains(flux), "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("Pacto/shop/billing:"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(lines[at].ends_with("InProgress"), "{}", lines[at]);
    assert!(
        lines[at + 1].contains("reader: healthCheckExprs[0]"),
        "{}",
        lines[at + 1]
    );
    assert!(!out.stdout.contains("Pacto/shop/orders:"), "{}", out.stdout);
    let json = run(&mut pacto(&[
        "explain",
        "ks/apps",
        "-f",
        s(&f),
        "-o",
        "json",
    ]));
    json.assert_code(0);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["wait"]["overall"], "WouldTimeOut");
    assert_eq!(v["wait"]["timeout_seconds"], 180);
    assert_eq!(v["wait"]["message"], flux);
    assert_eq!(v["wait"]["objects"][0]["name"], "billing");
}

/// Errors name what is missing and exit 1.
#[test]
fn what_is_not_there_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = application_files(dir.path(), 3, 1, "x");
    let out = run(&mut pacto(&["explain", "application/other", "-f", s(&f)]));
    out.assert_no_panic().assert_code(1);
    assert_eq!(
        out.stderr,
        "error: application/other is not in the files given\n"
    );
    let out = run(&mut pacto(&["explain", "kustomization/apps", "-f", s(&f)]));
    out.assert_code(1);
    assert_eq!(
        out.stderr,
        "error: kustomization/apps is not in the files given\n"
    );
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nstatus: {resources: {x: 1}}\n",
    )
    .unwrap();
    let out = run(&mut pacto(&["explain", "application/a", "-f", s(&bad)]));
    out.assert_code(1);
    assert_eq!(
        out.stderr,
        "error: application/a: status.resources: not a list\n"
    );
    let bad = dir.path().join("inv.yaml");
    std::fs::write(
        &bad,
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k, namespace: f}\nspec: {wait: true}\nstatus: {inventory: {entries: [{id: nope}]}}\n",
    )
    .unwrap();
    let out = run(&mut pacto(&["explain", "kustomization/k", "-f", s(&bad)]));
    out.assert_code(1);
    assert_eq!(
        out.stderr,
        "error: kustomization/k: status.inventory.entries[0].id: \"nope\" is not <namespace>_<name>_<group>_<kind>\n"
    );
}

/// From the cluster: the Application is read, then every object its `status.resources` names
/// (one that is not there counts as not live), and the cluster's argocd-cm judges them; the
/// same for a Kustomization and its inventory.
#[test]
fn from_the_cluster_the_objects_named_are_read() {
    use fake_apiserver::{FakeApiServer, Resource};
    let server = FakeApiServer::start();
    server.register(Resource::new(
        "argoproj.io/v1alpha1",
        "Application",
        "applications",
        true,
        true,
    ));
    server.register(Resource::new(
        "apps/v1",
        "Deployment",
        "deployments",
        true,
        true,
    ));
    server.register(Resource::pacto());
    server.register(Resource::new("batch/v1", "Job", "jobs", true, true));
    server.register(Resource::new(
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "kustomizations",
        true,
        true,
    ));
    for f in ["application.yaml", "kustomization.yaml"] {
        let text = std::fs::read_to_string(crate::common::fixture(&format!("gate/{f}"))).unwrap();
        for doc in text.split("\n---\n") {
            let v: Value = serde_saphyr::from_str(doc).unwrap();
            let dup = f == "kustomization.yaml" && v["kind"] == "Pacto";
            if !dup {
                server.insert(v);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("argocd"));
    let mut cmd = crate::common::isolated(
        dir.path(),
        "2026-11-29T12:00:00Z",
        &[
            "explain",
            "application/shop",
            "--kubeconfig",
            s(&kubeconfig),
            "-o",
            "json",
        ],
    );
    let out = run(&mut cmd);
    out.assert_no_panic().assert_code(0);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["health"]["status"], "Degraded");
    assert_eq!(
        v["health"]["message"],
        "Caused by pacto.trianalab.io/Pacto:shop/billing"
    );
    assert_eq!(v["judgedBy"], "argocd-cm argocd/argocd-cm");
    let rs = v["health"]["resources"].as_array().unwrap();
    assert_eq!(rs[0]["name"], "billing");
    assert_eq!(
        rs[0]["rule"]["keys"][0],
        "resource.customizations.health.pacto.trianalab.io_Pacto"
    );
    // Every object named was read: GETs of each one, not a list.
    let gets = |suffix: &str| {
        server
            .requests()
            .iter()
            .filter(|r| r.method == "GET" && r.path.ends_with(suffix))
            .count()
    };
    assert_eq!(gets("/namespaces/shop/pactos/billing"), 1);
    assert_eq!(gets("/namespaces/shop/deployments/web"), 1);
    // The billing Pacto is NonCompliant in the cluster (application.yaml's): the Kustomization's
    // wait fails early on it.
    let mut cmd = crate::common::isolated(
        dir.path(),
        "2026-11-29T12:00:00Z",
        &[
            "explain",
            "kustomization/shop",
            "-n",
            "flux-system",
            "--kubeconfig",
            s(&kubeconfig),
        ],
    );
    let out = run(&mut cmd);
    out.assert_no_panic().assert_code(0);
    assert!(
        out.stdout.contains("health check failed after 0s: failed early due to stalled resources: [Pacto/shop/billing status: 'Failed']"),
        "{}",
        out.stdout
    );
    let mut cmd = crate::common::isolated(
        dir.path(),
        "2026-11-29T12:00:00Z",
        &[
            "explain",
            "application/nope",
            "--kubeconfig",
            s(&kubeconfig),
        ],
    );
    let out = run(&mut cmd);
    out.assert_code(1);
    assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
    assert!(out.stderr.contains("\"nope\" not found"), "{}", out.stderr);
}

/// `explain helmrelease/NAME`: the wait of the latest Helm release (helm-controller
/// `api/v2/snapshot_types.go` `Latest`: the highest version, 3), its objects read from the Helm
/// storage Secret `sh.helm.release.v1.web.v3` (flux2 `cmd/flux/tree_kustomization.go`), the
/// upgrade's own timeout (the release was made by an upgrade: `spec.upgrade.timeout` 10m, after
/// `api/v2/helmrelease_types.go` `Upgrade.GetTimeout`), the Pacto judged by the release's
/// `healthCheckExprs`, and ssa's own text (`ssa/manager_wait.go`).
#[test]
fn a_helmrelease_explains_the_wait_of_its_latest_release() {
    let f = crate::common::fixture("gate/helmrelease.yaml");
    let out = run(&mut pacto(&["explain", "helmrelease/web", "-f", s(&f)]));
    out.assert_no_panic().assert_code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "HelmRelease:       shop/web");
    assert_eq!(
        lines[1],
        "  Release:         shop/web v3 (upgrade, Helm status deployed, chart web@1.2.0)"
    );
    assert!(out.stdout.contains(
        "  The wait fails:  timeout waiting for: [Pacto/shop/web status: 'InProgress']\n"
    ));
    assert!(
        out.stdout.contains("  Timeout:         10m0s\n"),
        "{}",
        out.stdout
    );
    let json = run(&mut pacto(&[
        "explain",
        "hr/web",
        "-f",
        s(&f),
        "-o",
        "json",
    ]));
    json.assert_code(0);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["kind"], "HelmReleaseExplanation");
    assert_eq!(v["release"]["version"], 3);
    assert_eq!(v["wait"]["overall"], "WouldTimeOut");
    assert_eq!(v["wait"]["timeout_seconds"], 600);
    let objects: Vec<(&str, &str, &str)> = v["wait"]["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["kind"].as_str().unwrap(),
                o["status"].as_str().unwrap(),
                o["reader"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        objects,
        [
            ("Pacto", "InProgress", "healthCheckExprs[0]"),
            ("Deployment", "Current", "kstatus")
        ]
    );

    // Without its storage Secret, or with no release recorded, there is nothing to read.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&f).unwrap();
    let hr_only = dir.path().join("hr.yaml");
    std::fs::write(&hr_only, text.split("\n---\n").next().unwrap()).unwrap();
    let r = run(&mut pacto(&[
        "explain",
        "helmrelease/web",
        "-f",
        s(&hr_only),
    ]));
    r.assert_no_panic().assert_code(1);
    assert_eq!(
        r.stderr,
        "error: helmrelease/web: its Helm storage Secret shop/sh.helm.release.v1.web.v3 is not in the files given\n"
    );
    let fresh = dir.path().join("fresh.yaml");
    std::fs::write(
        &fresh,
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: shop}\nspec: {}\n",
    )
    .unwrap();
    let r = run(&mut pacto(&["explain", "helmrelease/web", "-f", s(&fresh)]));
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: helmrelease/web: records no Helm release (status.history and status.storageNamespace): there is nothing to wait for yet\n"
    );
    let broken = dir.path().join("broken.yaml");
    std::fs::write(
        &broken,
        text.replace("  release: ", "  release: QUJD")
            .replace("QUJDH4", "QUJD"),
    )
    .unwrap();
    let r = run(&mut pacto(&[
        "explain",
        "helmrelease/web",
        "-f",
        s(&broken),
    ]));
    r.assert_no_panic().assert_code(1);
    assert!(
        r.stderr.starts_with(
            "error: helmrelease/web: Secret shop/sh.helm.release.v1.web.v3: data.release: "
        ),
        "{}",
        r.stderr
    );
}

/// From the cluster: the HelmRelease, its storage Secret and each object of the release are
/// read (one GET each), and the report, the tree and a Kustomization's tree with the
/// HelmRelease nested come out as from the same objects in files.
#[test]
fn from_the_cluster_a_helmrelease_is_read_with_its_release() {
    use fake_apiserver::{FakeApiServer, Resource};
    let server = FakeApiServer::start();
    for r in [
        Resource::new(
            "helm.toolkit.fluxcd.io/v2",
            "HelmRelease",
            "helmreleases",
            true,
            true,
        ),
        Resource::new(
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
            "kustomizations",
            true,
            true,
        ),
        Resource::new("v1", "Secret", "secrets", true, false),
        Resource::new("apps/v1", "Deployment", "deployments", true, true),
        Resource::pacto(),
    ] {
        server.register(r);
    }
    let dir = tempfile::tempdir().unwrap();
    let apps = dir.path().join("apps.yaml");
    std::fs::write(
        &apps,
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: shop}\n\
         spec: {interval: 10m, timeout: 5m, wait: true}\n\
         status: {inventory: {entries: [{id: shop_web_helm.toolkit.fluxcd.io_HelmRelease, v: v2}]}}\n",
    )
    .unwrap();
    let f = crate::common::fixture("gate/helmrelease.yaml");
    for file in [&f, &apps] {
        let text = std::fs::read_to_string(file).unwrap();
        for doc in serde_saphyr::from_multiple::<Value>(&text).unwrap() {
            server.insert(doc);
        }
    }
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("shop"));
    let now = "2026-11-29T12:00:00Z";
    let both = |args: &[&str]| {
        let mut live = args.to_vec();
        live.extend(["--kubeconfig", s(&kubeconfig)]);
        let l = run(&mut crate::common::isolated(dir.path(), now, &live));
        l.assert_no_panic().assert_code(0);
        let mut files = args.to_vec();
        files.extend(["-f", s(&f), "-f", s(&apps)]);
        let fl = run(&mut crate::common::isolated(dir.path(), now, &files));
        fl.assert_code(0);
        assert_eq!(l.stdout, fl.stdout, "{args:?}");
        l.stdout
    };
    let report = both(&["explain", "helmrelease/web"]);
    assert!(report.contains("timeout waiting for: [Pacto/shop/web status: 'InProgress']"));
    let tree = both(&["tree", "helmrelease/web"]);
    assert_eq!(tree.lines().count(), 4, "{tree}");
    let nested = both(&["tree", "kustomization/apps"]);
    assert_eq!(crate::common::cell(&nested, 1, "NAME"), "└─HelmRelease/web");
    assert_eq!(crate::common::cell(&nested, 2, "NAME"), "├─Pacto/web");
    assert_eq!(crate::common::cell(&nested, 2, "HEALTH"), "InProgress");
    let secret_gets = server
        .requests()
        .iter()
        .filter(|r| {
            r.method == "GET"
                && r.path
                    .ends_with("/namespaces/shop/secrets/sh.helm.release.v1.web.v3")
        })
        .count();
    assert_eq!(secret_gets, 3, "one read of the storage Secret per run");
}
