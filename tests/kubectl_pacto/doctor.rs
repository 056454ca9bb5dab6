//! `kubectl pacto doctor` and `kubectl pacto snippet` through the built binary: the examples are
//! clean, each break of tests/fixtures/broken is reported once with its object, the JSON report
//! carries every field, the exit codes follow the checks convention (0 clean, 1 findings, 2
//! could not run), and `--cluster` reads each kind once from the fake API server. Which finding
//! each configuration gives is table-tested in shared/src/doctor (testdata/cases.yaml).

use crate::common::*;
use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
use serde_json::{json, Value};
use std::time::Duration;

const NOW: &str = "2026-11-29T12:00:00Z";

fn doctor(args: &[&str]) -> Run {
    let mut all = vec!["doctor"];
    all.extend(args);
    let mut c = pacto(&all);
    c.env("KUBECTL_PACTO_NOW", NOW);
    run(&mut c)
}

fn json_of(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn the_examples_are_clean() {
    let r = doctor(&["-f", "examples"]);
    r.assert_code(0).assert_no_panic();
    let j = json_of(doctor(&["-f", "examples", "-o", "json"]).assert_code(0));
    let info = j["findings"].as_array().unwrap().len();
    assert!(
        r.stdout
            .ends_with(&format!("\n0 errors, 0 warnings, {info} info\n")),
        "{}",
        r.stdout
    );
    assert!(j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["severity"] == "info"));
}

#[test]
fn each_break_is_reported_once_naming_its_object() {
    let r = doctor(&["-f", "tests/fixtures/broken", "-o", "json"]);
    r.assert_code(1).assert_no_panic();
    let j = json_of(&r);
    assert_eq!(j["kind"], "DoctorReport");
    let got: Vec<String> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .map(|f| {
            format!(
                "{} {}",
                f["id"].as_str().unwrap(),
                f["object"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "A01 ConfigMap argocd/argocd-cm",
            "A03 ConfigMap argocd/argocd-cm",
            "F06 Kustomization flux-system/shop-prod",
            "F07 Kustomization flux-system/shop-prod",
            "F10 Kustomization flux-system/shop-prod",
            "S02 Kustomization ledger-test/ledger",
            "O01 Pacto shop/orders",
            "C03 CoderTemplateTest coder/docker-v3",
            "S01 OCIRepository ledger-test/ledger-candidates",
        ]
    );
    for f in j["findings"].as_array().unwrap() {
        for field in ["id", "severity", "object", "evidence", "finding", "fix"] {
            assert!(f[field].is_string(), "{field} missing: {f}");
        }
        assert!(!f["evidence"].as_str().unwrap().is_empty(), "{f}");
    }
    // The table groups the findings under their object and ends with the counts.
    let t = doctor(&["-f", "tests/fixtures/broken"]);
    t.assert_code(1);
    assert_eq!(cell(&t.stdout, 0, "ID"), "A01");
    assert_eq!(cell(&t.stdout, 0, "OBJECT"), "ConfigMap argocd/argocd-cm");
    assert_eq!(cell(&t.stdout, 1, "OBJECT"), "ConfigMap argocd/argocd-cm");
    // Info: the Warning knob (F08) and a Kustomization that may apply Pactos (F01).
    assert!(
        t.stdout.ends_with("\n7 errors, 2 warnings, 2 info\n"),
        "{}",
        t.stdout
    );
}

#[test]
fn could_not_run_exits_2() {
    let r = doctor(&[]);
    r.assert_code(2);
    assert_eq!(
        r.stderr,
        "error: nothing to check: give -f FILE|DIR, or --cluster\n"
    );
    let r = doctor(&["-f", "tests/fixtures/no-such-dir"]);
    r.assert_code(2).assert_no_panic();
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "kind: [unclosed\n").unwrap();
    let r = doctor(&["-f", s(&bad)]);
    r.assert_code(2).assert_no_panic();
    assert!(r.stderr.contains("bad.yaml"), "{}", r.stderr);
}

#[test]
fn snippets_are_the_examples() {
    let r = run(&mut pacto(&["snippet", "argocd"]));
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        std::fs::read_to_string(repo().join("examples/argocd-cm.yaml")).unwrap()
    );
    let r = run(&mut pacto(&[
        "snippet",
        "flux",
        "--for",
        "codertemplatetest",
    ]));
    r.assert_code(0);
    let entries: Value = serde_saphyr::from_str(&r.stdout).unwrap();
    assert_eq!(entries.as_array().unwrap().len(), 1);
    assert_eq!(entries[0]["kind"], "CoderTemplateTest");
    let r = run(&mut pacto(&[
        "snippet",
        "argocd",
        "--for",
        "pacto",
        "--warning-blocks",
    ]));
    r.assert_code(0);
    assert!(
        r.stdout.contains("local onWarning = \"Degraded\""),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("CoderTemplateTest:"), "{}", r.stdout);
    // What the snippet says to apply is what doctor finds clean.
    let dir = tempfile::tempdir().unwrap();
    let cm = dir.path().join("argocd-cm.yaml");
    std::fs::write(&cm, r.stdout).unwrap();
    let d = doctor(&["-f", s(&cm)]);
    d.assert_code(0);
}

