//! Conformance of `pacto_gates::flux::cel` with the tests of fluxcd/pkg `runtime/cel`,
//! re-expressed as data in `shared/src/flux/cel/testdata/cases.yaml` (see its header). Every case is
//! run and all mismatches are reported together, by case name.
//!
//! The status reader cases (`status_reader_test.go`) go through the pieces this crate splits the
//! reader into: `flux::kustomization::Selector` (which entry covers a GroupKind, duplicates) and
//! `flux::cel::StatusEvaluator`; the reader's own wrapping of evaluator errors
//! (`failed to create custom status evaluator for healthchecks[i]: ...`) and its refusal of an
//! uncovered GroupKind (`the GroupKind <Kind.group> is not supported`) are restated here.

use std::path::PathBuf;

use pacto_gates::flux::cel::{CompileOptions, Expression, OutputType, StatusEvaluator};
use pacto_gates::flux::health::{FluxHealth, JobOrder};
use pacto_gates::flux::kustomization::{HealthCheckExpr, Selector};
use serde_json::Value;

/// expression_test.go: NewExpression 9, EvaluateBoolean 14, EvaluateString 11,
/// EvaluateStringSlice 11, Evaluate 13.
const EXPRESSION_CASES: usize = 9 + 14 + 11 + 11 + 13;
/// status_evaluator_test.go: NewStatusEvaluator 6, Evaluate 18.
const STATUS_EVALUATOR_CASES: usize = 6 + 18;
/// status_reader_test.go: 11 named table cases (Supports 5, ReadStatus 3, ReadStatusForObject 3)
/// and 6 single-function tests.
const STATUS_READER_NAMED_CASES: usize = 5 + 3 + 3;
const STATUS_READER_CASES: usize = STATUS_READER_NAMED_CASES + 6;

fn table() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/flux/cel/testdata/cases.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let doc: Value =
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
    pacto_gates::object::kube_numbers(doc)
}

fn cases<'a>(doc: &'a Value, section: &str) -> &'a [Value] {
    doc.get(section)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_else(|| panic!("cases.yaml: no `{section}` list"))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn name(case: &Value) -> String {
    format!("{} ({})", text(case, "go"), text(case, "name"))
}

/// Compares an outcome with a case's `want` (value) or `error` (substring).
fn expect(case: &Value, got: Result<Value, String>, problems: &mut Vec<String>) {
    let n = name(case);
    match (case.get("error").and_then(Value::as_str), got) {
        (Some(want), Err(e)) if e.contains(want) => {}
        (Some(want), Err(e)) => problems.push(format!("{n}: error {e:?} lacks {want:?}")),
        (Some(want), Ok(v)) => problems.push(format!("{n}: got {v}, want an error with {want:?}")),
        (None, Err(e)) => problems.push(format!("{n}: unexpected error {e:?}")),
        (None, Ok(v)) => {
            let want = case.get("want").cloned().unwrap_or(Value::Null);
            if v != want {
                problems.push(format!("{n}: got {v}, want {want}"));
            }
        }
    }
}

