//! Runs cel-spec conformance tests against Flux's CEL environment (`pacto_gates::flux::cel`).
//!
//! Input: the JSON written by `tests/cel-spec/run.sh`: `{suites: [{name, tests: [{section, ...}]}]}`
//! where each test is a cel-spec `SimpleTest` in protobuf JSON form. Each test's expression is
//! parsed and evaluated, unchecked, with its bindings as variables, as Flux evaluates health
//! expressions; the outcome is compared with the expected value (types must agree: `1` is not
//! `1u`), or with "some error" for `evalError` (error texts are not compared, as cel-spec
//! conformance runners do), or with `true` when the test states neither.
//!
//! Skipped, with the reason counted: tests that only type-check (`checkOnly`), that need a
//! container or proto message/enum types (Flux's environment has neither), that declare functions
//! in their type environment, or whose bindings are values this runner cannot build.
//!
//! Usage: `cargo run -p pacto-gates --example cel_spec -- suites.json`

use std::collections::{BTreeMap, HashMap};

use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelType,
    CelUInt, Kind,
};
use cel::common::value::Val;
use pacto_gates::flux::cel::Expression;
use serde_json::Value;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: cel_spec <suites.json>");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {path}: {e}"));
    let verbose = std::env::var("CEL_SPEC_VERBOSE").is_ok_and(|v| v == "1");

    let (mut all_pass, mut all_fail, mut all_skip) = (0, 0, 0);
    let mut skip_reasons: BTreeMap<String, usize> = BTreeMap::new();
    for suite in doc["suites"].as_array().into_iter().flatten() {
        let name = suite["name"].as_str().unwrap_or("?");
        let (mut pass, mut skip) = (0, 0);
        let mut failures = Vec::new();
        for test in suite["tests"].as_array().into_iter().flatten() {
            let id = format!(
                "{name}/{}/{}",
                test["section"].as_str().unwrap_or(""),
                test["name"].as_str().unwrap_or("")
            );
            match run(test) {
                Outcome::Pass => pass += 1,
                Outcome::Skip(reason) => {
                    skip += 1;
                    *skip_reasons.entry(reason).or_default() += 1;
                }
                Outcome::Fail(why) => failures.push((id, why)),
            }
        }
        println!(
            "{name}: passed {pass} / failed {} / skipped {skip}",
            failures.len()
        );
        for (id, why) in &failures {
            if verbose {
                println!("  FAIL {id}: {why}");
            } else {
                println!("  FAIL {id}");
            }
        }
        all_pass += pass;
        all_fail += failures.len();
        all_skip += skip;
    }
    println!("total: passed {all_pass} / failed {all_fail} / skipped {all_skip}");
    for (reason, n) in skip_reasons {
        println!("  skipped {n}: {reason}");
    }
}

enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

/// What a test expects.
enum Expected {
    Value(Box<dyn Val>),
    Error,
}

fn run(test: &Value) -> Outcome {
    if let Some(reason) = skip_reason(test) {
        return Outcome::Skip(reason);
    }
    let expected = if test.get("evalError").is_some() {
        Expected::Error
    } else {
        let v = test
            .get("value")
            .or_else(|| test.get("typedResult").and_then(|t| t.get("result")));
        match v {
            None => Expected::Value(Box::new(CelBool::from(true))),
            Some(v) => match to_val(v) {
                Ok(v) => Expected::Value(v),
                Err(reason) => return Outcome::Skip(reason),
            },
        }
    };
    let mut bindings: Vec<(String, Box<dyn Val>)> = Vec::new();
    if let Some(Value::Object(b)) = test.get("bindings") {
        for (name, expr_value) in b {
            match expr_value.get("value").map(to_val) {
                Some(Ok(v)) => bindings.push((name.clone(), v)),
                Some(Err(reason)) => return Outcome::Skip(reason),
                None => return Outcome::Skip("binding is not a value".to_string()),
            }
        }
    }
    let src = test["expr"].as_str().unwrap_or("");
    let expr = match Expression::parse(src) {
        Ok(e) => e,
        Err(e) => {
            return match expected {
                Expected::Error => Outcome::Pass,
                Expected::Value(_) => Outcome::Fail(format!("parse error: {e}")),
            }
        }
    };
    expr.eval_bindings(bindings, |result| match (result, &expected) {
        (Err(_), Expected::Error) => Outcome::Pass,
        (Err(e), Expected::Value(want)) => {
            Outcome::Fail(format!("error {e:?}, want {}", show(want.as_ref())))
        }
        (Ok(got), Expected::Error) => Outcome::Fail(format!("got {}, want an error", show(got))),
        (Ok(got), Expected::Value(want)) => {
            if same(got, want.as_ref()) {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("got {}, want {}", show(got), show(want.as_ref())))
            }
        }
    })
}

fn skip_reason(test: &Value) -> Option<String> {
    if test.get("checkOnly").and_then(Value::as_bool) == Some(true) {
        return Some("checkOnly: type checking only".to_string());
    }
    if test
        .get("container")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.is_empty())
    {
        return Some("container: proto messages / namespaced names, not in Flux's env".to_string());
    }
    let expr = test["expr"].as_str().unwrap_or("");
    if expr.contains("TestAllTypes") || expr.contains("google.protobuf.") && expr.contains('{') {
        return Some("proto message in the expression, not in Flux's env".to_string());
    }
    if let Some(Value::Array(decls)) = test.get("typeEnv") {
        for d in decls {
            if d.get("function").is_some() {
                return Some("typeEnv declares a function".to_string());
            }
            if d.to_string().contains("messageType") {
                return Some("typeEnv declares a proto message variable".to_string());
            }
        }
    }
    None
}