/// `snippet flux --kustomization` prints a whole Kustomization, which `doctor -f` and `health
/// --kustomization` read (the bare entries are a list they refuse): with the example's flags,
/// the shipped example, whose header names that command.
#[test]
fn snippet_flux_kustomization_prints_a_whole_kustomization() {
    let example =
        std::fs::read_to_string(repo().join("examples/flux/kustomization-gated.yaml")).unwrap();
    let command = "kubectl pacto snippet flux --kustomization shop-staging --source OCIRepository/shop --path ./staging";
    assert!(
        example.contains(&format!("# `{command}`; a test keeps it equal.\n")),
        "{example}"
    );
    let args: Vec<&str> = command.split(' ').skip(2).collect();
    let r = run(&mut pacto(&args));
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        example.replace("`; a test keeps it equal.\n", "`.\n"),
        "{}",
        r.stderr
    );
    let r = run(&mut pacto(&[
        "snippet",
        "flux",
        "--kustomization",
        "web",
        "--for",
        "pacto",
    ]));
    r.assert_code(0);
    let k: Value = serde_saphyr::from_str(&r.stdout).unwrap();
    assert_eq!(k["kind"], "Kustomization");
    assert_eq!(k["metadata"]["name"], "web");
    assert_eq!(k["spec"]["sourceRef"]["name"], "flux-system");
    assert_eq!(k["spec"]["healthCheckExprs"].as_array().unwrap().len(), 1);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("web.yaml");
    std::fs::write(&file, &r.stdout).unwrap();
    let d = doctor(&["-f", s(&file)]);
    d.assert_code(0);
    let h = run(&mut pacto(&[
        "health",
        "-f",
        "examples/objects",
        "--kustomization",
        s(&file),
    ]));
    assert!(
        h.stdout.contains("Kustomization flux-system/web"),
        "{}\n{}",
        h.stdout,
        h.stderr
    );
    assert!(
        !h.stderr.contains("expected a Kubernetes object"),
        "{}",
        h.stderr
    );
    // Only for flux, and names as Kubernetes spells them.
    let r = run(&mut pacto(&["snippet", "argocd", "--kustomization", "web"]));
    r.assert_code(1);
    assert!(
        r.stderr.contains("--kustomization is for snippet flux"),
        "{}",
        r.stderr
    );
    let r = run(&mut pacto(&["snippet", "flux", "--kustomization", "Web_1"]));
    r.assert_code(1);
    assert!(
        r.stderr.contains("a Kubernetes name is lower-case"),
        "{}",
        r.stderr
    );
    let r = run(&mut pacto(&[
        "snippet",
        "flux",
        "--kustomization",
        "web",
        "--source",
        "git/x",
    ]));
    r.assert_code(1);
    assert!(
        r.stderr.contains("GitRepository, OCIRepository or Bucket"),
        "{}",
        r.stderr
    );
}

