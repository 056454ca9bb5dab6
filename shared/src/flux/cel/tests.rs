//! Behaviours of Flux's CEL environment beyond fluxcd/pkg's own tests (those are in
//! `shared/tests/flux_cel_conformance.rs`): cel-go semantics that cel 0.15 lacks or differs on.

use super::*;
use serde_json::json;
use std::time::Duration;

fn eval(src: &str, obj: Json) -> Result<Json, String> {
    Expression::parse(src)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
        .evaluate(&obj)
}

fn err(src: &str, obj: Json) -> String {
    let e = eval(src, obj).expect_err(src);
    let prefix = format!("failed to evaluate the CEL expression '{src}': ");
    e.strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{e}"))
        .to_string()
}

#[test]
fn integers_are_int_and_add_to_ints() {
    let obj = json!({"status": {"replicas": 3, "ratio": 2.0, "neg": -1}});
    assert_eq!(
        eval("type(status.replicas) == int", obj.clone()),
        Ok(json!(true))
    );
    assert_eq!(eval("status.replicas + 1", obj.clone()), Ok(json!(4)));
    assert_eq!(
        eval("type(status.ratio) == double", obj.clone()),
        Ok(json!(true))
    );
    assert_eq!(eval("status.neg * 2", obj), Ok(json!(-2)));
}

#[test]
fn missing_attributes_name_the_select_chain() {
    assert_eq!(
        err("has(data.foo.bar)", json!({})),
        "no such attribute(s): data.foo.bar"
    );
    assert_eq!(
        err("status.conditions[0].type == 'Ready'", json!({})),
        "no such attribute(s): status.conditions"
    );
    assert_eq!(
        err("status['conditions'].size() > 0", json!({})),
        "no such attribute(s): status.conditions"
    );
    assert_eq!(err("x", json!({})), "no such attribute(s): x");
    // a comprehension variable is not an attribute of the object
    assert_eq!(
        eval("[{'a': 1}].all(status, status.a == 1)", json!({})),
        Ok(json!(true))
    );
    // type names and function namespaces are not variables
    assert_eq!(eval("type(1) == int", json!({})), Ok(json!(true)));
    assert_eq!(
        eval("optional.none().hasValue()", json!({})),
        Ok(json!(false))
    );
}

#[test]
fn selection_errors_are_cel_go_texts() {
    let obj = json!({"status": {"conditions": [{"type": "Ready"}], "phase": "Running"}});
    assert_eq!(err("status.foo", obj.clone()), "no such key: foo");
    assert_eq!(err("status.phase.foo", obj.clone()), "no such key: foo");
    assert_eq!(
        err("status.conditions.type", obj.clone()),
        "unsupported index type 'string' in list"
    );
    assert_eq!(
        err("status.conditions[3]", obj.clone()),
        "index out of bounds: 3"
    );
    assert_eq!(
        err("status.conditions[0].status", obj.clone()),
        "no such key: status"
    );
    // has() on a scalar is false, as cel-go without errorOnBadPresenceTest
    assert_eq!(eval("has(status.phase.foo)", obj.clone()), Ok(json!(false)));
    assert_eq!(eval("has(status.foo)", obj), Ok(json!(false)));
}

#[test]
fn logical_operators_keep_the_first_error() {
    let obj = json!({"status": {}});
    assert_eq!(
        err("status.a == 1 && status.b == 1", obj.clone()),
        "no such key: a"
    );
    assert_eq!(
        err("status.a == 1 || status.b == 1", obj.clone()),
        "no such key: a"
    );
    assert_eq!(
        eval("status.a == 1 && false", obj.clone()),
        Ok(json!(false))
    );
    assert_eq!(eval("status.a == 1 || true", obj.clone()), Ok(json!(true)));
    assert_eq!(
        eval("false && status.a == 1", obj.clone()),
        Ok(json!(false))
    );
    assert_eq!(err("'a' && true", obj.clone()), "no such overload");
    let list = json!({"items": [{"x": 1}, {}, {"y": 2}]});
    assert_eq!(
        err("items.all(i, i.x == 1)", list.clone()),
        "no such key: x"
    );
    assert_eq!(eval("items.exists(i, has(i.y))", list), Ok(json!(true)));
    // all()/exists() absorb an element's error when another element decides
    assert_eq!(
        eval("[{'x': 2}, {}].all(i, i.x == 1)", json!({})),
        Ok(json!(false))
    );
    assert_eq!(
        eval("[{}, {'x': 2}].all(i, i.x == 1)", json!({})),
        Ok(json!(false))
    );
    assert_eq!(
        eval("[{'x': 1}, {}].exists(i, i.x == 1)", json!({})),
        Ok(json!(true))
    );
    assert_eq!(
        eval("[{}, {'x': 1}].exists(i, i.x == 1)", json!({})),
        Ok(json!(true))
    );
    assert_eq!(
        err("[{}, {'x': 1}].all(i, i.x == 1)", json!({})),
        "no such key: x"
    );
    assert_eq!(
        err(
            "[{'x': 1}, {'y': 1}, {'z': 1}].all(i, i.x == 1 && i.y == 1)",
            json!({})
        ),
        "no such key: y"
    );
}

