//! What `kubectl pacto wait --for` waits for, and whether an object has reached it. Pure.
//!
//! `condition=TYPE[=STATUS]`, `jsonpath={PATH}[=VALUE]` and `delete` are kubectl's
//! (`kubectl/pkg/cmd/wait`: condition types and statuses compared case-insensitively, STATUS
//! `True` by default, a condition older than the object's generation not counted, the condition's
//! own `observedGeneration` first, else `status.observedGeneration`); `gate=WORD` (what the
//! gates together do with the next rollout step: pass, hold, fail, none; see
//! `pacto::gate::Decision::overall`) and `verdict=STATUS` (`status.contractStatus`, as the Pacto
//! operator writes it, counted only when written for the object's generation) are Pacto's.

use crate::printer::jsonpath::{self, Template};
use anyhow::{bail, Result};
use pacto_gates::k8s::gofmt;
use pacto_gates::pacto::gate::GateWord;
use pacto_gates::pacto::verdict::KNOWN_VERDICTS;
use serde_json::Value;

/// The words of a gate outcome ([`GateWord::as_str`]).
fn gate_words() -> Vec<&'static str> {
    GateWord::ALL.map(GateWord::as_str).to_vec()
}

/// A parsed `--for`.
#[derive(Debug, Clone)]
pub enum WaitFor {
    /// `gate=WORD`: the gates' overall outcome.
    Gate(String),
    /// `verdict=STATUS`.
    Verdict(String),
    /// `condition=TYPE[=STATUS]`.
    Condition { kind: String, status: String },
    /// `jsonpath={PATH}[=VALUE]`: the value, or (without one) that the path finds something.
    JsonPath {
        text: String,
        path: Template,
        value: Option<String>,
    },
    /// `delete`.
    Delete,
}

impl WaitFor {
    /// Reads `--for`. `pactos` says whether the kind waited on is Pacto (gate and verdict are
    /// only for Pactos). Errors name the forms there are.
    pub fn parse(s: &str, pactos: bool) -> Result<WaitFor> {
        let pacto_only = |what: &str| -> Result<()> {
            if !pactos {
                bail!("--for {what}=... is for Pactos: Stages and Operations wait with --for condition=TYPE or --for jsonpath=...");
            }
            Ok(())
        };
        if s == "delete" {
            return Ok(WaitFor::Delete);
        }
        let Some((what, rest)) = s.split_once('=') else {
            bail!("--for {s:?}: expected gate=WORD, verdict=STATUS, condition=TYPE[=STATUS], jsonpath={{PATH}}[=VALUE] or delete");
        };
        match what {
            "gate" => {
                pacto_only("gate")?;
                if !gate_words().contains(&rest) {
                    bail!(
                        "--for gate={rest}: the GATE words are {}",
                        gate_words().join(", ")
                    );
                }
                Ok(WaitFor::Gate(rest.to_string()))
            }
            "verdict" => {
                pacto_only("verdict")?;
                if !KNOWN_VERDICTS.contains(&rest) {
                    bail!(
                        "--for verdict={rest}: contractStatus is one of {} (spelled so)",
                        KNOWN_VERDICTS.join(", ")
                    );
                }
                Ok(WaitFor::Verdict(rest.to_string()))
            }
            "condition" => {
                let (kind, status) = match rest.split_once('=') {
                    Some((k, st)) => (k, st),
                    None => (rest, "True"),
                };
                if kind.is_empty() || status.is_empty() {
                    bail!(
                        "--for condition={rest}: expected condition=TYPE or condition=TYPE=STATUS"
                    );
                }
                Ok(WaitFor::Condition {
                    kind: kind.to_string(),
                    status: status.to_string(),
                })
            }
            "jsonpath" => {
                // kubectl's processJSONPathInput and newJSONPathParser.
                let parts = split_jsonpath(rest);
                if parts.len() > 2 {
                    bail!("jsonpath wait format must be --for=jsonpath='{{.status.readyReplicas}}'=3 or --for=jsonpath='{{.status.readyReplicas}}'");
                }
                let relaxed = jsonpath::relaxed_text(&parts[0]).map_err(anyhow::Error::msg)?;
                let value = match parts.get(1) {
                    None => None,
                    Some(v) => {
                        let v = v.trim_matches(['\'', '"']);
                        if v.is_empty() {
                            bail!("jsonpath wait has to have a value after equal sign, like --for=jsonpath='{{.status.readyReplicas}}'=3");
                        }
                        Some(v.to_string())
                    }
                };
                if relaxed.is_empty() {
                    bail!("jsonpath expression cannot be empty");
                }
                let path = Template::parse(&relaxed).map_err(anyhow::Error::msg)?;
                Ok(WaitFor::JsonPath {
                    text: parts[0].clone(),
                    path,
                    value,
                })
            }
            _ => bail!("--for {what}=...: expected gate, verdict, condition, jsonpath or delete"),
        }
    }

