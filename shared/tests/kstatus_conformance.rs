//! Conformance of the kstatus port (`pacto_gates::flux::kstatus`) with the upstream test suites,
//! re-expressed as data in `shared/src/flux/kstatus/testdata/conformance.yaml` (see its header). Every case
//! is evaluated and all mismatches are reported together, by case name.

use std::path::PathBuf;

use pacto_gates::flux::kstatus;
use pacto_gates::flux::KResult;
use serde_json::Value;

/// Cases found upstream, one table entry each:
/// - fluxcd/cli-utils `pkg/kstatus/status/status_compute_test.go`: 53 (Pod 7, PVC 2,
///   StatefulSet 6, DaemonSet 6, Deployment 5, ReplicaSet 6, PDB 2, generic CR 5, Job 4,
///   CronJob 2, Service 4, CRD 4);
/// - `status_augment_test.go`: 5;
/// - `example_test.go`: 2;
/// - `util_test.go`: 6 asserts (GetIntField 4, GetStringField 2);
/// - fluxcd/pkg `runtime/statusreaders/job_test.go`: 9 (Test_jobConditions 7,
///   Test_ComputeJobStatus 2).
const EXPECTED_CASES: usize = 53 + 5 + 2 + 6 + 9;

fn table() -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src/flux/kstatus/testdata/conformance.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let doc: Value =
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
    match pacto_gates::object::kube_numbers(doc) {
        Value::Object(mut m) => match m.remove("cases") {
            Some(Value::Array(cases)) => cases,
            _ => panic!("{}: no `cases` list", path.display()),
        },
        _ => panic!("{}: not a mapping", path.display()),
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `[type, status, reason]` of each condition, from the result or from the table.
fn triples<'a>(items: impl Iterator<Item = (&'a str, &'a str, &'a str)>) -> Vec<String> {
    items.map(|(t, s, r)| format!("{t}/{s}/{r}")).collect()
}

fn table_triples(list: &Value) -> Vec<String> {
    let items = list.as_array().map(Vec::as_slice).unwrap_or_default();
    triples(items.iter().map(|c| {
        (
            text(c, "type").unwrap_or("?"),
            text(c, "status").unwrap_or("?"),
            text(c, "reason").unwrap_or(""),
        )
    }))
}

fn check_result(res: &KResult, expect: &Value, problems: &mut Vec<String>) {
    if let Some(want) = text(expect, "status") {
        if res.status.as_str() != want {
            problems.push(format!("status {} != {want}", res.status.as_str()));
        }
    }
    if let Some(want) = text(expect, "message") {
        if res.message != want {
            problems.push(format!("message {:?} != {want:?}", res.message));
        }
    }
    if let Some(want) = expect.get("conditions") {
        let got = triples(
            res.conditions
                .iter()
                .map(|c| (c.kind.as_str(), c.status.as_str(), c.reason.as_str())),
        );
        let want = table_triples(want);
        if got != want {
            problems.push(format!("conditions {got:?} != {want:?}"));
        }
    }
}

fn run_case(case: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let object = case.get("object").cloned().unwrap_or(Value::Null);
    let expect = case.get("expect").cloned().unwrap_or(Value::Null);
    let now = case.get("now").and_then(Value::as_i64);
    let call = text(case, "call").unwrap_or("");
    match call {
        "compute" | "job_status" => {
            let res = match (call, now) {
                ("compute", Some(now)) => kstatus::compute_at(&object, now),
                ("compute", None) => kstatus::compute(&object),
                _ => kstatus::job_status(&object),
            };
            match (res, text(&expect, "error")) {
                (Ok(res), None) => check_result(&res, &expect, &mut problems),
                (Ok(res), Some(want)) => {
                    problems.push(format!("expected error {want:?}, got {res:?}"))
                }
                (Err(e), Some(want)) if e == want => {}
                (Err(e), _) => problems.push(format!("error: {e}")),
            }
        }
        "compute_job_status" => check_result(
            &kstatus::compute_job_status(&object),
            &expect,
            &mut problems,
        ),
        "augment" => {
            let Some(now) = now else {
                return vec!["augment needs `now`".to_string()];
            };
            // The result Augment writes from is Compute's at the same time.
            match kstatus::compute_at(&object, now) {
                Ok(res) => check_result(&res, &expect, &mut problems),
                Err(e) => problems.push(format!("compute error: {e}")),
            }
            let mut after = object.clone();
            if let Err(e) = kstatus::augment_at(&mut after, now) {
                problems.push(format!("augment error: {e}"));
                return problems;
            }
            if expect.get("unchanged").and_then(Value::as_bool) == Some(true) && after != object {
                problems.push(format!("object changed: {after}"));
            }
            if let Some(want) = expect.get("augmented_conditions") {
                let got = after
                    .pointer("/status/conditions")
                    .map(table_triples)
                    .unwrap_or_default();
                let want = table_triples(want);
                if got != want {
                    problems.push(format!("augmented conditions {got:?} != {want:?}"));
                }
            }
        }
        "get_int_field" => {
            let path = text(case, "path").unwrap_or("");
            let default = case.get("default").and_then(Value::as_i64).unwrap_or(0);
            let got = kstatus::get_int_field(&object, path, default);
            if Some(got) != expect.get("value").and_then(Value::as_i64) {
                problems.push(format!("value {got} != {}", expect["value"]));
            }
        }
        "get_string_field" => {
            let path = text(case, "path").unwrap_or("");
            let default = text(case, "default").unwrap_or("");
            let got = kstatus::get_string_field(&object, path, default);
            if Some(got.as_str()) != text(&expect, "value") {
                problems.push(format!("value {got:?} != {}", expect["value"]));
            }
        }
        other => problems.push(format!("unknown call {other:?}")),
    }
    problems
}

#[test]
fn kstatus_conformance_table() {
    let cases = table();
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (i, case) in cases.iter().enumerate() {
        let name = text(case, "name").unwrap_or("<unnamed>").to_string();
        let label = format!(
            "#{} {name} ({})",
            i + 1,
            text(case, "source").unwrap_or("no source")
        );
        if !names.insert(name.clone()) {
            failures.push(format!("{label}: duplicate name"));
        }
        for problem in run_case(case) {
            failures.push(format!("{label}: {problem}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} kstatus conformance cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert_eq!(
        cases.len(),
        EXPECTED_CASES,
        "the table should hold one entry per upstream case"
    );
}