#[test]
fn flux_extensions() {
    let obj = json!({"spec": {"a": ["x", "y"], "b": ["y"]}});
    for (src, want) in [
        ("sets.contains(spec.a, spec.b)", json!(true)),
        ("sets.contains(spec.b, spec.a)", json!(false)),
        ("sets.equivalent(spec.a, ['y', 'x', 'x'])", json!(true)),
        ("sets.intersects(spec.a, spec.b)", json!(true)),
        ("sets.contains([1], [1.0, 1u])", json!(true)),
        ("spec.a.first().value()", json!("x")),
        ("spec.a.last().value()", json!("y")),
        ("[].first().hasValue()", json!(false)),
        ("[optional.of(1), optional.none()].unwrapOpt()", json!([1])),
        (
            "optional.unwrap([optional.none(), optional.of('a')])",
            json!(["a"]),
        ),
        ("spec.?c.orValue('none')", json!("none")),
        ("'A-b'.lowerAscii().split('-')", json!(["a", "b"])),
        ("base64.encode(b'hi')", json!("aGk=")),
        ("{'a': 1, 'a': 2}.a", json!(2)),
        ("1 < 1.5 && 2u > 1", json!(true)),
        (
            "timestamp('2020-01-01T10:00:00+02:00').getHours()",
            json!(8),
        ),
        (
            "timestamp('2020-01-01T10:00:00+02:00').getHours('+02:00')",
            json!(10),
        ),
        ("duration('3h').getHours()", json!(3)),
    ] {
        assert_eq!(eval(src, obj.clone()), Ok(want), "{src}");
    }
    assert_eq!(err("[1].unwrapOpt()", json!({})), "value 1 is not optional");
}

#[test]
fn parse_errors_read_as_flux_and_cel_go() {
    assert_eq!(
        Expression::parse("foo.").unwrap_err(),
        "failed to parse the CEL expression 'foo.': ERROR: <input>:1:5: Syntax error: no viable \
         alternative at input '.'\n | foo.\n | ....^"
    );
    assert!(Expression::parse("has(status)")
        .unwrap_err()
        .contains("invalid argument to has() macro"));
    assert_eq!(
        Expression::parse("foo()").unwrap_err(),
        "failed to create CEL program: no such overload: foo()"
    );
    assert!(Expression::parse("optional.none()").is_ok());
}

#[test]
fn overload_errors_are_cel_go_texts() {
    assert_eq!(err("1 + 'a'", json!({})), "no such overload");
    assert_eq!(err("size(1)", json!({})), "no such overload: size");
    assert_eq!(
        err("'a'.contains(1)", json!({})),
        "no such overload: contains(string, int)"
    );
    assert_eq!(err("1 / 0", json!({})), "division by zero");
    assert_eq!(err("1 % 0", json!({})), "modulus by zero");
    assert_eq!(
        err("9223372036854775807 + 1", json!({})),
        "integer overflow"
    );
}

