//! The gate one level up on the real server: an Argo CD Application and Flux Kustomizations
//! whose status is written as their controllers write it (argo-cd `controller/appcontroller.go`
//! `persistAppStatus`: a JSON merge patch of `status` on the Application itself, whose CRD has
//! no status subresource; kustomize-controller: its status through the status subresource),
//! their objects made by `kubectl apply` with the status their own controllers would write,
//! then `explain` and `tree` read them from the server. Expected values: argo-cd
//! `controller/health.go` `setApplicationHealth` (`Caused by group/Kind:namespace/name`, hooks
//! and resources without health do not count), kustomize-controller `checkHealth` and
//! fluxcd/pkg `ssa/manager_wait.go` (`failed early due to stalled resources`, `timeout waiting
//! for`), fluxcd/cli-utils kstatus (`Ready=False` reads InProgress).

use super::*;
use serde_json::json;

/// The argocd-cm health script of `tests/fixtures/gate/application.yaml`.
fn argocd_cm() -> Value {
    yaml_documents("tests/fixtures/gate/application.yaml")
        .into_iter()
        .find(|v| v["metadata"]["name"] == "argocd-cm")
        .unwrap()
}

/// A Pacto of the examples renamed `name`, without status.
fn pacto(name: &str) -> Value {
    let mut p = example_pacto("orders");
    p["metadata"] = json!({"name": name});
    p.as_object_mut().unwrap().remove("status");
    p
}

/// Writes `status` through the status subresource, as a controller does (server-side apply with
/// its own field manager).
fn write_status(
    kube: &kube_harness::Kube,
    ns: &str,
    api: &str,
    kind: &str,
    name: &str,
    status: Value,
) {
    let doc = json!({"apiVersion": api, "kind": kind,
        "metadata": {"name": name, "namespace": ns}, "status": status});
    kube.kubectl_ok(
        &[
            "apply",
            "--server-side",
            "--subresource=status",
            "--field-manager=controller",
            "-f",
            "-",
        ],
        Some(&doc.to_string()),
    );
}