/// A fake cluster with the kinds doctor reads, the example gates and one broken Kustomization.
fn cluster() -> (FakeApiServer, tempfile::TempDir, std::path::PathBuf) {
    let server = FakeApiServer::start();
    server.register(Resource::pacto());
    server.register(Resource::new(
        "coder.com/v1alpha1",
        "CoderTemplateTest",
        "codertemplatetests",
        true,
        true,
    ));
    server.register(Resource::new(
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "kustomizations",
        true,
        true,
    ));
    server.register(Resource::new("v1", "Pod", "pods", true, true));
    let read = |p: &str| -> Value {
        serde_saphyr::from_str(&std::fs::read_to_string(repo().join(p)).unwrap()).unwrap()
    };
    let mut cm = read("examples/argocd-cm.yaml");
    cm["metadata"]["managedFields"] = json!([{"manager": "kubectl-patch", "operation": "Update", "apiVersion": "v1",
        "time": "2026-11-29T11:00:00Z", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:data": {"f:resource.customizations.health.pacto.trianalab.io_Pacto": {}}}}]);
    server.insert(cm);
    server.insert(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "argocd-application-controller-0", "namespace": "argocd",
                     "labels": {"app.kubernetes.io/name": "argocd-application-controller"}},
        "status": {"startTime": "2026-11-29T10:00:00Z"}}));
    server.insert(read("tests/fixtures/broken/kustomization.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("shop"));
    (server, dir, kubeconfig)
}

fn doctor_cluster(kubeconfig: &std::path::Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "doctor",
        "--cluster",
        "--kubeconfig",
        s(kubeconfig),
        "-o",
        "json",
    ];
    args.extend(extra);
    let mut c = pacto(&args);
    c.env("KUBECTL_PACTO_NOW", NOW).env_remove("KUBECONFIG");
    run_with(&mut c, None, Duration::from_secs(60))
}

#[test]
fn the_cluster_is_read_once_per_kind_and_a_late_restart_is_found() {
    let (server, _dir, kubeconfig) = cluster();
    let r = doctor_cluster(&kubeconfig, &[]);
    r.assert_code(1).assert_no_panic();
    let j = json_of(&r);
    let ids: Vec<&str> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"A08"), "{ids:?}");
    assert!(ids.contains(&"F06") && ids.contains(&"F07"), "{ids:?}");
    // Kinds that are not installed (HelmRelease, Stage, OCIRepository, Application) are notes.
    assert!(
        r.stderr
            .contains("note: Stage (delivery.pacto.trianalab.io): not installed in this cluster"),
        "{}",
        r.stderr
    );
    let requests = server.requests();
    let lists: Vec<String> = requests.iter().map(|q| q.path.clone()).collect();
    for kind in [
        "/pacto.trianalab.io/v1alpha1/pactos",
        "/kustomize.toolkit.fluxcd.io/v1/kustomizations",
        "/coder.com/v1alpha1/codertemplatetests",
        "/api/v1/namespaces/argocd/pods",
    ] {
        assert_eq!(
            requests
                .iter()
                .filter(|q| q.method == "GET" && q.path.ends_with(kind))
                .count(),
            1,
            "{kind}: {lists:#?}"
        );
    }
}

#[test]
fn a_forbidden_kind_is_not_checked_and_only_nothing_read_exits_2() {
    let (server, _dir, kubeconfig) = cluster();
    server.fault(Fault::always("/kustomizations", FaultAction::Status(403)));
    let r = doctor_cluster(&kubeconfig, &[]);
    r.assert_no_panic();
    assert!(
        r.stderr
            .contains("Kustomization (kustomize.toolkit.fluxcd.io) not checked: "),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("forbidden"), "{}", r.stderr);
    r.assert_code(1); // A08 is still found.
    server.clear_faults();
    server.fault(Fault::always("/", FaultAction::Status(403)));
    let r = doctor_cluster(&kubeconfig, &[]);
    r.assert_code(2).assert_no_panic();
    assert!(
        r.stderr
            .starts_with("error: nothing could be read from the cluster"),
        "{}",
        r.stderr
    );
}

/// With Argo CD absent (its ConfigMaps not found) and every kind forbidden, nothing was
/// checked: exit 2 naming what could not be read, as docs/doctor.md promises (it used to report
/// "0 errors, 0 warnings, 0 info" and exit 0). With the kinds simply not installed, the cluster
/// was checked and holds nothing to judge: exit 0.
#[test]
fn every_kind_forbidden_with_argo_cd_absent_exits_2() {
    let (server, _dir, kubeconfig) = cluster();
    assert!(
        server.remove("v1", "ConfigMap", Some("argocd"), "argocd-cm"),
        "the example argocd-cm was stored"
    );
    for plural in ["/pactos", "/codertemplatetests", "/kustomizations", "/pods"] {
        server.fault(Fault::always(plural, FaultAction::Status(403)));
    }
    let r = doctor_cluster(&kubeconfig, &[]);
    r.assert_code(2).assert_no_panic();
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr
            .starts_with("error: nothing could be read from the cluster:\nKustomization (kustomize.toolkit.fluxcd.io): "),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("\nPod: "), "{}", r.stderr);

    let empty = FakeApiServer::start();
    let dir = tempfile::tempdir().unwrap();
    let r = doctor_cluster(&empty.write_kubeconfig(dir.path(), None), &[]);
    r.assert_code(0).assert_no_panic();
    assert_eq!(json_of(&r)["findings"], json!([]), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("note: Pacto (pacto.trianalab.io): not installed in this cluster"),
        "{}",
        r.stderr
    );
}

/// docs/doctor.md's example on the broken set shows what doctor prints (exit 1, a text block
/// the console test does not run).
#[test]
fn the_docs_show_the_broken_report() {
    let readme = std::fs::read_to_string(repo().join("docs/doctor.md")).unwrap();
    let start = "```text\n$ kubectl pacto doctor -f tests/fixtures/broken\n";
    let at = readme
        .find(start)
        .expect("docs/doctor.md shows doctor on tests/fixtures/broken")
        + start.len();
    let shown = &readme[at..at + readme[at..].find("```").unwrap()];
    let r = doctor(&["-f", "tests/fixtures/broken"]);
    r.assert_code(1);
    assert_eq!(shown, r.stdout);
}

