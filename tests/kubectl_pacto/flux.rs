//! The Flux side of `kubectl pacto health`. Expected values: seed 000 (a Kustomization without
//! healthCheckExprs reports a NonCompliant Pacto healthy: kstatus ignores Pacto's conditions and
//! falls through to Current), fluxcd/pkg `runtime/cel` and `ssa/manager_wait.go` as recorded in
//! shared/reference/flux-health.md §2.

use crate::common::{pacto, run, s};

const NONCOMPLIANT: &str = "apiVersion: pacto.trianalab.io/v1alpha1
kind: Pacto
metadata: {name: payments, namespace: shop, generation: 2}
status:
  contractStatus: NonCompliant
  observedGeneration: 2
  findings:
  - {code: INTERFACE_ABSENT, severity: error, category: interface, message: no port}
";

fn kustomization(dir: &std::path::Path, exprs: &str) -> std::path::PathBuf {
    let p = dir.join("ks.yaml");
    std::fs::write(
        &p,
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: shop, namespace: flux-system}}
spec:
  interval: 1m
  timeout: 5m
  wait: true
{exprs}"
        ),
    )
    .unwrap();
    p
}

fn object(dir: &std::path::Path) -> std::path::PathBuf {
    let p = dir.join("pacto.yaml");
    std::fs::write(&p, NONCOMPLIANT).unwrap();
    p
}

/// Seed 000: without healthCheckExprs the NonCompliant Pacto is Current, so the gate gates nothing.
#[test]
fn without_expressions_a_noncompliant_pacto_passes() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(dir.path(), "");
    let obj = object(dir.path());
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&obj),
        "--kustomization",
        s(&ks),
        "-o",
        "json",
    ]));
    r.assert_code(0).assert_no_panic();
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["items"][0]["flux"]["status"], "Current");
    assert_eq!(v["items"][0]["flux"]["source"], "kstatus");
    assert_eq!(v["items"][0]["argo"], serde_json::Value::Null);
    assert_eq!(v["summary"]["flux"]["verdict"], "Passes");
}

/// With the gate, the Pacto is Failed and the wait fails early with ssa's list format.
#[test]
fn with_expressions_the_wait_fails_early() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(
        dir.path(),
        "  healthCheckExprs:
  - apiVersion: pacto.trianalab.io/v1alpha1
    kind: Pacto
    failed: status.contractStatus == 'NonCompliant'
    current: status.contractStatus == 'Compliant'
",
    );
    let obj = object(dir.path());
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&obj),
        "--kustomization",
        s(&ks),
    ]));
    r.assert_code(0);
    assert!(
        r.stdout.contains(
            "failed early due to stalled resources: [Pacto/shop/payments status: 'Failed']"
        ),
        "{}",
        r.stdout
    );
}

/// Argo and Flux disagree on a Pacto with no status under kstatus: Argo's gate holds it
/// (Progressing), kstatus's fail-open rule makes it Current.
#[test]
fn disagreement_is_marked() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(dir.path(), "");
    let obj = dir.path().join("fresh.yaml");
    std::fs::write(
        &obj,
        "apiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: fresh, namespace: shop, generation: 1}\n",
    )
    .unwrap();
    let cm = crate::common::repo().join("examples/argocd-cm.yaml");
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&obj),
        "--kustomization",
        s(&ks),
        "--argocd-cm",
        s(&cm),
    ]));
    r.assert_code(0);
    let row = r.stdout.lines().nth(1).unwrap();
    assert!(
        row.contains("Progressing") && row.contains("Current") && row.contains('≠'),
        "{row}"
    );
}

/// status_reader.go: two entries for one GroupKind are a configuration error.
#[test]
fn duplicate_entries_are_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(
        dir.path(),
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: 'true'}
  - {apiVersion: pacto.trianalab.io/v1, kind: Pacto, current: 'false'}
",
    );
    let obj = object(dir.path());
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&obj),
        "--kustomization",
        s(&ks),
    ]));
    r.assert_code(1).assert_no_panic();
    assert!(r.stderr.contains("InvalidCELExpression"), "{}", r.stderr);
    assert!(
        r.stderr.contains("duplicate custom health check for GroupKind Pacto.pacto.trianalab.io at healthchecks[1]"),
        "{}",
        r.stderr
    );
}

/// A string observedGeneration skips the generation guard (pkg runtime v0.105.0+).
#[test]
fn string_observed_generation_skips_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(
        dir.path(),
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: \"status.observedGeneration == '2'\"}
",
    );
    let obj = dir.path().join("p.yaml");
    std::fs::write(
        &obj,
        "apiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: p, namespace: shop, generation: 1}\nstatus: {observedGeneration: '2'}\n",
    )
    .unwrap();
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&obj),
        "--kustomization",
        s(&ks),
        "-o",
        "json",
    ]));
    r.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["items"][0]["flux"]["status"], "Current");
}

/// kustomization_controller.go: an expression that does not parse stops the reconcile with
/// `InvalidCELExpression` (status_evaluator.go wraps it as `failed to parse the expression ...`).
#[test]
fn an_expression_that_does_not_parse_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(
        dir.path(),
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: 'status.contractStatus =='}
",
    );
    let obj = object(dir.path());
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&obj),
        "--kustomization",
        s(&ks),
    ]));
    r.assert_code(1).assert_no_panic();
    assert!(r.stderr.contains("InvalidCELExpression"), "{}", r.stderr);
    assert!(
        r.stderr.contains("failed to parse the expression Current: failed to parse the CEL expression 'status.contractStatus =='"),
        "{}",
        r.stderr
    );
}

/// expression.go: a result that is not a bool is an evaluation error, so the object is Unknown.
#[test]
fn an_expression_that_is_not_a_bool_makes_the_object_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(
        dir.path(),
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: 'status.contractStatus'}
",
    );
    let obj = object(dir.path());
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&obj),
        "--kustomization",
        s(&ks),
        "-o",
        "json",
    ]));
    r.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["items"][0]["flux"]["status"], "Unknown");
    assert_eq!(
        v["items"][0]["flux"]["error"],
        "failed to evaluate CEL expression as boolean: 'status.contractStatus'"
    );
    assert_eq!(v["summary"]["flux"]["verdict"], "TimesOut");
}

/// A runaway expression over a huge list is bounded: the object becomes Unknown, the run ends.
#[test]
fn a_runaway_expression_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kustomization(
        dir.path(),
        "  healthCheckExprs:
  - apiVersion: pacto.trianalab.io/v1alpha1
    kind: Pacto
    current: \"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, [1,2,3,4,5,6,7,8,9,10].all(g, a > 0)))))))\"
",
    );
    let obj = object(dir.path());
    let r = crate::common::run_with(
        &mut pacto(&[
            "health",
            "-f",
            s(&obj),
            "--kustomization",
            s(&ks),
            "-o",
            "json",
        ]),
        None,
        std::time::Duration::from_secs(60),
    );
    r.assert_code(0).assert_no_panic();
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["items"][0]["flux"]["status"], "Unknown");
    assert!(
        v["items"][0]["flux"]["error"]
            .as_str()
            .unwrap_or("")
            .contains("operation interrupted"),
        "{}",
        r.stdout
    );
}
