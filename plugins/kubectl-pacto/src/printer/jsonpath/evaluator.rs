//! Running parsed nodes on an object, as client-go's `util/jsonpath/jsonpath.go` does with
//! missing keys allowed (kubectl's `--allow-missing-template-keys=true`): each step's results
//! (`evalField`, `evalRecursive`, `evalArray`, `evalUnion`, `evalFilter`), filters compared as
//! Go templates compare, and the results printed (`PrintResults`: joined by a space, strings as
//! they are, numbers and booleans as Go prints them, maps and lists as compact JSON). The work
//! is bounded: a template is short, but nested ranges multiply.

use super::parser::{Filter, Node, Operand, Step};
use pacto_gates::k8s::gofmt;
use serde_json::Value;
use std::cmp::Ordering;

/// The most text a template may print: a template is short, but `{range}` nesting multiplies.
pub const MAX_OUTPUT_BYTES: usize = 256 << 20;
/// The most nodes a template may run, over all `{range}` iterations.
pub const MAX_STEPS: usize = 10_000_000;

/// The text `nodes` print on `data`. Errors: a step's, or a bound passed.
pub(super) fn execute(nodes: &[Node], data: &Value) -> Result<String, String> {
    let mut out = String::new();
    let mut steps = 0usize;
    run(nodes, data, &mut out, &mut steps)?;
    Ok(out)
}

fn run(nodes: &[Node], data: &Value, out: &mut String, steps: &mut usize) -> Result<(), String> {
    for node in nodes {
        *steps += 1;
        if *steps > MAX_STEPS {
            return Err(format!(
                "the template ran more than {MAX_STEPS} steps (nested ranges multiply)"
            ));
        }
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Path(path) => {
                let results = eval(path, vec![data])?;
                print_results(&results, out);
            }
            Node::Range(path, body) => {
                for item in eval(path, vec![data])? {
                    *steps += 1;
                    if *steps > MAX_STEPS {
                        return Err(format!(
                            "the template ran more than {MAX_STEPS} steps (nested ranges multiply)"
                        ));
                    }
                    run(body, item, out, steps)?;
                }
            }
        }
        if out.len() > MAX_OUTPUT_BYTES {
            return Err(format!(
                "the output passed {} MiB (nested ranges multiply)",
                MAX_OUTPUT_BYTES >> 20
            ));
        }
    }
    Ok(())
}

fn print_results(results: &[&Value], out: &mut String) {
    for (i, r) in results.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match r {
            Value::Object(_) | Value::Array(_) => out.push_str(&gofmt::marshal(r)),
            other => out.push_str(&gofmt::sprint(other)),
        }
    }
}

/// The most values one step may produce: a bound on recursive descent over a huge object.
const MAX_RESULTS: usize = 10_000_000;

pub(super) fn eval<'v>(steps: &[Step], mut cur: Vec<&'v Value>) -> Result<Vec<&'v Value>, String> {
    for step in steps {
        let mut next = Vec::new();
        match step {
            Step::Field(name) => {
                for v in cur {
                    if let Some(found) = v.as_object().and_then(|m| m.get(name)) {
                        next.push(found);
                    }
                }
            }
            Step::Wildcard => {
                for v in cur {
                    match v {
                        Value::Object(m) => next.extend(m.values()),
                        Value::Array(a) => next.extend(a.iter()),
                        _ => {}
                    }
                }
            }
            Step::Recursive => {
                for v in cur {
                    descend(v, &mut next)?;
                }
            }
            Step::Slice(start, end, step, derived) => {
                for v in cur {
                    if v.is_null() {
                        continue;
                    }
                    let Some(items) = v.as_array() else {
                        return Err(format!(
                            "{} is not array or slice",
                            pacto_gates::k8s::gofmt::go_type(v)
                        ));
                    };
                    next.extend(slice(items, *start, *end, *step, *derived)?);
                }
            }
            Step::Union(members) => {
                for m in members {
                    next.extend(eval(m, cur.clone())?);
                }
            }
            Step::Filter(f) => {
                for v in cur {
                    if v.is_null() {
                        continue;
                    }
                    let Some(items) = v.as_array() else {
                        return Err(format!(
                            "{} is not array or slice and cannot be filtered",
                            gofmt::sprint(v)
                        ));
                    };
                    for item in items {
                        if passes(f, item)? {
                            next.push(item);
                        }
                    }
                }
            }
        }
        if next.len() > MAX_RESULTS {
            return Err(format!("more than {MAX_RESULTS} results"));
        }
        cur = next;
    }
    Ok(cur)
}