#[test]
fn explain_and_tree_read_the_gate_from_the_real_server() {
    let kube = kube_harness::shared();
    apply_flux_and_argo_crds(kube);
    let ns = kube.namespace("gate");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "registry.example/web:1"}]}}}});
    let settings = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "settings"}, "data": {"mode": "live"}});
    let app = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "shop"},
        "spec": {"project": "default",
            "source": {"repoURL": "https://example.com/shop.git", "path": "deploy"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": ns}}});
    let exprs = json!([{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "current": "status.contractStatus == 'Compliant'",
        "failed": "status.contractStatus == 'NonCompliant'"}]);
    let shop = json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "shop"},
        "spec": {"interval": "10m", "timeout": "5m", "wait": true, "path": "./deploy",
            "sourceRef": {"kind": "GitRepository", "name": "shop"}, "healthCheckExprs": exprs}});
    let platform = json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "platform"},
        "spec": {"interval": "10m", "timeout": "5m", "wait": true, "path": "./platform",
            "sourceRef": {"kind": "GitRepository", "name": "platform"}}});
    kube.apply(
        &ns,
        &[
            deployment,
            settings,
            pacto("orders"),
            pacto("billing"),
            argocd_cm(),
            app,
            shop,
            platform,
        ],
    );

    // What each object's own controller would write.
    write_status(
        kube,
        &ns,
        "apps/v1",
        "Deployment",
        "web",
        json!({"observedGeneration": 1,
        "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2,
        "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]}),
    );
    write_status(
        kube,
        &ns,
        "pacto.trianalab.io/v1alpha1",
        "Pacto",
        "orders",
        json!({"contractStatus": "Compliant"}),
    );
    write_status(
        kube,
        &ns,
        "pacto.trianalab.io/v1alpha1",
        "Pacto",
        "billing",
        json!({"contractStatus": "NonCompliant"}),
    );
    let id = |name: &str, group: &str, kind: &str| format!("{ns}_{name}_{group}_{kind}");
    write_status(
        kube,
        &ns,
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "shop",
        json!({
        "observedGeneration": 1,
        "conditions": [{"type": "Ready", "status": "False", "reason": "HealthCheckFailed",
            "message": "health check failed", "lastTransitionTime": "2026-11-29T11:00:00Z"}],
        "inventory": {"entries": [
            {"id": format!("_{ns}__Namespace"), "v": "v1"},
            {"id": id("orders", "pacto.trianalab.io", "Pacto"), "v": "v1alpha1"},
            {"id": id("billing", "pacto.trianalab.io", "Pacto"), "v": "v1alpha1"}]}}),
    );
    write_status(
        kube,
        &ns,
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "platform",
        json!({
        "observedGeneration": 1,
        "inventory": {"entries": [
            {"id": id("settings", "", "ConfigMap"), "v": "v1"},
            {"id": id("shop", "kustomize.toolkit.fluxcd.io", "Kustomization"), "v": "v1"}]}}),
    );
    // Argo CD's controller: a merge patch of the Application's status.
    let resources = json!([
        {"version": "v1", "kind": "ConfigMap", "namespace": ns, "name": "settings"},
        {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": ns, "name": "web"},
        {"group": "pacto.trianalab.io", "version": "v1alpha1", "kind": "Pacto", "namespace": ns, "name": "orders"},
        {"group": "pacto.trianalab.io", "version": "v1alpha1", "kind": "Pacto", "namespace": ns, "name": "billing"},
        {"group": "batch", "version": "v1", "kind": "Job", "namespace": ns, "name": "migrate", "hook": true}]);
    kube.kubectl_ok(
        &[
            "patch",
            "application",
            "shop",
            "-n",
            &ns,
            "--type",
            "merge",
            "-p",
            &json!({"status": {"health": {"status": "Degraded"}, "resources": resources}})
                .to_string(),
        ],
        None,
    );

    let home = tempfile::tempdir().unwrap();
    let gate = ["-n", ns.as_str(), "--argocd-namespace", ns.as_str()];
    let mut args = vec!["explain", "application/shop", "-o", "json"];
    args.extend(gate);
    let r = pacto_on(kube, home.path(), &args);
    r.assert_no_panic().assert_code(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["health"]["status"], "Degraded", "{}", r.stdout);
    assert_eq!(
        v["health"]["message"],
        format!("Caused by pacto.trianalab.io/Pacto:{ns}/billing")
    );
    assert_eq!(v["judgedBy"], format!("argocd-cm {ns}/argocd-cm"));

    let r = pacto_on(
        kube,
        home.path(),
        &["explain", "kustomization/shop", "-n", &ns],
    );
    r.assert_no_panic().assert_code(0);
    let flux = format!(
        "health check failed after 0s: failed early due to stalled resources: [Pacto/{ns}/billing status: 'Failed']"
    );
    assert!(r.stdout.contains(&flux), "{}", r.stdout);

    // The tree of platform: its ConfigMap, then shop (InProgress on its Ready condition) with
    // shop's own objects as shop's wait reads them.
    let r = pacto_on(
        kube,
        home.path(),
        &["tree", "kustomization/platform", "-n", &ns],
    );
    r.assert_no_panic().assert_code(0);
    let t = &r.stdout;
    let names: Vec<String> = [
        "Kustomization/platform",
        "├─ConfigMap/settings",
        "└─Kustomization/shop",
        &format!("├─Namespace/{ns}"),
        "├─Pacto/orders",
        "└─Pacto/billing",
    ]
    .iter()
    .map(|n| n.to_string())
    .collect();
    assert_eq!(column(t, "NAME"), names, "{t}");
    assert_eq!(
        column(t, "HEALTH"),
        [
            "WouldTimeOut",
            "Current",
            "InProgress",
            "Current",
            "Current",
            "Failed"
        ],
        "{t}"
    );
    assert_eq!(
        cell(t, 0, "MESSAGE"),
        format!(
            "health check failed after 5m0s: timeout waiting for: [Kustomization/{ns}/shop status: 'InProgress']"
        )
    );
    assert_eq!(cell(t, 2, "MESSAGE"), "health check failed");

    let mut args = vec!["tree", "application/shop", "-o", "json"];
    args.extend(gate);
    let r = pacto_on(kube, home.path(), &args);
    r.assert_no_panic().assert_code(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["health"], "Degraded");
    let health: Vec<&str> = v["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["health"].as_str().unwrap())
        .collect();
    // settings: no health; web: the built-in Deployment check; the Pactos: the script; the
    // hook Job: not live.
    assert_eq!(
        health,
        ["-", "Healthy", "Healthy", "Degraded", "-"],
        "{}",
        r.stdout
    );
    assert_eq!(v["children"][3]["deciding"], true);
    assert_eq!(v["children"][4]["rule"], "no live object");
}
