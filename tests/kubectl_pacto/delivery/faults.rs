//! What goes wrong: a cluster without Argo CD or without Flux (a note, the conditions still
//! computed), a kind the user may not read (named with its verb and resource, the condition that
//! needs it Unknown), no delivery CRD at all (an error), and malformed objects (a verdict naming
//! the field, never a panic).

use super::*;
use fake_apiserver::{Fault, FaultAction};

#[test]
fn no_argo_cd_is_a_note_and_the_conditions_are_still_computed() {
    let c = Cluster::new(Installed {
        flux: true,
        argo: false,
    });
    let note = "note: Applications (argoproj.io) are not installed in this cluster: none apply\n";
    let r = c.run(&["get", "stages", "-A"]);
    r.assert_code(0);
    assert_eq!(r.stderr, note);
    assert_eq!(cell(&r.stdout, 2, "READY"), "True");
    assert_eq!(cell(&r.stdout, 2, "MEDIATED"), "True");
    // Discovery says no: the applications are never listed.
    assert!(!c.requests().iter().any(|p| p.ends_with("/applications")));
    let e = c.run(&["explain", "stage/payments"]);
    e.assert_code(0);
    assert_eq!(e.stderr, note);
    assert_eq!(
        field(&e.stdout, "Note"),
        Some("Applications (argoproj.io) are not installed in this cluster: none apply")
    );
    assert_eq!(
        field(&e.stdout, "Mediated"),
        Some("True PointerDecides: the pointer alone decides what runs: one labelled applier, scoped, with no overrides")
    );
}

#[test]
fn no_flux_is_a_note_and_the_conditions_are_still_computed() {
    let c = Cluster::new(Installed {
        flux: false,
        argo: true,
    });
    let r = c.run(&["get", "stages", "-A"]);
    r.assert_code(0);
    assert_eq!(
        r.stderr,
        "note: OCIRepositories (source.toolkit.fluxcd.io) are not installed in this cluster: none apply\n\
         note: Kustomizations (kustomize.toolkit.fluxcd.io) are not installed in this cluster: none apply\n"
    );
    // Without Flux the candidate repository does not exist.
    assert_eq!(cell(&r.stdout, 2, "READY"), "False");
    assert_eq!(cell(&r.stdout, 2, "REASON"), "CandidateNotFound");
    let e = c.run(&["explain", "stage/payments"]);
    e.assert_code(0);
    assert_eq!(e.stderr, r.stderr);
    assert_eq!(
        values(&e.stdout, "Note"),
        [
            "OCIRepositories (source.toolkit.fluxcd.io) are not installed in this cluster: none apply",
            "Kustomizations (kustomize.toolkit.fluxcd.io) are not installed in this cluster: none apply",
        ]
    );
}

/// A 403 on the Applications: named with its verb and resource; Mediated, which needs the
/// appliers, is Unknown; Ready, which does not, is still decided.
#[test]
fn a_forbidden_kind_is_named_and_makes_its_condition_unknown() {
    let c = Cluster::new(EVERYTHING);
    c.server
        .fault(Fault::always("/applications", FaultAction::Status(403)));
    let r = c.run(&["get", "stages", "-A"]);
    r.assert_code(0);
    assert!(
        r.stderr.starts_with(
            "note: Applications (argoproj.io) could not be read: forbidden: you may not list applications.argoproj.io in all namespaces: "
        ),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert_eq!(cell(&r.stdout, 2, "READY"), "True");
    assert_eq!(cell(&r.stdout, 2, "MEDIATED"), "Unknown");
    assert_eq!(cell(&r.stdout, 2, "REASON"), "Unreadable");
    let e = c.run(&["explain", "stage/payments"]);
    e.assert_code(0);
    let mediated = field(&e.stdout, "Mediated").unwrap();
    assert!(
        mediated.starts_with("Unknown Unreadable: Applications (argoproj.io) in namespace \"argocd\" could not be read: forbidden: you may not list applications.argoproj.io in namespace \"argocd\""),
        "{mediated}"
    );
    assert!(
        field(&e.stdout, "Appliers")
            .unwrap()
            .starts_with("unknown: "),
        "{}",
        e.stdout
    );
}

#[test]
fn without_the_delivery_crds_listing_stages_is_an_error() {
    let server = FakeApiServer::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("test"));
    for args in [
        vec!["get", "stages"],
        vec!["explain", "stage/payments"],
        vec!["get", "operations"],
    ] {
        let mut all = args.clone();
        all.extend(["--kubeconfig", s(&kubeconfig)]);
        let r = run(&mut cmd(dir.path(), &all));
        r.assert_code(1).assert_no_panic();
        let kind = if args[1].starts_with("stage") {
            "Stage"
        } else {
            "Operation"
        };
        assert_eq!(
            r.stderr,
            format!("error: the {kind} CRD is not installed in this cluster (the API server serves no {kind} in delivery.pacto.trianalab.io/v1alpha1)\n"),
            "{args:?}"
        );
    }
}

