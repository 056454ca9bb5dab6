//! The emitter against go-yaml itself: every case of `testdata/emit-cases.jsonl` as the oracle
//! (`testdata/oracle`, sigs.k8s.io/yaml v1.4.0 `Marshal` after apimachinery's number typing)
//! printed it, bytes or error text.

use super::*;

#[derive(serde::Deserialize)]
struct Case {
    json: String,
    #[serde(default)]
    yaml: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// A case as a client reads it from the API server: JSON, a whole number beyond int64 read as a
/// float64 (apimachinery's `util/json` typing, which the oracle applies too).
fn parse(text: &str) -> Value {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let mut v: Value = serde::Deserialize::deserialize(&mut de).expect("a JSON case");
    let mut stack = vec![&mut v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_some() => {
                let f = n.as_f64().unwrap_or(f64::MAX);
                *v = serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number);
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
    v
}

#[test]
fn every_case_prints_what_go_yaml_prints() {
    // The deepest case nests 10,000 lists: its parse and drop need more than a test thread's
    // stack.
    let run = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let cases: Vec<Case> =
                serde_json::from_str(include_str!("../testdata/emit.json")).expect("emit.json");
            assert!(cases.len() > 1500, "{} cases", cases.len());
            let mut failures = Vec::new();
            for c in &cases {
                let v = parse(&c.json);
                let got = marshal(&v);
                let want = match (&c.yaml, &c.error) {
                    (_, Some(e)) => Err(e.clone()),
                    (Some(y), None) => Ok(y.clone()),
                    (None, None) => panic!("a case with neither yaml nor error: {}", c.json),
                };
                if got != want {
                    failures.push(format!(
                        "{}\n  want {want:?}\n  got  {got:?}",
                        c.json.chars().take(300).collect::<String>()
                    ));
                }
            }
            assert!(
                failures.is_empty(),
                "{} of {} cases differ:\n{}",
                failures.len(),
                cases.len(),
                failures
                    .iter()
                    .take(30)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        })
        .expect("a thread");
    if let Err(e) = run.join() {
        std::panic::resume_unwind(e);
    }
}

/// The fold go-yaml's reading makes of raw NELs, and the errors of the text it refuses.
#[test]
fn what_reading_the_json_back_does() {
    assert_eq!(read_back("a\u{85}b"), "a b");
    assert_eq!(read_back("a \u{85}\u{85} b"), "a\nb");
    assert_eq!(read_back("a  b"), "a  b");
    assert_eq!(
        marshal(&serde_json::json!({"a\u{85}b": 1})).unwrap_err(),
        "yaml: line 1: did not find expected ',' or '}'"
    );
    assert_eq!(
        marshal(&serde_json::json!({"k": "\u{7f}"})).unwrap_err(),
        "yaml: control characters are not allowed"
    );
}

/// go-yaml's key order: letters after everything else, digit runs as numbers.
#[test]
fn keys_in_go_yaml_order() {
    let mut keys = vec!["b", "a10", "a9", "_x", "A", "f:spec", ".", "a"];
    keys.sort_by(|a, b| {
        if key_less(a, b) {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    });
    assert_eq!(keys, [".", "_x", "A", "a", "a9", "a10", "b", "f:spec"]);
}

/// Characters named unprintable are written as go-yaml writes those it cannot print: in double
/// quotes, escaped; the text reads back to the same value.
#[test]
fn characters_named_unprintable_are_escaped_in_double_quotes() {
    let v = serde_json::json!({"a": "x\u{202e}y", "b": "plain", "c": "l1\nl2\u{202e}"});
    let out = marshal_with(&v, |c| c == '\u{202e}').unwrap();
    assert_eq!(out, "a: \"x\\u202Ey\"\nb: plain\nc: \"l1\\nl2\\u202E\"\n");
    assert_eq!(serde_saphyr::from_str::<Value>(&out).unwrap(), v);
    assert_eq!(
        marshal(&v).unwrap(),
        "a: x\u{202e}y\nb: plain\nc: |-\n  l1\n  l2\u{202e}\n"
    );
}
