//! `get stages`, `explain stage` and `wait stage` as a user whom RBAC lets read one namespace
//! (and list Argo CD's Applications): they read only the namespaces they need, as `kubectl get
//! stages -n NS` does, and where a Stage's reference leads to a namespace the user may not read
//! (an upstream Stage, a candidate OCIRepository), they name the refused request in the API
//! server's words (what kubectl prints after `Error from server (Forbidden): `) and decide the
//! rest. The audit log holds what they asked. The expected names and refusals come from the
//! real `kubectl` run as the same user.

use super::*;
use serde_json::json;

const STAGES: &str = "stages.delivery.pacto.trianalab.io";

/// A Stage `name` of service payments applied from the OCIRepository `name`, taking its
/// candidates from `candidates` (`spec.candidates`).
fn stage(name: &str, candidates: Value) -> Value {
    json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
        "metadata": {"name": name},
        "spec": {"service": {"name": "payments"}, "environment": "test",
            "applyRef": {"name": name}, "candidates": candidates, "startLevel": "advise"}})
}

/// The apply OCIRepository and the Kustomization of the Stage `name`, labelled for it, the
/// Kustomization running as a namespaced deployer (examples/delivery/flux-payments.yaml).
fn appliers(name: &str) -> [Value; 2] {
    [
        json!({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
            "metadata": {"name": name, "labels": {"delivery.pacto.trianalab.io/apply-ref": name}},
            "spec": {"interval": "5m", "url": "oci://registry.example.com/apps/payments",
                "ref": {"digest": "sha256:5d41402abc4b2a76b9719d911017c592ae1b2c3d4e5f60718293a4b5c6d7e8f9"},
                "verify": {"provider": "cosign", "secretRef": {"name": "payments-publisher"}}}}),
        json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": name, "labels": {"delivery.pacto.trianalab.io/apply-ref": name}},
            "spec": {"interval": "1m", "path": "./test", "prune": true,
                "serviceAccountName": "payments-deployer",
                "sourceRef": {"kind": "OCIRepository", "name": name}}}),
    ]
}

/// A candidate OCIRepository verified by a cosign key.
fn candidates(name: &str) -> Value {
    json!({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
        "metadata": {"name": name},
        "spec": {"interval": "5m", "url": "oci://registry.example.com/apps/payments",
            "ref": {"semver": ">=0.0.0"},
            "verify": {"provider": "cosign", "secretRef": {"name": "payments-publisher"}}}})
}

/// What the API server says to the user for `kubectl ARGS`: the text kubectl prints after
/// `Error from server (Forbidden): `.
fn refusal(config: &Path, home: &Path, args: &[&str]) -> String {
    let r = user_kubectl(config, home, args);
    assert_eq!(r.code, Some(1), "{args:?}: {}{}", r.stdout, r.stderr);
    r.stderr
        .trim_end()
        .strip_prefix("Error from server (Forbidden): ")
        .unwrap_or_else(|| panic!("{args:?}: not a 403: {}", r.stderr))
        .to_string()
}

/// `kubectl ARGS` as the user of `config`.
fn user_kubectl(config: &Path, home: &Path, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend(["--kubeconfig", s(config)]);
    let mut c = Command::new(crate::kubectl_plugin::kubectl());
    c.args(&all)
        .env("HOME", home)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    run_with(&mut c, None, Duration::from_secs(60))
}

/// `kubectl-pacto ARGS` as the user of `config`.
fn user_pacto(config: &Path, home: &Path, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend(["--kubeconfig", s(config)]);
    let mut c = pacto(&all);
    c.env("HOME", home)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    let r = run_with(&mut c, None, Duration::from_secs(60));
    r.assert_no_panic();
    r
}