/// `doctor --cluster --context a,b` (and `--all-contexts`): each cluster checked at once, the
/// findings in one table under their context; one exit code for the run (the worst: 1 for a
/// cluster with errors, 2 when a context could not be checked).
#[test]
fn several_contexts_are_checked_into_one_report() {
    let (broken, _dir_a, _) = cluster();
    let clean = FakeApiServer::start();
    clean.register(Resource::pacto());
    clean.register(Resource::new("v1", "Pod", "pods", true, true));
    let cm: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(repo().join("examples/argocd-cm.yaml")).unwrap(),
    )
    .unwrap();
    clean.insert(cm);
    let dir = tempfile::tempdir().unwrap();
    let gone_url = crate::common::closed_url();
    let mut text = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for (name, url) in [
        ("broken", broken.url()),
        ("clean", clean.url()),
        ("gone", gone_url),
    ] {
        text += &format!("- name: {name}\n  cluster: {{server: {url:?}}}\n");
    }
    text += "users:\n- name: u\n  user: {token: t}\ncontexts:\n";
    for name in ["broken", "clean", "gone"] {
        text += &format!("- name: {name}\n  context: {{cluster: {name}, user: u}}\n");
    }
    let kc = dir.path().join("kubeconfig");
    std::fs::write(&kc, text).unwrap();

    let r = doctor_cluster(&kc, &["--context", "clean,broken"]);
    r.assert_no_panic().assert_code(1);
    let j = json_of(&r);
    let found: Vec<(&str, &str)> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["context"].as_str().unwrap(), f["id"].as_str().unwrap()))
        .collect();
    // The broken cluster's Kustomization findings are its own; the clean one has no error.
    assert!(found.contains(&("broken", "F06")), "{found:?}");
    assert!(
        !found
            .iter()
            .any(|(c, id)| *c == "clean" && id.starts_with('F')),
        "{found:?}"
    );
    let first_broken = found.iter().position(|(c, _)| *c == "broken").unwrap();
    assert!(
        found[..first_broken].iter().all(|(c, _)| *c == "clean"),
        "the contexts' order: {found:?}"
    );

    let mut c = pacto(&[
        "doctor",
        "--cluster",
        "--all-contexts",
        "--kubeconfig",
        s(&kc),
        "--timeout",
        "20s",
    ]);
    c.env("KUBECTL_PACTO_NOW", NOW).env_remove("KUBECONFIG");
    let t = run_with(&mut c, None, Duration::from_secs(60));
    t.assert_no_panic().assert_code(2);
    assert!(t.stdout.starts_with("CONTEXT "), "{}", t.stdout);
    let contexts: Vec<String> = (0..t.stdout.lines().count().saturating_sub(2))
        .map(|i| crate::common::cell(&t.stdout, i, "CONTEXT"))
        .filter(|c| !c.is_empty())
        .collect();
    assert!(
        contexts.iter().any(|c| c == "broken") && contexts.iter().any(|c| c == "clean"),
        "{}",
        t.stdout
    );
    let errors: Vec<&str> = t
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", t.stderr);
    assert!(
        errors[0].starts_with("error: context \"gone\": "),
        "{}",
        t.stderr
    );
}

/// A global flag refused before the command runs exits as the command's usage errors do: 2 for
/// doctor and reconcile (whose 1 means findings or work left), 1 for the others.
#[test]
fn a_refused_global_flag_exits_with_the_commands_usage_code() {
    for (args, code, want) in [
        (
            vec!["doctor", "--max-input-bytes", "0", "-f", "examples"],
            2,
            "error: --max-input-bytes \"0\": the size must be more than 0\n",
        ),
        (
            vec!["doctor", "--max-script-bytes", "abc", "-f", "examples"],
            2,
            "error: --max-script-bytes \"abc\": expected a size such as 1Gi, 512Mi or 1000000\n",
        ),
        (
            vec!["reconcile", "--once", "-A", "--max-input-bytes", "abc"],
            2,
            "error: --max-input-bytes \"abc\": expected a size such as 1Gi, 512Mi or 1000000\n",
        ),
        (
            vec!["health", "--max-input-bytes", "abc", "-f", "examples"],
            1,
            "error: --max-input-bytes \"abc\": expected a size such as 1Gi, 512Mi or 1000000\n",
        ),
    ] {
        let mut c = pacto(&args);
        c.current_dir(repo());
        let r = run(&mut c);
        r.assert_no_panic().assert_code(code);
        assert_eq!(r.stderr, want, "{args:?}");
    }
}