    /// Whether `obj` is where this waits for it to be. `gate` gives an object's overall gate
    /// outcome word (only called for `gate=`). `delete` is reached by the object's absence, never
    /// by an object. Errors (kubectl's, which end the wait at once): the jsonpath fails on the
    /// object, finds more than one value, or finds a map or a list where a value is compared.
    pub fn reached(&self, obj: &Value, gate: impl Fn(&Value) -> String) -> Result<bool, String> {
        if let WaitFor::JsonPath { path, value, .. } = self {
            // kubectl's JSONPathWait.checkCondition.
            let results = path.results(obj)?;
            let Some(first) = results.first().filter(|r| !r.is_empty()) else {
                return Ok(false);
            };
            if results.len() > 1 {
                return Err("given jsonpath expression matches more than one list".into());
            }
            if first.len() > 1 {
                return Err("given jsonpath expression matches more than one value".into());
            }
            let Some(want) = value else {
                return Ok(true);
            };
            if first[0].is_object() || first[0].is_array() {
                return Err(
                    "jsonpath leads to a nested object or list which is not supported".into(),
                );
            }
            return Ok(gofmt::sprint(&first[0]).trim() == want.trim());
        }
        Ok(match self {
            WaitFor::Gate(word) => gate(obj) == *word,
            WaitFor::Verdict(v) => {
                obj.pointer("/status/contractStatus")
                    .and_then(Value::as_str)
                    == Some(v)
                    && !stale(obj)
            }
            WaitFor::Condition { kind, status } => condition_met(obj, kind, status),
            WaitFor::JsonPath { .. } | WaitFor::Delete => false,
        })
    }

    /// The words of `--for` as given (for messages).
    pub fn describe(&self) -> String {
        match self {
            WaitFor::Gate(w) => format!("gate={w}"),
            WaitFor::Verdict(v) => format!("verdict={v}"),
            WaitFor::Condition { kind, status } => format!("condition={kind}={status}"),
            WaitFor::JsonPath { text, value, .. } => match value {
                Some(v) => format!("jsonpath={text}={v}"),
                None => format!("jsonpath={text}"),
            },
            WaitFor::Delete => "delete".to_string(),
        }
    }
}

/// A verdict written for another generation than the object's (`status.observedGeneration`
/// present and not `metadata.generation`): not counted, as kubectl wait does not count a
/// condition observed at an older generation.
fn stale(obj: &Value) -> bool {
    let observed = obj
        .pointer("/status/observedGeneration")
        .and_then(Value::as_i64);
    let generation = obj.pointer("/metadata/generation").and_then(Value::as_i64);
    matches!((observed, generation), (Some(o), Some(g)) if o != g)
}

/// kubectl's splitJSONPathInput: split at each single `=`; `==` stays whole.
fn split_jsonpath(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '=' {
            if chars.peek() == Some(&'=') {
                chars.next();
                out.last_mut().unwrap().push_str("==");
                continue;
            }
            out.push(String::new());
            continue;
        }
        out.last_mut().unwrap().push(c);
    }
    out
}

