//! `kubectl pacto explain`, offline (-f) on every fixture and against the fake API server: the
//! cluster's argocd-cm and the Kustomization holding the Pacto, warnings when no gate applies, and
//! the recommended gate when the cluster's cannot be read. Verdicts are checked against
//! `tests/fixtures/pacto-expected.yaml` (transcribed from the Pacto domain reference, section 5);
//! golden outputs live in `tests/fixtures/pacto/golden/explain*/`.

use super::*;
use fake_apiserver::{Fault, FaultAction};

#[test]
fn explain_of_every_fixture_matches_its_golden_and_the_reference_verdicts() {
    let expected: Vec<Value> =
        serde_saphyr::from_str(&std::fs::read_to_string(fixture("pacto-expected.yaml")).unwrap())
            .unwrap();
    let files = fixture_files(&pacto_dir());
    assert!(files.len() >= 25, "{} fixtures", files.len());
    let home = tempfile::tempdir().unwrap();
    for f in &files {
        let file = f.file_name().unwrap().to_str().unwrap();
        let e = expected
            .iter()
            .find(|e| e["file"] == file)
            .unwrap_or_else(|| panic!("{file} has no entry in expected.yaml"));
        let mut args = vec!["explain", "-f", s(f)];
        if e["gate"] == "warning-blocks" {
            args.push("--warning-blocks");
        }
        let r = run(&mut cmd(home.path(), &args));
        r.assert_code(0).assert_no_panic();
        let argo = format!(
            "{}: {}",
            e["argo"]["status"].as_str().unwrap(),
            e["argo"]["message"].as_str().unwrap()
        );
        assert_eq!(
            field(&r.stdout, "Argo CD"),
            Some(argo.as_str()),
            "{file}:\n{}",
            r.stdout
        );
        let flux = field(&r.stdout, "Flux").unwrap_or_default();
        assert_eq!(
            flux.split(':').next(),
            e["flux"].as_str(),
            "{file}:\n{}",
            r.stdout
        );
        if e["schema"] != "n/a" {
            let shape = field(&r.stdout, "Status shape").unwrap();
            assert!(
                shape.starts_with(e["schema"].as_str().unwrap()),
                "{file}: shape {shape}"
            );
            let verdict = field(&r.stdout, "Verdict").unwrap();
            let want = e["verdict"].as_str().unwrap();
            assert_eq!(
                verdict,
                if want.is_empty() { "<none>" } else { want },
                "{file}"
            );
        }
        golden(
            &format!("explain/{}.txt", file.trim_end_matches(".yaml")),
            &r.stdout,
        );
    }
}

#[test]
fn explain_from_the_cluster_uses_its_argocd_cm_and_the_kustomization_holding_the_pacto() {
    let c = shop();
    for name in ["gift-cards", "orders", "fulfillment-worker"] {
        let r = c.run(&["explain", &format!("pacto/{name}")]);
        r.assert_code(0).assert_no_panic();
        golden(&format!("explain-live/{name}.txt"), &r.stdout);
    }
    let r = c.run(&["explain", "pacto/gift-cards"]);
    assert_eq!(
        field(&r.stdout, "Rule"),
        Some("health script for pacto.trianalab.io/Pacto from argocd-cm argocd/argocd-cm")
    );
    assert!(
        r.stdout.contains(
            "Rule:             healthCheckExprs of Kustomization flux-system/shop-staging\n"
        ),
        "{}",
        r.stdout
    );
    // orders is in no inventory: Flux gates nothing for it, and says what the recommended gate
    // would decide.
    let r = c.run(&["explain", "pacto/orders"]);
    assert_eq!(
        field(&r.stdout, "Flux"),
        Some("no Kustomization of the cluster applies it")
    );
    assert!(
        r.stdout.contains("Gate:             none (Flux gates nothing here; the recommended gate would read it Current)"),
        "{}",
        r.stdout
    );
}

