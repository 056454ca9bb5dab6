//! The Flux side of `kubectl pacto health`. Expected values: "GitOps promotion gates" (a
//! Kustomization without healthCheckExprs reports a NonCompliant Pacto healthy: kstatus ignores
//! Pacto's conditions and falls through to Current), fluxcd/pkg `runtime/cel/status_evaluator.go`,
//! `runtime/cel/status_reader.go` and `ssa/manager_wait.go` (docs/upstream.md, "Flux health").

use crate::common::{pacto, run, run_with, s, Run, DEADLINE};
use serde_json::Value;
use std::time::Duration;

const NONCOMPLIANT: &str = "apiVersion: pacto.trianalab.io/v1alpha1
kind: Pacto
metadata: {name: payments, namespace: shop, generation: 2}
status:
  contractStatus: NonCompliant
  observedGeneration: 2
  findings:
  - {code: INTERFACE_ABSENT, severity: error, category: interface, message: no port}
";

/// Runs `kubectl pacto health` on `object` (YAML) with a Kustomization (wait: true, timeout 5m)
/// whose spec ends with `exprs`, plus `extra` arguments.
fn health(exprs: &str, object: &str, extra: &[&str], deadline: Duration) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let ks = dir.path().join("ks.yaml");
    std::fs::write(
        &ks,
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
    let obj = dir.path().join("object.yaml");
    std::fs::write(&obj, object).unwrap();
    let mut args = vec!["health", "-f", s(&obj), "--kustomization", s(&ks)];
    args.extend_from_slice(extra);
    run_with(&mut pacto(&args), None, deadline)
}

/// The same, with `-o json`, exit 0 asserted and the report parsed.
fn report(exprs: &str, object: &str, deadline: Duration) -> (Run, Value) {
    let r = health(exprs, object, &["-o", "json"], deadline);
    r.assert_code(0).assert_no_panic();
    let v = serde_json::from_str(&r.stdout).unwrap();
    (r, v)
}

/// "GitOps promotion gates", "Flux": without healthCheckExprs the NonCompliant Pacto is Current, so
/// the gate gates nothing.
#[test]
fn without_expressions_a_noncompliant_pacto_passes() {
    let (_, v) = report("", NONCOMPLIANT, DEADLINE);
    assert_eq!(v["items"][0]["flux"]["status"], "Current");
    assert_eq!(v["items"][0]["flux"]["source"], "kstatus");
    assert_eq!(v["items"][0]["argo"], Value::Null);
    assert_eq!(v["summary"]["flux"]["verdict"], "Passes");
}

/// With the gate, the Pacto is Failed and the wait fails early with ssa's list format.
#[test]
fn with_expressions_the_wait_fails_early() {
    let r = health(
        "  healthCheckExprs:
  - apiVersion: pacto.trianalab.io/v1alpha1
    kind: Pacto
    failed: status.contractStatus == 'NonCompliant'
    current: status.contractStatus == 'Compliant'
",
        NONCOMPLIANT,
        &[],
        DEADLINE,
    );
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
    let cm = crate::common::repo().join("examples/argocd-cm.yaml");
    let r = health(
        "",
        "apiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: fresh, namespace: shop, generation: 1}\n",
        &["--argocd-cm", s(&cm)],
        DEADLINE,
    );
    r.assert_code(0);
    let t = &r.stdout;
    assert_eq!(crate::common::cell(t, 0, "ARGO"), "Progressing", "{t}");
    assert_eq!(crate::common::cell(t, 0, "FLUX"), "Current", "{t}");
    assert_eq!(crate::common::cell(t, 0, "DIFF"), "≠", "{t}");
}

/// status_reader.go: two entries for one GroupKind are a configuration error.
#[test]
fn duplicate_entries_are_a_configuration_error() {
    let r = health(
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: 'true'}
  - {apiVersion: pacto.trianalab.io/v1, kind: Pacto, current: 'false'}
",
        NONCOMPLIANT,
        &[],
        DEADLINE,
    );
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
    let (_, v) = report(
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: \"status.observedGeneration == '2'\"}
",
        "apiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: p, namespace: shop, generation: 1}\nstatus: {observedGeneration: '2'}\n",
        DEADLINE,
    );
    assert_eq!(v["items"][0]["flux"]["status"], "Current");
}

/// kustomization_controller.go: an expression that does not parse stops the reconcile with
/// `InvalidCELExpression` (status_evaluator.go wraps it as `failed to parse the expression ...`).
#[test]
fn an_expression_that_does_not_parse_is_a_configuration_error() {
    let r = health(
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: 'status.contractStatus =='}
",
        NONCOMPLIANT,
        &[],
        DEADLINE,
    );
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
    let (_, v) = report(
        "  healthCheckExprs:
  - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: 'status.contractStatus'}
",
        NONCOMPLIANT,
        DEADLINE,
    );
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
    let (r, v) = report(
        "  healthCheckExprs:
  - apiVersion: pacto.trianalab.io/v1alpha1
    kind: Pacto
    current: \"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, [1,2,3,4,5,6,7,8,9,10].all(g, a > 0)))))))\"
",
        NONCOMPLIANT,
        Duration::from_secs(60),
    );
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

/// `--flux-version` (and `KUBECTL_PACTO_FLUX_VERSION`): two entries for one kind are the first
/// entry's before Flux v2.8 (fluxcd/pkg `runtime/cel` `PollerWithCustomHealthChecks`) and stall
/// the Kustomization from v2.8 (`NewStatusReader`'s duplicate error); a version outside 2.5..2.9
/// is refused before anything is read.
#[test]
fn flux_version_emulates_the_release() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.yaml");
    std::fs::write(
        &k,
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: shop, namespace: flux-system}\n\
         spec:\n  interval: 10m\n  wait: true\n  healthCheckExprs:\n\
         \x20   - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: \"status.contractStatus == 'Compliant'\", failed: \"status.contractStatus == 'NonCompliant'\"}\n\
         \x20   - {apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, current: \"true\"}\n",
    )
    .unwrap();
    let objects = crate::common::repo().join("examples/objects");
    let base = [
        "health",
        "-f",
        s(&objects),
        "--kustomization",
        s(&k),
        "-o",
        "json",
    ];
    let old = run(&mut pacto(
        &[&base[..], &["--flux-version", "2.7"]].concat(),
    ));
    old.assert_no_panic().assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&old.stdout).unwrap();
    let payments = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["ref"]["name"] == "payments")
        .unwrap_or_else(|| panic!("{}", old.stdout));
    assert_eq!(payments["flux"]["status"], "Failed", "{payments}");
    let mut env = pacto(&base);
    env.env("KUBECTL_PACTO_FLUX_VERSION", "v2.7.3");
    let via_env = run(&mut env);
    assert_eq!(via_env.stdout, old.stdout);
    let new = run(&mut pacto(&base));
    new.assert_code(1);
    assert!(
        new.stderr.contains("duplicate custom health check for GroupKind Pacto.pacto.trianalab.io at healthchecks[1]"),
        "{}",
        new.stderr
    );
    let bad = run(&mut pacto(
        &[&base[..], &["--flux-version", "2.4"]].concat(),
    ));
    bad.assert_code(1);
    assert_eq!(
        bad.stderr,
        "error: --flux-version \"2.4\": Flux before v2.5 has no healthCheckExprs (kustomize-controller v1.5.0 added them)\n"
    );
}
