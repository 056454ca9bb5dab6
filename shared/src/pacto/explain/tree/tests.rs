//! The tree's statuses come from the engines it reads, whose rules are upstream's: kstatus
//! (fluxcd/cli-utils `pkg/kstatus/status/generic.go`: a generation not yet observed is
//! InProgress, `Stalled=True` is Failed), fluxcd/pkg `ssa/manager_wait.go` (a Failed object ends
//! the wait: WouldFail, and only the Failed ones are named), and argo-cd
//! `controller/health.go` `setApplicationHealth` (the worst counted health; a resource without
//! a health check does not count; `formatHealthCauses` names `group/Kind:namespace/name`).

use super::*;
use crate::argo::settings::parse_configmap;
use serde_json::json;

const PACTO_EXPRS: &str = "status.contractStatus == 'NonCompliant'";

fn kustomization(name: &str, inventory: &[&str], status: Value) -> Value {
    let entries: Vec<Value> = inventory
        .iter()
        .map(|id| json!({"id": id, "v": "v1"}))
        .collect();
    let mut st = status;
    st["inventory"] = json!({"entries": entries});
    json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": name, "namespace": "flux-system", "generation": 1},
        "spec": {"interval": "1m", "wait": true, "timeout": "5m", "prune": true,
                 "sourceRef": {"kind": "GitRepository", "name": "repo"},
                 "healthCheckExprs": [{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
                     "failed": PACTO_EXPRS,
                     "current": "status.contractStatus == 'Compliant'"}]},
        "status": st})
}

fn live() -> Vec<Value> {
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
        // generation 2, observed 1: kstatus InProgress.
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 2},
            "spec": {"replicas": 1}, "status": {"observedGeneration": 1}}),
        json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "payments", "namespace": "shop", "generation": 1},
            "status": {"contractStatus": "NonCompliant", "observedGeneration": 1}}),
        json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 1},
            "status": {"contractStatus": "Compliant", "observedGeneration": 1}}),
        // Stalled=True: kstatus Failed. Its inventory lists the root again (a cycle).
        kustomization(
            "child",
            &[
                "shop_payments_pacto.trianalab.io_Pacto",
                "flux-system_apps_kustomize.toolkit.fluxcd.io_Kustomization",
            ],
            json!({"observedGeneration": 1, "conditions": [
                {"type": "Stalled", "status": "True", "reason": "HealthCheckFailed", "message": "stalled"}]}),
        ),
        kustomization(
            "other",
            &["shop_orders_pacto.trianalab.io_Pacto"],
            json!({"observedGeneration": 1, "conditions": []}),
        ),
    ]
}

fn root() -> Value {
    kustomization(
        "apps",
        &[
            "_shop__Namespace",
            "shop_orders_apps_Deployment",
            "flux-system_child_kustomize.toolkit.fluxcd.io_Kustomization",
            "flux-system_other_kustomize.toolkit.fluxcd.io_Kustomization",
            "shop_gone__ConfigMap",
        ],
        json!({"observedGeneration": 1}),
    )
}

/// `Kind/name health rule deciding note`, indented two spaces per level.
fn lines(t: &TreeNode, level: usize, out: &mut Vec<String>) {
    out.push(format!(
        "{}{}/{} {} {} {}{}",
        "  ".repeat(level),
        t.kind,
        t.name,
        t.health,
        t.rule,
        if t.deciding { "deciding" } else { "-" },
        t.note
            .as_deref()
            .map(|n| format!(" [{n}]"))
            .unwrap_or_default()
    ));
    for c in &t.children {
        lines(c, level + 1, out);
    }
}

fn rendered(t: &TreeNode) -> Vec<String> {
    let mut out = Vec::new();
    lines(t, 0, &mut out);
    out
}

#[test]
fn a_kustomization_tree_nests_its_child_kustomizations_with_their_gate() {
    let t = kustomization_tree(&root(), &live(), 0, None).unwrap();
    assert_eq!(
        rendered(&t),
        [
            "Kustomization/apps WouldFail wait (spec.wait: the inventory) -",
            "  Namespace/shop Current kstatus -",
            "  Deployment/orders InProgress kstatus -",
            "  Kustomization/child Failed kstatus deciding",
            "    Pacto/payments Failed healthCheckExprs[0] deciding",
            "    Kustomization/apps Current kstatus - [shown above]",
            "  Kustomization/other Current kstatus -",
            "    Pacto/orders Current healthCheckExprs[0] -",
            "  ConfigMap/gone NotFound none -",
        ]
    );
    // What Flux prints at the first poll names the Failed object only (ssa WaitForSetWithContext).
    assert!(
        t.message
            .contains("Kustomization/flux-system/child status: 'Failed'"),
        "{}",
        t.message
    );
    assert_eq!(count(&t), 9);
}

#[test]
fn depth_stops_the_expansion_and_says_so() {
    let t = kustomization_tree(&root(), &live(), 0, Some(1)).unwrap();
    let got = rendered(&t);
    assert_eq!(got.len(), 6, "{got:?}");
    assert_eq!(
        got[3],
        "  Kustomization/child Failed kstatus deciding [not expanded: depth]"
    );
    assert_eq!(
        got[4],
        "  Kustomization/other Current kstatus - [not expanded: depth]"
    );
}

#[test]
fn a_child_missing_from_the_live_objects_is_a_leaf_that_says_so() {
    let without_child: Vec<Value> = live()
        .into_iter()
        .filter(|o| o["metadata"]["name"] != "child")
        .collect();
    let t = kustomization_tree(&root(), &without_child, 0, None).unwrap();
    let got = rendered(&t);
    // A NotFound object holds the wait to its timeout (ssa: not every object Current), and
    // the timeout's message names every object not Current.
    assert_eq!(
        got[3],
        "  Kustomization/child NotFound none deciding [not among the live objects]"
    );
    assert_eq!(t.health, "WouldTimeOut");
}

