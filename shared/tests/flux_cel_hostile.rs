//! Hostile `healthCheckExprs`: each ends (an `Unknown` verdict naming the bound that was hit, or
//! an expression refused when it is parsed) instead of aborting the process or running for
//! minutes. Flux's cel-go refuses expressions over 100,000 code points and nested deeper than
//! 250 (parser defaults, cel-go `parser/parser.go`); it bounds nothing else, so the other
//! errors say that the bound is kubectl-pacto's and Flux has none.

use pacto_gates::flux::cel::{Expression, Limits, StatusEvaluator};
use pacto_gates::flux::health::{FluxHealth, JobOrder};
use pacto_gates::flux::kustomization::HealthCheckExpr;
use pacto_gates::flux::KStatus;
use serde_json::{json, Value};

fn verdict(current: &str, obj: &Value) -> (KStatus, String) {
    let entry = HealthCheckExpr {
        index: 0,
        api_version: "example.com/v1".to_string(),
        kind: "Thing".to_string(),
        current: current.to_string(),
        failed: String::new(),
        in_progress: String::new(),
    };
    let health = FluxHealth::new(&[entry], JobOrder::ExpressionsFirst, 0).expect("parses");
    let v = health.evaluate(obj);
    (v.status, v.error.unwrap_or_default())
}

fn thing(status: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
           "status": status})
}

const FLUX_HAS_NONE: &str = "Flux evaluates CEL without this bound";

fn without_deadline() -> Limits {
    Limits {
        deadline: None,
        ..Limits::default()
    }
}

fn nine_replaces() -> String {
    // 10 bytes times 10 nine times over: 10 GB
    let mut src = "'aaaaaaaaaa'".to_string();
    for _ in 0..9 {
        src.push_str(".replace('a','aaaaaaaaaa')");
    }
    format!("size({src}) > 0")
}

#[test]
fn nine_replaces_end_unknown() {
    // the memory bound, or in a slow (debug) build the deadline first
    let (status, error) = verdict(&nine_replaces(), &thing(json!({})));
    assert_eq!(status, KStatus::Unknown);
    assert!(error.contains("kubectl-pacto's bound on"), "{error}");
    assert!(error.contains(FLUX_HAS_NONE), "{error}");
    // a replace within the bound still works
    let (status, _) = verdict("'ab'.replace('a', 'xy') == 'xyb'", &thing(json!({})));
    assert_eq!(status, KStatus::Current);
}

#[test]
fn nine_replaces_hit_the_memory_bound() {
    let e = Expression::parse_with_limits(&nine_replaces(), without_deadline()).unwrap();
    let error = e.eval_bool(&json!({})).unwrap_err();
    assert!(
        error.contains(
            "kubectl-pacto's bound on memory one evaluation produces (67108864 bytes, \
             Limits::max_alloc_bytes) was hit"
        ),
        "{error}"
    );
}

#[test]
fn doubling_strings_hit_the_memory_bound() {
    // each level doubles the string: 100 kB times 2^20
    let mut src = "size(s) > 0".to_string();
    for i in (0..20).rev() {
        src = format!("[x{i} + x{i}].all(s, {src})").replace("(s,", &format!("(x{},", i + 1));
    }
    let src = src.replacen("[x0 + x0]", "[status.s + status.s]", 1);
    let src = src.replace("size(s)", "size(x20)");
    let e = Expression::parse_with_limits(&src, without_deadline()).unwrap();
    let error = e
        .eval_bool(&json!({"status": {"s": "x".repeat(100_000)}}))
        .unwrap_err();
    assert!(error.contains("Limits::max_alloc_bytes"), "{src}: {error}");
}

#[test]
fn a_100000_link_chain_is_refused_by_cel_gos_length_limit() {
    let src = format!("status{}", ".a".repeat(100_000));
    let err = StatusEvaluator::new(&src, "", "").unwrap_err();
    assert!(
        err.ends_with(
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 200006, limit 100000"
        ),
        "{}",
        &err[err.len().saturating_sub(200)..]
    );
}