#[test]
fn runaway_comprehensions_are_bounded() {
    let ten = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";
    let src = format!(
        "{ten}.all(a, {ten}.all(b, {ten}.all(c, {ten}.all(d, {ten}.all(e, {ten}.all(f, \
         {ten}.all(g, true)))))))"
    );
    // 10^7 iterations: far more than the budget
    let e = Expression::parse(&src).unwrap();
    assert_eq!(e.limits().max_iterations, DEFAULT_MAX_ITERATIONS);
    let small = e.clone().with_limits(Limits {
        max_iterations: 10_000,
        deadline: None,
        ..Limits::default()
    });
    let got = small.eval_bool(&json!({})).unwrap_err();
    assert!(
        got.contains(
            "operation interrupted: kubectl-pacto's bound on comprehension iterations (10000, \
             Limits::max_iterations) was hit; Flux evaluates CEL without this bound"
        ),
        "{got}"
    );
    let timed = e.with_limits(Limits {
        max_iterations: u64::MAX,
        deadline: Some(Duration::from_millis(50)),
        ..Limits::default()
    });
    let got = timed.eval_bool(&json!({})).unwrap_err();
    assert!(
        got.contains("kubectl-pacto's bound on evaluation time (50ms, Limits::deadline) was hit"),
        "{got}"
    );
    // small expressions are not affected
    assert_eq!(
        eval(
            &format!("{ten}.map(x, x * 2).filter(x, x > 10).size()"),
            json!({})
        ),
        Ok(json!(4))
    );
}

#[test]
fn generation_guard_needs_two_integers() {
    let ev = StatusEvaluator::new("true", "", "").unwrap();
    let status = |obj: Json| ev.evaluate(&obj).map(|r| r.status);
    assert_eq!(
        status(json!({"metadata": {"generation": 1}, "status": {"observedGeneration": -1}})),
        Ok(KStatus::InProgress)
    );
    assert_eq!(
        status(json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 2.0}})),
        Ok(KStatus::Current)
    );
    assert_eq!(
        status(json!({"metadata": {"generation": 3}, "status": {"observedGeneration": "3"}})),
        Ok(KStatus::Current)
    );
    assert_eq!(
        status(json!({"status": {"observedGeneration": 5}})),
        Ok(KStatus::Current)
    );
    // The guard is "the two differ" (status_evaluator.go), not "observed is behind": an
    // observedGeneration ahead of the generation holds too.
    assert_eq!(
        status(json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 3}})),
        Ok(KStatus::InProgress)
    );
}

/// fluxcd/pkg `runtime/cel` status_evaluator_test.go, "all three true means InProgress": the
/// expressions are tried inProgress, failed, current, and the first true wins; with failed and
/// current both true, Failed.
#[test]
fn the_first_true_expression_wins_in_flux_order() {
    let obj = json!({"metadata": {"generation": 1}, "status": {"observedGeneration": 1}});
    for ((current, failed, in_progress), want) in [
        (("true", "true", "true"), KStatus::InProgress),
        (("true", "true", "false"), KStatus::Failed),
        (("false", "true", "true"), KStatus::InProgress),
        (("true", "false", "true"), KStatus::InProgress),
        (("true", "", "true"), KStatus::InProgress),
        (("true", "true", ""), KStatus::Failed),
        (("false", "false", "false"), KStatus::InProgress),
    ] {
        let ev = StatusEvaluator::new(current, failed, in_progress).unwrap();
        assert_eq!(
            ev.evaluate(&obj).map(|r| r.status),
            Ok(want),
            "current={current} failed={failed} inProgress={in_progress}"
        );
    }
}

/// fluxcd/pkg `runtime/cel` `StatusEvaluator.Evaluate`: the generation guard first, then
/// inProgress, failed, current; none true is InProgress. `evaluate_why` says which decided.
#[test]
fn what_decided_a_verdict() {
    use super::{Decided, StatusEvaluator};
    let ev = StatusEvaluator::new(
        "status.phase == 'Ready'",
        "status.phase == 'Broken'",
        "status.phase == 'Busy'",
    )
    .unwrap();
    let obj = |phase: &str, observed: i64| serde_json::json!({"metadata": {"generation": 2}, "status": {"phase": phase, "observedGeneration": observed}});
    for (phase, observed, want) in [
        ("Ready", 2, Decided::Current),
        ("Broken", 2, Decided::Failed),
        ("Busy", 2, Decided::InProgress),
        ("Other", 2, Decided::NoneTrue),
        (
            "Ready",
            1,
            Decided::GenerationGuard {
                observed: 1,
                generation: 2,
            },
        ),
    ] {
        let (_, decided) = ev.evaluate_why(&obj(phase, observed)).unwrap();
        assert_eq!(decided, want, "{phase} {observed}");
    }
    assert_eq!(Decided::Failed.describe(), "the failed expression is true");
}