/// client-go `evalRecursive`: the value itself (when it has children), then each child's
/// descent, depth first.
fn descend<'v>(v: &'v Value, out: &mut Vec<&'v Value>) -> Result<(), String> {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        let children: Vec<&Value> = match v {
            Value::Object(m) => m.values().collect(),
            Value::Array(a) => a.iter().collect(),
            Value::String(s) if !s.is_empty() => {
                out.push(v);
                continue;
            }
            _ => continue,
        };
        if children.is_empty() {
            continue;
        }
        out.push(v);
        if out.len() > MAX_RESULTS {
            return Err(format!("more than {MAX_RESULTS} results"));
        }
        stack.extend(children.into_iter().rev());
    }
    Ok(())
}

fn slice(
    items: &[Value],
    start: Option<i64>,
    end: Option<i64>,
    step: Option<i64>,
    derived: bool,
) -> Result<Vec<&Value>, String> {
    let len = items.len() as i64;
    let mut s = start.unwrap_or(0);
    if s < 0 {
        s += len;
    }
    let mut e = end.unwrap_or(len);
    if e < 0 || (e == 0 && derived) {
        e += len;
    }
    if e == s {
        return Ok(Vec::new());
    }
    if s >= len || s < 0 {
        return Err(format!(
            "array index out of bounds: index {s}, length {len}"
        ));
    }
    if e > len || e < 0 {
        return Err(format!(
            "array index out of bounds: index {}, length {len}",
            e - 1
        ));
    }
    if s > e {
        return Err(format!(
            "starting index {s} is greater than ending index {e}"
        ));
    }
    let step = match step {
        None => 1,
        Some(n) if n <= 0 => return Err("step must be > 0".into()),
        Some(n) => n as usize,
    };
    Ok(items[s as usize..e as usize].iter().step_by(step).collect())
}

fn passes(f: &Filter, item: &Value) -> Result<bool, String> {
    let lefts = operand_values(&f.left, item)?;
    let Some(op) = &f.op else {
        return Ok(!lefts.is_empty());
    };
    let left = match lefts.as_slice() {
        [] => return Ok(false),
        [one] => one.clone(),
        _ => return Err("can only compare one element at a time".into()),
    };
    if let (true, Operand::Regex(re)) = (op == "=~", &f.right) {
        let Value::String(data) = &left else {
            return Err("regexp search only supports strings".into());
        };
        return Ok(re.is_match(data));
    }
    let rights = operand_values(&f.right, item)?;
    let right = match rights.as_slice() {
        [] => return Ok(false),
        [one] => one.clone(),
        _ => return Err("can only compare one element at a time".into()),
    };
    if op == "=~" {
        let (Value::String(data), Value::String(pattern)) = (&left, &right) else {
            return Err("regexp search only supports strings".into());
        };
        let re = regex::Regex::new(pattern).map_err(|e| e.to_string())?;
        return Ok(re.is_match(data));
    }
    let ord = compare(&left, &right)?;
    Ok(match op.as_str() {
        "==" => ord == Some(Ordering::Equal),
        "!=" => ord != Some(Ordering::Equal),
        "<" => ord == Some(Ordering::Less),
        ">" => ord == Some(Ordering::Greater),
        "<=" => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
        _ => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
    })
}

fn operand_values(o: &Operand, item: &Value) -> Result<Vec<Value>, String> {
    match o {
        Operand::Literal(v) => Ok(vec![v.clone()]),
        Operand::Regex(re) => Ok(vec![Value::String(re.as_str().to_string())]),
        Operand::Path(steps) => Ok(eval(steps, vec![item])?.into_iter().cloned().collect()),
    }
}

/// Go template comparison (`text/template` `eq`, `lt`, ...) as client-go's fork runs it:
/// integers with integers, floats with floats, strings with strings, booleans only for
/// equality; other pairs are `incompatible types for comparison`.
fn compare(a: &Value, b: &Value) -> Result<Option<Ordering>, String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => Ok(Some(i.cmp(&j))),
            (None, None) => Ok(x.as_f64().partial_cmp(&y.as_f64())),
            _ => Err("incompatible types for comparison".into()),
        },
        (Value::String(x), Value::String(y)) => Ok(Some(x.cmp(y))),
        (Value::Bool(x), Value::Bool(y)) => Ok((x == y).then_some(Ordering::Equal)),
        _ => Err("incompatible types for comparison".into()),
    }
}