#[test]
fn a_deep_chain_within_the_length_is_refused_by_the_depth_bound() {
    let src = format!("status{} == 1", ".a".repeat(40_000));
    let err = Expression::parse(&src).unwrap_err();
    assert!(
        err.contains("over kubectl-pacto's bound of 250 (Limits::max_depth)"),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
    // nested brackets and index chains too
    let src = format!("{}1{}", "[".repeat(30_000), "]".repeat(30_000));
    assert!(Expression::parse(&src)
        .unwrap_err()
        .contains("Limits::max_depth"));
    let src = format!("status{}", "[0]".repeat(20_000));
    assert!(Expression::parse(&src)
        .unwrap_err()
        .contains("Limits::max_depth"));
    // a chain of 200 selections is fine
    let src = format!("has(status{}.b)", ".a".repeat(200));
    assert!(Expression::parse(&src).is_ok());
}

#[test]
fn a_4000_term_concatenation_is_refused_by_the_depth_bound() {
    let src = format!("size({}) > 0", vec!["status.list"; 4000].join(" + "));
    let err = StatusEvaluator::new(&src, "", "").unwrap_err();
    assert!(
        err.contains("Limits::max_depth"),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
}

#[test]
fn concatenations_inside_loops_end_unknown() {
    let list: Vec<i64> = (0..100).collect();
    let sum = vec!["status.list"; 100].join(" + ");
    let src = format!("status.list.all(a, status.list.all(b, size({sum}) > 0))");
    let obj = thing(json!({ "list": list }));
    let (status, error) = verdict(&src, &obj);
    assert_eq!(status, KStatus::Unknown);
    assert!(error.contains("kubectl-pacto's bound on"), "{error}");
    assert!(error.contains(FLUX_HAS_NONE), "{error}");
    let e = Expression::parse_with_limits(&src, without_deadline()).unwrap();
    let error = e.eval_bool(&obj).unwrap_err();
    assert!(error.contains("Limits::max_alloc_bytes"), "{error}");
}

#[test]
fn the_deadline_stops_long_evaluations() {
    let list: Vec<i64> = (0..100).collect();
    let src = "status.list.all(a, status.list.all(b, status.list.all(c, a + b + c >= 0)))";
    let e = Expression::parse(src).unwrap().with_limits(Limits {
        deadline: Some(std::time::Duration::from_millis(1)),
        max_iterations: u64::MAX,
        ..Limits::default()
    });
    let err = e.eval_bool(&json!({"status": {"list": list}})).unwrap_err();
    assert!(
        err.contains("kubectl-pacto's bound on evaluation time (1ms, Limits::deadline) was hit"),
        "{err}"
    );
}

#[test]
fn the_bounds_can_be_raised() {
    let mut src = "'aaaaaaaaaa'".to_string();
    for _ in 0..5 {
        src.push_str(".replace('a','aaaaaaaaaa')");
    }
    // a million bytes: over a 100 kB bound, under the default one
    let src = format!("size({src}) == 1000000");
    let small = Limits {
        max_alloc_bytes: 100_000,
        ..Limits::default()
    };
    let e = Expression::parse_with_limits(&src, small).unwrap();
    assert!(e
        .eval_bool(&json!({}))
        .unwrap_err()
        .contains("(100000 bytes, Limits::max_alloc_bytes)"));
    assert_eq!(
        Expression::parse(&src).unwrap().eval_bool(&json!({})),
        Ok(true)
    );
    // a longer expression under a raised length bound
    let long = format!("{}1 == 1", "0 + ".repeat(0));
    let raised = Limits {
        max_expression_length: 10,
        ..Limits::default()
    };
    assert!(Expression::parse_with_limits(&format!("{long} && true"), raised).is_err());
    assert!(Expression::parse_with_limits("1 == 1", raised).is_ok());
}

#[test]
fn expressions_just_within_the_depth_bound_evaluate() {
    // nested comprehensions and a long sum, as deep as the bounds let through: no stack overflow
    let mut src = "true".to_string();
    let mut levels = 0;
    loop {
        let next = format!("[{levels}].all(x{levels}, {src})");
        if Expression::parse(&next).is_err() {
            break;
        }
        src = next;
        levels += 1;
    }
    assert!(levels >= 60, "{levels} levels");
    assert_eq!(
        Expression::parse(&src).unwrap().eval_bool(&json!({})),
        Ok(true)
    );
    let mut terms = 1;
    while Expression::parse(&vec!["1"; terms + 1].join(" + ")).is_ok() {
        terms += 1;
    }
    assert!(terms >= 200, "{terms} terms");
    let sum = format!("{} == {terms}", vec!["1"; terms].join(" + "));
    let sum = if Expression::parse(&sum).is_ok() {
        sum
    } else {
        format!("{} > 0", vec!["1"; terms - 2].join(" + "))
    };
    assert_eq!(
        Expression::parse(&sum).unwrap().eval_bool(&json!({})),
        Ok(true)
    );
}