/// A cel-spec `google.api.expr.Value` in protobuf JSON form, as a CEL value.
fn to_val(v: &Value) -> Result<Box<dyn Val>, String> {
    let obj = v.as_object().ok_or("value is not an object")?;
    let (kind, inner) = obj.iter().next().ok_or("empty value")?;
    Ok(match kind.as_str() {
        "nullValue" => Box::new(CelNull),
        "boolValue" => Box::new(CelBool::from(inner.as_bool().unwrap_or(false))),
        "int64Value" => Box::new(CelInt::from(
            number(inner)?.parse::<i64>().map_err(|e| e.to_string())?,
        )),
        "uint64Value" => Box::new(CelUInt::from(
            number(inner)?.parse::<u64>().map_err(|e| e.to_string())?,
        )),
        "doubleValue" => Box::new(CelDouble::from(match inner {
            Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            Value::String(s) => match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                other => other.parse().map_err(|_| format!("double {other}"))?,
            },
            _ => return Err("double value".to_string()),
        })),
        "stringValue" => Box::new(CelString::from(inner.as_str().unwrap_or("").to_string())),
        "bytesValue" => Box::new(CelBytes::from(base64_decode(inner.as_str().unwrap_or(""))?)),
        "listValue" => {
            let mut items = Vec::new();
            for item in inner
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                items.push(to_val(item)?);
            }
            Box::new(CelList::from(items))
        }
        "mapValue" => {
            let mut map: HashMap<CelMapKey<'static>, Box<dyn Val>> = HashMap::new();
            for entry in inner
                .get("entries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let key = to_val(&entry["key"])?;
                let key = CelMapKey::try_from(key).map_err(|e| format!("map key: {e}"))?;
                map.insert(key, to_val(&entry["value"])?);
            }
            Box::new(CelMap::from(map))
        }
        "typeValue" => Box::new(CelType::new(inner.as_str().unwrap_or("").to_string())),
        "objectValue" => {
            let type_url = inner.get("@type").and_then(Value::as_str).unwrap_or("");
            let text = inner.get("value").and_then(Value::as_str).unwrap_or("");
            let ctor = match type_url.rsplit('/').next() {
                Some("google.protobuf.Timestamp") => "timestamp",
                Some("google.protobuf.Duration") => "duration",
                Some(other) => return Err(format!("proto message value ({other})")),
                None => return Err("proto message value".to_string()),
            };
            by_cel(&format!("{ctor}('{text}')"))?
        }
        "enumValue" => return Err("enum value".to_string()),
        other => return Err(format!("{other} value")),
    })
}

/// A value CEL builds, e.g. `timestamp('2009-02-13T23:31:30Z')`.
fn by_cel(src: &str) -> Result<Box<dyn Val>, String> {
    let e = Expression::parse(src)?;
    e.eval_bindings(Vec::new(), |r| r.map(|v| v.clone_as_boxed()))
}

fn number(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err("integer value".to_string()),
    }
}

/// protobuf JSON `bytes`: standard or URL-safe alphabet, padded or not.
fn base64_decode(s: &str) -> Result<Vec<u8>, String> {
    use base64::engine::{
        general_purpose::GeneralPurpose, DecodePaddingMode, GeneralPurposeConfig,
    };
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let std: String = s
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    LENIENT
        .decode(std)
        .map_err(|e| format!("bad base64 {s:?}: {e}"))
}

/// Equality of an outcome with an expected value: the same type, then CEL equality (NaN equal
/// to NaN), element by element for lists and maps.
fn same(got: &dyn Val, want: &dyn Val) -> bool {
    let (gk, wk) = (got.get_type().kind(), want.get_type().kind());
    if gk != wk {
        return false;
    }
    match gk {
        Kind::Double => {
            let g = *got
                .downcast_ref::<CelDouble>()
                .map(|d| d.inner())
                .unwrap_or(&0.0);
            let w = *want
                .downcast_ref::<CelDouble>()
                .map(|d| d.inner())
                .unwrap_or(&1.0);
            // The package's JSON renders some doubles off by an ulp (`1.38e-23` reads back as
            // `1.3799999999999998e-23`): allow two ulps.
            (g.is_nan() && w.is_nan())
                || g == w
                || (g.is_finite() && w.is_finite() && g.signum() == w.signum() && {
                    let (a, b) = (g.to_bits() as i64, w.to_bits() as i64);
                    (a - b).abs() <= 2
                })
        }
        Kind::Type => {
            let name = |v: &dyn Val| v.downcast_ref::<CelType>().map(|t| t.name().to_string());
            name(got) == name(want)
        }
        Kind::List => {
            let (g, w) = (items(got), items(want));
            g.len() == w.len() && g.iter().zip(&w).all(|(a, b)| same(*a, *b))
        }
        Kind::Map => {
            let (g, w) = (items(got), items(want));
            g.len() == w.len()
                && w.iter().all(|k| {
                    let gv = got.as_indexer().and_then(|i| i.get(*k).ok());
                    let wv = want.as_indexer().and_then(|i| i.get(*k).ok());
                    matches!((gv, wv), (Some(a), Some(b)) if same(a.as_ref(), b.as_ref()))
                })
        }
        _ => got.equals(want),
    }
}

fn items(v: &dyn Val) -> Vec<&dyn Val> {
    let mut out = Vec::new();
    if let Some(it) = v.as_iterable() {
        let mut it = it.iter();
        while let Some(e) = it.next() {
            out.push(e);
        }
    }
    out
}

fn show(v: &dyn Val) -> String {
    format!(
        "{}: {}",
        v.get_type().name(),
        pacto_gates::flux::cel::val_to_json(v)
    )
}