#[test]
fn explain_warns_when_no_gate_is_configured() {
    let c = Cluster::new("shop");
    c.insert_files(&[pacto_dir().join("09-noncompliant-warning-before-error.yaml")]);
    c.server.insert(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": "argocd"},
        "data": {"resource.customizations.health.pacto.trianalab.io_pacto": "return {status = 'Healthy'}"}}));
    c.server.insert(serde_json::json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "apps", "namespace": "flux-system"},
        "spec": {"wait": true, "interval": "1m", "timeout": "5m"},
        "status": {"inventory": {"entries": [{"id": "shop_fulfillment-worker_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}}}));
    let r = c.run(&["explain", "pacto/fulfillment-worker"]);
    r.assert_code(0);
    assert_eq!(
        field(&r.stdout, "Argo CD"),
        Some("no health check for pacto.trianalab.io/Pacto")
    );
    assert_eq!(
        field(&r.stdout, "Flux"),
        Some("Current: Resource is current")
    );
    assert_eq!(
        field(&r.stdout, "Warning"),
        Some("no gate is configured for this object: Argo CD has no health check for it and Flux does not evaluate its verdict; the gate gates nothing")
    );
    let g = c.run(&["get"]);
    assert!(
        g.stdout.lines().nth(1).unwrap().contains(" none "),
        "{}",
        g.stdout
    );
}

#[test]
fn an_unreadable_argocd_cm_falls_back_to_the_recommended_gate_and_says_why() {
    let c = shop();
    c.server.fault(Fault::always(
        "/configmaps/argocd-cm",
        FaultAction::Status(403),
    ));
    let r = c.run(&["explain", "pacto/gift-cards"]);
    r.assert_code(0);
    let rule = field(&r.stdout, "Rule").unwrap();
    assert!(
        rule.starts_with("health script for pacto.trianalab.io/Pacto from recommended gate (argocd-cm not readable: forbidden: you may not get configmaps in namespace \"argocd\": "),
        "{rule}"
    );
}

#[test]
fn explain_reads_a_codertemplatetest_from_the_cluster() {
    let c = shop();
    c.insert_files(&[pacto_dir().join("25-ctt-failed-deadline-exceeded.yaml")]);
    let name = read_yaml(&pacto_dir().join("25-ctt-failed-deadline-exceeded.yaml"))["metadata"]
        ["name"]
        .as_str()
        .unwrap()
        .to_string();
    let r = c.run(&["explain", &format!("codertemplatetest/{name}")]);
    r.assert_code(0);
    assert!(
        field(&r.stdout, "Argo CD")
            .unwrap()
            .starts_with("Degraded: DeadlineExceeded: "),
        "{}",
        r.stdout
    );
    // No Kustomization applies it in this cluster.
    assert_eq!(
        field(&r.stdout, "Flux"),
        Some("no Kustomization of the cluster applies it")
    );
    assert!(
        r.stdout
            .contains("the recommended gate would read it Failed)"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_broken_argocd_cm_in_the_cluster_is_reported_not_hidden() {
    let c = Cluster::new("shop");
    c.insert_files(&[pacto_dir().join("03-compliant.yaml")]);
    c.server
        .insert(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": "argocd"},
        "data": {"resource.customizations.useOpenLibs.pacto.trianalab.io_Pacto": "maybe"}}));
    let r = c.run(&["explain", "pacto/orders"]);
    r.assert_code(0);
    assert!(
        field(&r.stdout, "Argo CD")
            .unwrap()
            .starts_with("the configuration cannot be loaded: "),
        "{}",
        r.stdout
    );
    let g = c.run(&["get"]);
    assert!(
        g.stdout
            .lines()
            .nth(1)
            .unwrap()
            .contains(" argo:fail flux:none "),
        "{}",
        g.stdout
    );
}

#[test]
fn a_pacto_flux_does_not_read_still_holds_on_an_unobserved_generation() {
    // Kustomization without an expression for Pacto: kstatus decides. It never reads the
    // verdict, but it does wait for the operator to observe the generation.
    let c = Cluster::new("shop");
    c.insert_files(&[pacto_dir().join("20-noncompliant-stale-generation.yaml")]);
    c.server.insert(serde_json::json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "apps", "namespace": "flux-system"},
        "spec": {"wait": true, "interval": "1m"},
        "status": {"inventory": {"entries": [{"id": "shop_billing_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}}}));
    let r = c.run(&["explain", "pacto/billing"]);
    r.assert_code(0);
    let flux = field(&r.stdout, "Flux").unwrap();
    assert!(
        flux.starts_with("InProgress: Pacto generation is 5, but latest observed generation is 4"),
        "{flux}"
    );
    let gate = r
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("Gate:"))
        .nth(1)
        .unwrap();
    assert!(
        gate.contains("hold (Kustomization flux-system/apps waits, then fails with a timeout"),
        "{gate}"
    );
    let why = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("Why:"))
        .unwrap();
    assert!(why.contains("never from contractStatus"), "{why}");
    // A Pacto carrying a Stalled condition: kstatus reads that (not the verdict) and fails it.
    let mut stalled = read_yaml(&pacto_dir().join("03-compliant.yaml"));
    stalled["status"]["conditions"] = serde_json::json!([{"type": "Stalled", "status": "True", "reason": "Broken", "message": "bad"}]);
    let c = Cluster::new("shop");
    c.server.insert(stalled);
    c.server.insert(serde_json::json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "apps", "namespace": "flux-system"},
        "spec": {"wait": true, "interval": "1m"},
        "status": {"inventory": {"entries": [{"id": "shop_orders_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}}}));
    let r = c.run(&["explain", "pacto/orders"]);
    assert_eq!(
        field(&r.stdout, "Flux"),
        Some("Failed: bad"),
        "{}",
        r.stdout
    );
    assert!(
        field(&r.stdout, "Warning").is_none_or(|w| !w.contains("Flux")),
        "{}",
        r.stdout
    );
}

/// `--customizations-dir` gives explain Argo CD's built-in scripts, as it gives them to
/// `health`: a kind such a script judges is no longer reported as unjudged.
#[test]
fn explain_takes_builtin_scripts_from_customizations_dir() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = dir.path().join("scripts/example.com/Widget");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(
        scripts.join("health.lua"),
        "return {status = \"Degraded\", message = \"built in\"}\n",
    )
    .unwrap();
    let obj = dir.path().join("w.yaml");
    std::fs::write(
        &obj,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\n",
    )
    .unwrap();
    let without = run(&mut cmd(dir.path(), &["explain", "-f", s(&obj)]));
    without.assert_code(0);
    assert_eq!(
        field(&without.stdout, "Argo CD"),
        Some("no health check for example.com/Widget")
    );
    let with = run(&mut cmd(
        dir.path(),
        &[
            "explain",
            "-f",
            s(&obj),
            "--customizations-dir",
            s(&dir.path().join("scripts")),
        ],
    ));
    with.assert_code(0);
    assert_eq!(field(&with.stdout, "Argo CD"), Some("Degraded: built in"));
    assert!(
        field(&with.stdout, "Gate").unwrap().starts_with("fail"),
        "{}",
        with.stdout
    );
}