#[test]
fn a_stage_without_spec_gets_a_verdict_naming_the_field() {
    let file = arg("bad/stage-without-spec.yaml");
    let r = offline(&["get", "stages", "-f", &file]);
    r.assert_code(0).assert_no_panic();
    assert_eq!(cell(&r.stdout, 0, "READY"), "False");
    assert_eq!(cell(&r.stdout, 0, "MEDIATED"), "False");
    assert_eq!(cell(&r.stdout, 0, "REASON"), "NoCandidateSource");
    let e = offline(&["explain", "-f", &file]);
    e.assert_code(0).assert_no_panic();
    assert!(
        field(&e.stdout, "NoCandidateSource").is_some_and(|v| v.starts_with(
            "the Stage names no candidate source (spec has neither upstreamStage nor ociRepositoryRef)"
        )),
        "{}",
        e.stdout
    );
    assert_eq!(field(&e.stdout, "Field"), Some("spec"));
}

#[test]
fn an_operation_of_an_unknown_type_is_named() {
    let e = offline(&["explain", "-f", &arg("bad/operation-unknown-type.yaml")]);
    e.assert_code(0).assert_no_panic();
    let phase = field(&e.stdout, "Phase").unwrap();
    assert!(
        phase.contains("spec.type \"deploy\" is not one of the six operation types"),
        "{phase}"
    );
    let g = offline(&[
        "get",
        "operations",
        "-f",
        &arg("bad/operation-unknown-type.yaml"),
    ]);
    g.assert_code(0);
    assert_eq!(cell(&g.stdout, 0, "TYPE"), "deploy");
    assert_eq!(cell(&g.stdout, 0, "PHASE"), "<none>");
}

#[test]
fn a_kustomization_without_a_source_kind_is_not_counted_and_says_why() {
    let e = offline(&[
        "explain",
        "stage/payments",
        "-f",
        &arg("bad/sourceref-without-kind.yaml"),
    ]);
    e.assert_code(0).assert_no_panic();
    let not_counted = field(&e.stdout, "Not counted").unwrap();
    assert!(
        not_counted.starts_with("Kustomization test/payments: spec.sourceRef names the apply OCIRepository but has no kind"),
        "{not_counted}"
    );
    assert_eq!(field(&e.stdout, "Appliers"), Some("0"));
}

/// Objects that are not what a Stage should be: wrong types, a list where a map belongs, a
/// Stage with no name. Each is read, never a panic.
#[test]
fn malformed_stages_never_panic() {
    let home = tempfile::tempdir().unwrap();
    let text = "apiVersion: delivery.pacto.trianalab.io/v1alpha1\nkind: Stage\nmetadata: {name: a, namespace: test}\nspec: [1, 2]\nstatus: {conditions: 3, pointer: 7}\n---\napiVersion: delivery.pacto.trianalab.io/v1alpha1\nkind: Stage\nmetadata: {namespace: test, creationTimestamp: soon}\nspec: {applyRef: {name: {x: 1}}, candidates: {upstreamStage: {name: a}}}\n---\napiVersion: delivery.pacto.trianalab.io/v1alpha1\nkind: Operation\nmetadata: {name: o, namespace: test}\nspec: {type: 5}\nstatus: {phase: Held, verdicts: [1, {gate: 2}]}\n";
    let path = home.path().join("odd.yaml");
    std::fs::write(&path, text).unwrap();
    let file = s(&path);
    for args in [
        vec!["get", "stages", "-f", file],
        vec!["get", "stages", "-f", file, "-o", "wide"],
        vec!["get", "operations", "-f", file],
        vec!["explain", "-f", file],
        vec!["explain", "-f", file, "-o", "json"],
    ] {
        let r = run(&mut cmd(home.path(), &args));
        r.assert_code(0).assert_no_panic();
    }
    let e = run(&mut cmd(home.path(), &["explain", "stage/a", "-f", file]));
    assert_eq!(
        field(&e.stdout, "Field error"),
        Some("spec: expected a map, found a list"),
        "{}",
        e.stdout
    );
}

/// A Stage whose upstream Stage is named `../x` or `a?watch=true` (or in the namespace
/// `../kube-system`): `get stages` and `explain stage/NAME` send no request carrying that name,
/// and say the upstream could not be read, in client-go's words.
#[test]
fn an_upstream_stage_that_is_not_a_name_is_never_asked_for() {
    for (upstream, words) in [
        (
            serde_json::json!({"name": "../x", "namespace": "test"}),
            "invalid resource name \"../x\": [may not contain '/']",
        ),
        (
            serde_json::json!({"name": "a?watch=true", "namespace": "test"}),
            "invalid resource name \"a?watch=true\": [a lowercase RFC 1123 subdomain",
        ),
        (
            serde_json::json!({"name": "x", "namespace": "../kube-system"}),
            "invalid namespace \"../kube-system\": [may not contain '/']",
        ),
    ] {
        let c = Cluster::new(EVERYTHING);
        let mut stage = c
            .server
            .get(
                "delivery.pacto.trianalab.io/v1alpha1",
                "Stage",
                Some("prod"),
                "payments",
            )
            .unwrap();
        stage["spec"]["candidates"] = serde_json::json!({"upstreamStage": upstream});
        c.server.insert(stage);
        for args in [
            &["get", "stages", "-n", "prod"][..],
            &["explain", "stage/payments", "-n", "prod"][..],
        ] {
            let r = c.run(args);
            assert!(
                r.stderr.contains(words),
                "{upstream} {args:?}: {}",
                r.stderr
            );
        }
        for q in c.server.requests() {
            let line = format!("{} {}?{}", q.method, q.path, q.query);
            assert_eq!(q.method, "GET", "{line}");
            for text in ["..", "watch=true", "kube-system", "/x"] {
                assert!(!line.contains(text), "{upstream}: {line}");
            }
        }
    }
}