#[test]
fn a_user_of_one_namespace_reads_only_what_its_stages_need() {
    // The Flux and Argo CD CRDs of tests/fixtures/real/crds: a cluster of this test's own, so
    // that no other test sees them.
    let kube = kube_harness::Kube::start();
    apply_flux_and_argo_crds(&kube);
    let team = kube.namespace("team");
    let up = kube.namespace("upstream");
    let vendor = kube.namespace("vendor");
    let argo = kube.namespace("argocd");
    let [repo_p, kust_p] = appliers("payments");
    let [repo_s, kust_s] = appliers("solo");
    kube.apply(
        &team,
        &[
            stage(
                "payments",
                json!({"upstreamStage": {"name": "payments", "namespace": up}}),
            ),
            repo_p,
            kust_p,
            stage(
                "solo",
                json!({"ociRepositoryRef": {"name": "cands", "namespace": vendor}}),
            ),
            repo_s,
            kust_s,
        ],
    );
    kube.apply(
        &up,
        &[
            stage(
                "payments",
                json!({"ociRepositoryRef": {"name": "payments-candidates"}}),
            ),
            candidates("payments-candidates"),
        ],
    );
    kube.apply(&vendor, &[candidates("cands")]);
    let user = format!("--user={}", kube_harness::USER_NAME);
    let resources = format!(
        "--resource={STAGES},ocirepositories.source.toolkit.fluxcd.io,kustomizations.kustomize.toolkit.fluxcd.io,applications.argoproj.io"
    );
    kube.kubectl_ok(
        &[
            "create",
            "role",
            "delivery-reader",
            "-n",
            &team,
            "--verb=get,list,watch",
            &resources,
        ],
        None,
    );
    kube.kubectl_ok(
        &[
            "create",
            "rolebinding",
            "delivery-reader",
            "-n",
            &team,
            "--role=delivery-reader",
            &user,
        ],
        None,
    );
    kube.kubectl_ok(
        &[
            "create",
            "role",
            "apps",
            "-n",
            &argo,
            "--verb=list",
            "--resource=applications.argoproj.io",
        ],
        None,
    );
    kube.kubectl_ok(
        &[
            "create",
            "rolebinding",
            "apps",
            "-n",
            &argo,
            "--role=apps",
            &user,
        ],
        None,
    );
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("user-kubeconfig");
    kube.write_kubeconfig(&config, kube_harness::USER_TOKEN, Some(&team));
    let argocd_ns = format!("--argocd-namespace={argo}");

    // What kubectl itself lists for the user, and what it is refused.
    let listed = user_kubectl(&config, home.path(), &["get", STAGES, "-n", &team]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let names = user_kubectl(
        &config,
        home.path(),
        &["get", STAGES, "-n", &team, "-o", "name"],
    );
    assert_eq!(names.code, Some(0), "{}", names.stderr);
    let upstream_refused = refusal(
        &config,
        home.path(),
        &["get", STAGES, "payments", "-n", &up],
    );
    let vendor_refused = refusal(
        &config,
        home.path(),
        &[
            "get",
            "ocirepositories.source.toolkit.fluxcd.io",
            "-n",
            &vendor,
        ],
    );
    assert!(
        refusal(&config, home.path(), &["get", STAGES, "-A"]).contains("at the cluster scope"),
        "the user may not list Stages in every namespace"
    );

    let ours = user_pacto(
        &config,
        home.path(),
        &["get", "stages", "-n", &team, "-o", "name"],
    );
    ours.assert_code(0);
    assert_eq!(ours.stdout, names.stdout);
    let table = user_pacto(
        &config,
        home.path(),
        &["get", "stages", "-n", &team, &argocd_ns],
    );
    table.assert_code(0);
    assert_eq!(
        column(&table.stdout, "NAME"),
        column(&listed.stdout, "NAME")
    );
    // Neither candidate source can be read: Ready is Unknown, saying which request was
    // refused; Mediated, which needs only the Stage's namespace and Argo CD's, is decided.
    assert_eq!(
        column(&table.stdout, "READY"),
        ["Unknown", "Unknown"],
        "{}",
        table.stdout
    );
    assert_eq!(
        column(&table.stdout, "MEDIATED"),
        ["True", "True"],
        "{}",
        table.stdout
    );
    assert_eq!(
        column(&table.stdout, "REASON"),
        ["Unreadable", "Unreadable"]
    );
    let upstream_note = format!(
        "note: the upstream Stage {up}/payments could not be read: forbidden: you may not get {STAGES} in namespace \"{up}\": {upstream_refused}"
    );
    let vendor_note = format!(
        "note: OCIRepositories (source.toolkit.fluxcd.io) in namespace \"{vendor}\" could not be read: forbidden: you may not list ocirepositories.source.toolkit.fluxcd.io in namespace \"{vendor}\": {vendor_refused}"
    );
    let notes: Vec<&str> = table.stderr.lines().collect();
    assert_eq!(
        notes,
        [upstream_note.as_str(), vendor_note.as_str()],
        "{}",
        table.stderr
    );

    let explained = user_pacto(
        &config,
        home.path(),
        &["explain", "stage/payments", "-n", &team, &argocd_ns],
    );
    explained.assert_code(0);
    let ready = explained
        .stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("Ready:"))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no Ready line: {}", explained.stdout));
    assert_eq!(
        ready,
        format!(
            "Unknown Unreadable: {}",
            upstream_note.strip_prefix("note: ").unwrap()
        ),
        "{}",
        explained.stdout
    );

    // On a timeout, wait prints the same report.
    let waited = user_pacto(
        &config,
        home.path(),
        &[
            "wait",
            "stage/payments",
            "-n",
            &team,
            "--for",
            "condition=Ready",
            "--timeout",
            "1s",
            &argocd_ns,
        ],
    );
    waited.assert_code(1);
    assert_eq!(
        waited.stderr.lines().last(),
        Some("error: timed out after 1s waiting for condition=Ready=True on stage.delivery.pacto.trianalab.io/payments"),
        "{}",
        waited.stderr
    );
    assert_eq!(waited.stdout, explained.stdout);

    // What the commands asked the API server: nothing across every namespace, nothing in a
    // namespace no Stage names, and no refusal but the two references.
    let events: Vec<Value> = std::fs::read_to_string(kube.audit_log())
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| {
            e["user"]["username"] == kube_harness::USER_NAME
                && e["stage"] == "ResponseComplete"
                && e["objectRef"]["resource"].is_string()
                && e["userAgent"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("kubectl-pacto/"))
        })
        .collect();
    assert!(!events.is_empty());
    let allowed = [&team, &up, &vendor, &argo];
    for e in &events {
        let ns = e["objectRef"]["namespace"].as_str().unwrap_or("");
        assert!(
            allowed.iter().any(|a| a.as_str() == ns),
            "a request outside the namespaces the Stages name: {e}"
        );
        if e["responseStatus"]["code"] == 403 {
            let what = (
                e["verb"].as_str().unwrap(),
                e["objectRef"]["resource"].as_str().unwrap(),
                ns,
            );
            assert!(
                what == ("get", "stages", up.as_str())
                    || what == ("list", "ocirepositories", vendor.as_str()),
                "refused: {e}"
            );
        }
    }
}