/// kubectl's condition check: the first condition of that type (case-insensitive) with a
/// status; not met while the condition (or, without its own, the status) was observed at an
/// older generation than the object's.
fn condition_met(obj: &Value, kind: &str, status: &str) -> bool {
    let Some(conditions) = obj.pointer("/status/conditions").and_then(Value::as_array) else {
        return false;
    };
    for c in conditions {
        let Some(t) = c.get("type").and_then(Value::as_str) else {
            continue;
        };
        if !t.eq_ignore_ascii_case(kind) {
            continue;
        }
        let Some(s) = c.get("status").and_then(Value::as_str) else {
            continue;
        };
        if let Some(generation) = obj.pointer("/metadata/generation").and_then(Value::as_i64) {
            let observed = c
                .get("observedGeneration")
                .and_then(Value::as_i64)
                .or_else(|| {
                    obj.pointer("/status/observedGeneration")
                        .and_then(Value::as_i64)
                });
            if observed.is_some_and(|o| o < generation) {
                return false;
            }
        }
        return s.eq_ignore_ascii_case(status);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(gen: i64, conditions: Value) -> Value {
        json!({"metadata": {"generation": gen}, "status": {"conditions": conditions, "phase": "Held"}})
    }

    /// kubectl wait's rules (kubectl/pkg/cmd/wait/condition.go).
    #[test]
    fn conditions_as_kubectl_wait_reads_them() {
        let ready = WaitFor::parse("condition=Ready", false).unwrap();
        let none = |_: &Value| String::new();
        assert!(ready
            .reached(&obj(2, json!([{"type": "ready", "status": "true"}])), none)
            .unwrap());
        assert!(!ready
            .reached(&obj(2, json!([{"type": "Ready", "status": "False"}])), none)
            .unwrap());
        // Observed at an older generation: not yet.
        assert!(!ready
            .reached(
                &obj(
                    2,
                    json!([{"type": "Ready", "status": "True", "observedGeneration": 1}])
                ),
                none
            )
            .unwrap());
        let mut stale = obj(2, json!([{"type": "Ready", "status": "True"}]));
        stale["status"]["observedGeneration"] = json!(1);
        assert!(!ready.reached(&stale, none).unwrap());
        let held = WaitFor::parse("condition=Mediated=False", false).unwrap();
        assert!(held
            .reached(
                &obj(1, json!([{"type": "Mediated", "status": "False"}])),
                none
            )
            .unwrap());
        let phase = WaitFor::parse("jsonpath={.status.phase}=Held", false).unwrap();
        assert!(phase.reached(&obj(1, json!([])), none).unwrap());
        let exists = WaitFor::parse("jsonpath={.status.phase}", false).unwrap();
        assert!(exists.reached(&obj(1, json!([])), none).unwrap());
        let other = WaitFor::parse("jsonpath={.status.phase}=Succeeded", false).unwrap();
        assert!(!other.reached(&obj(1, json!([])), none).unwrap());
    }

    /// kubectl wait refuses a malformed template at once, and stops at the first object a
    /// template fails on or finds several values in (kubectl/pkg/cmd/wait/json.go).
    #[test]
    fn jsonpath_errors_end_the_wait_as_kubectls_do() {
        for (f, e) in [
            ("jsonpath={.a[}", "unterminated array"),
            ("jsonpath=.x}", "unexpected path string"),
            (
                "jsonpath={.a}=",
                "jsonpath wait has to have a value after equal sign",
            ),
            ("jsonpath={.a}=1=2", "jsonpath wait format must be"),
            ("jsonpath=", "jsonpath expression cannot be empty"),
        ] {
            let got = WaitFor::parse(f, false).unwrap_err().to_string();
            assert!(got.starts_with(e), "{f}: {got}");
        }
        let none = |_: &Value| String::new();
        let o = obj(1, json!([{"type": "A"}, {"type": "B"}]));
        let w = WaitFor::parse("jsonpath={.status.conditions[5].type}=A", false).unwrap();
        assert_eq!(
            w.reached(&o, none).unwrap_err(),
            "array index out of bounds: index 5, length 2"
        );
        let w = WaitFor::parse("jsonpath={.status.conditions[*].type}=A", false).unwrap();
        assert_eq!(
            w.reached(&o, none).unwrap_err(),
            "given jsonpath expression matches more than one value"
        );
        let w = WaitFor::parse("jsonpath={.status.conditions}=A", false).unwrap();
        assert!(w
            .reached(&o, none)
            .unwrap_err()
            .starts_with("jsonpath leads to a nested"));
        let w = WaitFor::parse("jsonpath={.status.phase}='Held'", false).unwrap();
        assert!(w.reached(&o, none).unwrap());
    }

    #[test]
    fn gate_and_verdict_are_for_pactos_and_spelled_as_the_seeds_spell_them() {
        let v = WaitFor::parse("verdict=Compliant", true).unwrap();
        assert!(v
            .reached(&json!({"status": {"contractStatus": "Compliant"}}), |_| {
                String::new()
            })
            .unwrap());
        assert!(!v
            .reached(&json!({"status": {"contractStatus": "compliant"}}), |_| {
                String::new()
            })
            .unwrap());
        assert!(WaitFor::parse("verdict=compliant", true).is_err());
        // Written for another generation: not yet.
        let stale = json!({"metadata": {"generation": 2}, "status": {"contractStatus": "Compliant", "observedGeneration": 1}});
        assert!(!v.reached(&stale, |_| String::new()).unwrap());
        assert!(WaitFor::parse("gate=pass", false).is_err());
        let g = WaitFor::parse("gate=pass", true).unwrap();
        assert!(g.reached(&json!({}), |_| "pass".to_string()).unwrap());
        assert!(!g.reached(&json!({}), |_| "hold".to_string()).unwrap());
        assert!(WaitFor::parse("gate=passed", true).is_err());
        assert!(WaitFor::parse("ready", true).is_err());
        assert_eq!(split_jsonpath("{.a.b}=x=y"), ["{.a.b}", "x", "y"]);
        assert_eq!(
            split_jsonpath("{.a[?(@.b==\"c\")]}=x"),
            ["{.a[?(@.b==\"c\")]}", "x"]
        );
    }

    /// `gate=WORD` is reached only by that overall word: a hold never reaches `gate=pass`, a
    /// pass never reaches `gate=hold`, and so on for every pair of the four words.
    #[test]
    fn each_gate_word_is_reached_by_itself_alone() {
        for want in gate_words() {
            let w = WaitFor::parse(&format!("gate={want}"), true).unwrap();
            for got in gate_words() {
                assert_eq!(
                    w.reached(&json!({}), |_| got.to_string()).unwrap(),
                    want == got,
                    "--for gate={want} with an overall {got}"
                );
            }
        }
    }

    /// `verdict=` takes the library's contractStatus values (the CRD's enum, NotEvaluated
    /// included) and `gate=` the words of the gate outcomes, and nothing else.
    #[test]
    fn the_words_for_takes_are_the_librarys() {
        for v in KNOWN_VERDICTS {
            assert!(WaitFor::parse(&format!("verdict={v}"), true).is_ok(), "{v}");
        }
        assert!(WaitFor::parse("verdict=NotEvaluated", true).is_ok());
        for w in ["pass", "hold", "fail", "none"] {
            assert!(WaitFor::parse(&format!("gate={w}"), true).is_ok(), "{w}");
        }
        let e = WaitFor::parse("gate=block", true).unwrap_err().to_string();
        assert_eq!(
            e,
            "--for gate=block: the GATE words are pass, hold, fail, none"
        );
    }
}