#[test]
fn an_application_tree_nests_its_child_applications() {
    let engine = ArgoHealth::new(
        parse_configmap(&json!({"kind": "ConfigMap", "data": {}})).unwrap(),
        None,
        0,
    );
    let child = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "payments", "namespace": "argocd"},
        "status": {"health": {"status": "Degraded"}, "resources": [
            {"group": "pacto.trianalab.io", "version": "v1alpha1", "kind": "Pacto", "namespace": "shop",
             "name": "payments", "health": {"status": "Degraded", "message": "contract violated"}},
            {"group": "argoproj.io", "version": "v1alpha1", "kind": "Application", "namespace": "argocd",
             "name": "root"}]}});
    let root = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "root", "namespace": "argocd"},
        "status": {"resources": [
            {"version": "v1", "kind": "Service", "namespace": "shop", "name": "orders",
             "health": {"status": "Healthy"}},
            {"group": "argoproj.io", "version": "v1alpha1", "kind": "Application", "namespace": "argocd",
             "name": "payments", "health": {"status": "Degraded"}},
            {"group": "pacto.trianalab.io", "version": "v1alpha1", "kind": "Pacto", "namespace": "shop",
             "name": "payments", "health": {"status": "Progressing", "message": "pending"}}]}});
    let live = vec![root.clone(), child];
    let t = application_tree(&root, &live, &engine, None).unwrap();
    let got = rendered(&t);
    // The live child Application has no health check without Argo CD's built-in scripts: it
    // does not count, so the root's worst counted health is the recorded Progressing Pacto.
    assert_eq!(
        got,
        [
            "Application/root Progressing setApplicationHealth -",
            "  Service/orders Healthy recorded in status.resources -",
            "  Application/payments - no health check -",
            "    Pacto/payments Degraded recorded in status.resources deciding",
            "    Application/root - no health check - [shown above]",
            "  Pacto/payments Progressing recorded in status.resources deciding",
        ]
    );
    assert!(
        t.message
            .starts_with("Caused by pacto.trianalab.io/Pacto:shop/payments"),
        "{}",
        t.message
    );
}

/// A HelmRelease in a Kustomization's inventory is expanded with the objects of its latest
/// release, read from its Helm storage Secret (flux2 `cmd/flux/tree_kustomization.go`), each
/// judged as helm-controller's wait judges it (`internal/action/wait.go`: the release's
/// `healthCheckExprs`, a paused Deployment left out); without its Secret, the node says so.
#[test]
fn a_helmrelease_is_expanded_with_its_release() {
    use base64::Engine as _;
    let manifest = "apiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: web}\n---\n\
                    apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: canary}\nspec: {paused: true}\n";
    let b64 = base64::engine::general_purpose::STANDARD;
    let release = json!({"name": "web", "version": 2, "manifest": manifest}).to_string();
    let secret = json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "sh.helm.release.v1.web.v2", "namespace": "shop"},
        "data": {"release": b64.encode(b64.encode(release))}});
    let hr = json!({"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
        "metadata": {"name": "web", "namespace": "shop", "generation": 1},
        "spec": {"healthCheckExprs": [{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "failed": PACTO_EXPRS, "current": "status.contractStatus == 'Compliant'"}]},
        "status": {"observedGeneration": 1, "storageNamespace": "shop",
            "conditions": [{"type": "Ready", "status": "True", "reason": "UpgradeSucceeded"}],
            "history": [{"name": "web", "namespace": "shop", "version": 2, "action": "upgrade"}]}});
    let pacto = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "web", "namespace": "shop"}, "status": {"contractStatus": "NonCompliant"}});
    let root = kustomization(
        "apps",
        &["shop_web_helm.toolkit.fluxcd.io_HelmRelease"],
        json!({}),
    );
    let live = vec![hr.clone(), secret, pacto.clone()];
    let t = kustomization_tree(&root, &live, 0, None).unwrap();
    assert_eq!(
        rendered(&t),
        [
            "Kustomization/apps Ready wait (spec.wait: the inventory) -",
            "  HelmRelease/web Current kstatus -",
            "    Pacto/web Failed healthCheckExprs[0] deciding",
            "    Deployment/canary - not waited -",
        ]
    );
    let t = kustomization_tree(&root, &[hr, pacto], 0, None).unwrap();
    assert_eq!(
        t.children[0].note.as_deref(),
        Some(
            "its Helm storage Secret shop/sh.helm.release.v1.web.v2 is not among the live objects"
        )
    );
}

/// The health words read as kubectl tree and flux tree users read them: Healthy/Current/Ready
/// good (green on a terminal), Progressing/InProgress/WouldTimeOut pending (yellow),
/// Degraded/Failed/WouldFail bad (red).
#[test]
fn health_words_have_the_tone_of_what_they_mean() {
    let t = kustomization_tree(&root(), &live(), 0, None).unwrap();
    let mut tones: Vec<(String, Tone)> = Vec::new();
    fn walk(t: &TreeNode, out: &mut Vec<(String, Tone)>) {
        out.push((t.health.clone(), t.tone));
        for c in &t.children {
            walk(c, out);
        }
    }
    walk(&t, &mut tones);
    for (health, tone) in tones {
        let want = match health.as_str() {
            "Current" | "Ready" | "Healthy" => Tone::Good,
            "InProgress" | "WouldTimeOut" | "Progressing" => Tone::Pending,
            "Failed" | "WouldFail" | "Degraded" | "NotFound" => Tone::Bad,
            "-" => Tone::Plain,
            other => panic!("a health word the table does not name: {other}"),
        };
        assert_eq!(tone, want, "{health}");
    }
}