fn options(case: &Value) -> CompileOptions {
    let o = case.get("options").cloned().unwrap_or(Value::Null);
    CompileOptions {
        compile: o.get("compile").and_then(Value::as_bool).unwrap_or(false),
        struct_variables: o
            .get("struct_variables")
            .and_then(Value::as_array)
            .map(|vs| {
                vs.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        output_type: o
            .get("output_type")
            .and_then(Value::as_str)
            .map(|t| match t {
                "bool" => OutputType::Bool,
                "string" => OutputType::String,
                other => panic!("cases.yaml: output type {other} not restated"),
            }),
    }
}

fn run_expression(case: &Value, problems: &mut Vec<String>) {
    let expr = text(case, "expr");
    let data = case.get("data").cloned().unwrap_or(Value::Null);
    let parsed = Expression::compile(expr, &options(case));
    let func = text(case, "func");
    let got = match (func, parsed) {
        ("NewExpression", r) => r.map(|_| Value::Null),
        (_, Err(e)) => {
            problems.push(format!("{}: does not parse: {e}", name(case)));
            return;
        }
        ("EvaluateBoolean", Ok(e)) => e.eval_bool(&data).map(Value::Bool),
        ("EvaluateString", Ok(e)) => e.eval_string(&data).map(Value::String),
        ("EvaluateStringSlice", Ok(e)) => e
            .eval_string_slice(&data)
            .map(|v| Value::Array(v.into_iter().map(Value::String).collect())),
        ("Evaluate", Ok(e)) => e.evaluate(&data),
        (other, _) => panic!("cases.yaml: unknown func {other}"),
    };
    expect(case, got, problems);
}

fn evaluator(entry: &Value) -> Result<StatusEvaluator, String> {
    StatusEvaluator::new(
        text(entry, "current"),
        text(entry, "failed"),
        text(entry, "in_progress"),
    )
}

fn run_status_evaluator(case: &Value, problems: &mut Vec<String>) {
    let got = match text(case, "func") {
        "NewStatusEvaluator" => evaluator(case).map(|_| Value::Null),
        "Evaluate" => match evaluator(case) {
            Err(e) => Err(format!("does not parse: {e}")),
            Ok(ev) => {
                let obj = case.get("object").cloned().unwrap_or(Value::Null);
                ev.evaluate(&obj)
                    .map(|r| {
                        assert!(r.message.is_empty() && r.conditions.is_empty());
                        Value::String(r.status.as_str().to_string())
                    })
                    .map_err(|e| e.to_string())
            }
        },
        other => panic!("cases.yaml: unknown func {other}"),
    };
    expect(case, got, problems);
}

/// The `healthCheckExprs` entries of a reader case.
fn entries(case: &Value) -> Vec<HealthCheckExpr> {
    let list = case
        .get("entries")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    list.iter()
        .enumerate()
        .map(|(index, e)| HealthCheckExpr {
            index,
            api_version: text(e, "apiVersion").to_string(),
            kind: text(e, "kind").to_string(),
            current: text(e, "current").to_string(),
            failed: text(e, "failed").to_string(),
            in_progress: text(e, "inProgress").to_string(),
        })
        .collect()
}

/// `NewStatusReader`: the product's constructor (its errors are compared with the upstream
/// tests' texts, as literal strings in the cases file).
fn new_reader(exprs: &[HealthCheckExpr]) -> Result<FluxHealth, String> {
    FluxHealth::new(exprs, JobOrder::ExpressionsFirst, 0)
}

/// `ReadStatusForObject`: the status word (`Unknown` for an evaluator error), or the reader's
/// error for a GroupKind no entry covers.
fn read(reader: &FluxHealth, obj: &Value) -> Result<Value, String> {
    reader
        .read_status(obj)
        .map(|v| Value::String(v.status.as_str().to_string()))
}

fn run_status_reader(case: &Value, problems: &mut Vec<String>) {
    let n = name(case);
    match text(case, "func") {
        "Supports" => {
            let entry = HealthCheckExpr {
                index: 0,
                api_version: format!("{}/v1", text(case, "entry_group")),
                kind: text(case, "entry_kind").to_string(),
                current: "something".to_string(),
                failed: String::new(),
                in_progress: String::new(),
            };
            let got = Selector::new(&[entry])
                .map(|s| Value::Bool(s.select(text(case, "group"), text(case, "kind")).is_some()));
            expect(case, got, problems);
        }
        "NewStatusReader" => match new_reader(&entries(case)) {
            Ok(_) => problems.push(format!("{n}: the reader was built")),
            Err(e) => {
                for want in case["errors"].as_array().into_iter().flatten() {
                    let want = want.as_str().unwrap_or("");
                    if !e.contains(want) {
                        problems.push(format!("{n}: error {e:?} lacks {want:?}"));
                    }
                }
            }
        },
        "ReadStatus" | "ReadStatusForObject" => match new_reader(&entries(case)) {
            Err(e) => problems.push(format!("{n}: reader not built: {e}")),
            Ok(reader) => {
                let obj = case.get("object").cloned().unwrap_or(Value::Null);
                expect(case, read(&reader, &obj), problems);
            }
        },
        "ReadStatusForObjects" => match new_reader(&entries(case)) {
            Err(e) => problems.push(format!("{n}: reader not built: {e}")),
            Ok(reader) => {
                for (i, step) in case["objects"].as_array().into_iter().flatten().enumerate() {
                    let mut step_case = step.clone();
                    step_case["go"] = Value::String(format!("{} [object {i}]", text(case, "go")));
                    step_case["name"] = case["name"].clone();
                    let got = read(&reader, &step["object"]);
                    expect(&step_case, got, problems);
                }
            }
        },
        other => panic!("cases.yaml: unknown func {other}"),
    }
}

#[test]
fn flux_runtime_cel_cases() {
    let doc = table();
    let expression = cases(&doc, "expression");
    let status_evaluator = cases(&doc, "status_evaluator");
    let status_reader = cases(&doc, "status_reader");
    assert_eq!(
        expression.len(),
        EXPRESSION_CASES,
        "expression_test.go cases"
    );
    assert_eq!(
        status_evaluator.len(),
        STATUS_EVALUATOR_CASES,
        "status_evaluator_test.go cases"
    );
    assert_eq!(
        status_reader.len(),
        STATUS_READER_CASES,
        "status_reader_test.go cases"
    );
    assert_eq!(
        status_reader
            .iter()
            .filter(|c| text(c, "go").contains('/'))
            .count(),
        STATUS_READER_NAMED_CASES,
        "status_reader_test.go named table cases"
    );

    let mut problems = Vec::new();
    for case in expression {
        run_expression(case, &mut problems);
    }
    for case in status_evaluator {
        run_status_evaluator(case, &mut problems);
    }
    for case in status_reader {
        run_status_reader(case, &mut problems);
    }
    assert!(
        problems.is_empty(),
        "{} of {} Flux runtime/cel cases fail:\n{}",
        problems.len(),
        expression.len() + status_evaluator.len() + status_reader.len(),
        problems.join("\n")
    );
}
