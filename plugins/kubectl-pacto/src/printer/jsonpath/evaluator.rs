//! Running parsed nodes on an object as client-go's `util/jsonpath/jsonpath.go` does with
//! missing keys allowed (kubectl's `--allow-missing-template-keys=true`).
//!
//! `FindResults`: each top-level node gives one list of results; `range` starts a loop over its
//! results that runs the following nodes on each, up to the `end` that closes it (a range never
//! closed runs to the end of the template, and the nodes after it then run again on the
//! object); a range over nothing still runs its body once on no value, for its errors only.
//! `PrintResults`: the results of one list joined by a space, strings as they are, numbers and
//! booleans as Go prints them, null as `null`, maps and lists as compact JSON (Go's
//! `json.Marshal`); as JSON (`jsonpath-as-json`), each list as an indented JSON array and a
//! newline. Filters compare as client-go's fork of Go's `text/template` does.
//!
//! Go iterates maps in random order, so `*` and `..` over a map with several keys print in a
//! different order at each run of kubectl; here they follow the object's key order.
//!
//! The work is bounded: a template is short, but nested ranges multiply.

use super::parser::{Filter, Node, Param};
use pacto_gates::k8s::gofmt;
use serde_json::Value;

/// The most text a template may print: a template is short, but `{range}` nesting multiplies.
pub const MAX_OUTPUT_BYTES: usize = 256 << 20;
/// The most nodes a template may run, over all `{range}` iterations.
pub const MAX_STEPS: usize = 10_000_000;
/// The most values one step may produce: a bound on recursive descent over a huge object.
const MAX_RESULTS: usize = 10_000_000;
/// The deepest nesting of running ranges.
const MAX_RANGE_DEPTH: usize = 1_000;

/// One result (a Go `reflect.Value` of a decoded object): a value of the object, a literal of
/// the template (text, a number, a boolean), a byte of a string (`*` over a string gives its
/// bytes, as Go indexes strings), or no value at all (the zero `reflect.Value` a range over
/// nothing runs its body on).
#[derive(Debug, Clone)]
pub enum Res<'v> {
    Ref(&'v Value),
    Lit(Value),
    Byte(u8),
    Zero,
}

impl Res<'_> {
    /// The JSON value (a byte as a number, no value as null).
    pub fn to_value(&self) -> Value {
        match self {
            Res::Ref(v) => (*v).clone(),
            Res::Lit(v) => v.clone(),
            Res::Byte(b) => Value::from(*b),
            Res::Zero => Value::Null,
        }
    }

    fn json(&self) -> Option<&Value> {
        match self {
            Res::Ref(v) => Some(v),
            Res::Lit(v) => Some(v),
            _ => None,
        }
    }

    /// Go's `%T` of the value (`map[string]interface {}`, `string`, `uint8`, ...).
    fn go_type(&self) -> &'static str {
        match self {
            Res::Byte(_) => "uint8",
            Res::Zero => "<invalid reflect.Value>",
            r => gofmt::go_type(r.json().unwrap_or(&Value::Null)),
        }
    }

    /// Go's `%v` of the `reflect.Value`.
    fn sprint(&self) -> String {
        match self {
            Res::Byte(b) => b.to_string(),
            Res::Zero => "<invalid reflect.Value>".into(),
            r => gofmt::sprint(r.json().unwrap_or(&Value::Null)),
        }
    }
}

/// The state of one run (client-go's range counters).
struct Run<'n> {
    root: &'n [Node],
    begin_range: usize,
    in_range: usize,
    end_range: usize,
    last_end: Option<usize>,
    steps: usize,
    depth: usize,
    /// Results kept so far, over all lists.
    results: usize,
}

/// client-go `FindResults`: one list of results per node that prints.
pub(super) fn find_results<'v>(
    root: &[Node],
    data: &'v Value,
) -> Result<Vec<Vec<Res<'v>>>, String> {
    let mut run = Run {
        root,
        begin_range: 0,
        in_range: 0,
        end_range: 0,
        last_end: None,
        steps: 0,
        depth: 0,
        results: 0,
    };
    let mut out = Vec::new();
    run.find(0, Res::Ref(data), &mut out)?;
    Ok(out)
}

impl Run<'_> {
    fn step(&mut self) -> Result<(), String> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(format!(
                "the template ran more than {MAX_STEPS} steps (nested ranges multiply)"
            ));
        }
        Ok(())
    }

    /// The nodes from `from` on `data`, up to the `end` of the running range; their results
    /// appended to `full`.
    fn find<'v>(
        &mut self,
        from: usize,
        data: Res<'v>,
        full: &mut Vec<Vec<Res<'v>>>,
    ) -> Result<(), String> {
        let mut i = from;
        while i < self.root.len() {
            self.step()?;
            let results = self.walk(vec![data.clone()], &self.root[i])?;
            if self.end_range > 0 && self.end_range <= self.in_range {
                self.end_range -= 1;
                self.last_end = Some(i);
                break;
            }
            if self.begin_range > 0 {
                self.begin_range -= 1;
                self.in_range += 1;
                self.depth += 1;
                if self.depth > MAX_RANGE_DEPTH {
                    return Err(format!("ranges nested more than {MAX_RANGE_DEPTH} deep"));
                }
                if results.is_empty() {
                    let mut discarded = Vec::new();
                    self.find(i + 1, Res::Zero, &mut discarded)?;
                } else {
                    for value in results {
                        self.step()?;
                        self.find(i + 1, value, full)?;
                    }
                }
                self.depth -= 1;
                self.in_range -= 1;
                // Resume after the end that closed this range, if it is ahead.
                if let Some(k) = self.last_end.filter(|k| *k > i) {
                    i = k;
                }
                i += 1;
                continue;
            }
            self.results += results.len();
            if self.results > MAX_RESULTS {
                return Err(format!("more than {MAX_RESULTS} results"));
            }
            full.push(results);
            i += 1;
        }
        Ok(())
    }

    fn walk<'v>(&mut self, input: Vec<Res<'v>>, node: &Node) -> Result<Vec<Res<'v>>, String> {
        let out = match node {
            Node::List(nodes) => self.list(input, nodes)?,
            Node::Text(t) => vec![Res::Lit(Value::String(t.clone()))],
            Node::Int(n) => vec![Res::Lit(Value::from(*n)); input.len()],
            Node::Float(f) => vec![Res::Lit(Value::from(*f)); input.len()],
            Node::Bool(b) => vec![Res::Lit(Value::Bool(*b)); input.len()],
            Node::Field(name) => field(input, name),
            Node::Wildcard => wildcard(input),
            Node::Recursive => recursive(input),
            Node::Array(params) => array(input, params)?,
            Node::Union(members) => {
                let mut out = Vec::new();
                for m in members {
                    out.extend(self.list(input.clone(), m)?);
                }
                out
            }
            Node::Filter(f) => self.filter(input, f)?,
            Node::Identifier(name) => match name.as_str() {
                "range" => {
                    self.begin_range += 1;
                    input
                }
                "end" if self.in_range > 0 => {
                    self.end_range += 1;
                    Vec::new()
                }
                "end" => return Err("not in range, nothing to end".into()),
                other => return Err(format!("unrecognized identifier {other}")),
            },
        };
        if out.len() > MAX_RESULTS {
            return Err(format!("more than {MAX_RESULTS} results"));
        }
        Ok(out)
    }

    fn list<'v>(&mut self, input: Vec<Res<'v>>, nodes: &[Node]) -> Result<Vec<Res<'v>>, String> {
        let mut cur = input;
        for n in nodes {
            self.step()?;
            cur = self.walk(cur, n)?;
        }
        Ok(cur)
    }

    /// Whether `[?(path)]` keeps `item`: client-go ignores the error of the path and looks at
    /// what the failing step returned, which for most steps is its input (`[0]` of a string
    /// keeps the string: the item is kept), and nothing for a stray `end`.
    fn exists<'v>(&mut self, item: Res<'v>, nodes: &[Node]) -> bool {
        let mut cur = vec![item];
        for n in nodes {
            match self.walk(cur.clone(), n) {
                Ok(next) => cur = next,
                Err(_) => {
                    return match n {
                        Node::Identifier(name) if name == "end" => false,
                        Node::List(inner) => self.exists_list(cur, inner),
                        _ => !cur.is_empty(),
                    }
                }
            }
        }
        !cur.is_empty()
    }

    /// [`Run::exists`] for a nested list run on several values.
    fn exists_list<'v>(&mut self, input: Vec<Res<'v>>, nodes: &[Node]) -> bool {
        let mut cur = input;
        for n in nodes {
            match self.walk(cur.clone(), n) {
                Ok(next) => cur = next,
                Err(_) => {
                    return !matches!(n, Node::Identifier(x) if x == "end") && !cur.is_empty()
                }
            }
        }
        !cur.is_empty()
    }

    fn filter<'v>(&mut self, input: Vec<Res<'v>>, f: &Filter) -> Result<Vec<Res<'v>>, String> {
        let mut results = Vec::new();
        for value in input {
            let Some(Value::Array(items)) = (match &value {
                Res::Ref(v) => Some(*v),
                _ => None,
            }) else {
                return Err(format!(
                    "{} is not array or slice and cannot be filtered",
                    value.sprint()
                ));
            };
            for item in items {
                if f.op == "exists" {
                    if self.exists(Res::Ref(item), &f.left) {
                        results.push(Res::Ref(item));
                    }
                    continue;
                }
                let lefts = self.list(vec![Res::Ref(item)], &f.left)?;
                let left = match lefts.as_slice() {
                    [] => continue,
                    [one] => one.clone(),
                    _ => return Err("can only compare one element at a time".into()),
                };
                let rights = self.list(vec![Res::Ref(item)], &f.right)?;
                let right = match rights.as_slice() {
                    [] => continue,
                    [one] => one.clone(),
                    _ => return Err("can only compare one element at a time".into()),
                };
                let pass = match f.op.as_str() {
                    "<" => less(&left, &right)?,
                    ">" => !less_equal(&left, &right)?,
                    "==" => equal(&left, &right)?,
                    "!=" => !equal(&left, &right)?,
                    "<=" => less_equal(&left, &right)?,
                    ">=" => !less(&left, &right)?,
                    other => return Err(format!("unrecognized filter operator {other}")),
                };
                if pass {
                    results.push(Res::Ref(item));
                }
            }
        }
        Ok(results)
    }
}

/// client-go `evalField`: the key of each map (a key holding null is found).
fn field<'v>(input: Vec<Res<'v>>, name: &str) -> Vec<Res<'v>> {
    input
        .into_iter()
        .filter_map(|r| match r {
            Res::Ref(Value::Object(m)) => m.get(name).map(Res::Ref),
            _ => None,
        })
        .collect()
}

/// The children `*` gives: a map's values, a list's items, a string's bytes.
fn children<'v>(r: &Res<'v>) -> Vec<Res<'v>> {
    match r {
        Res::Ref(Value::Object(m)) => m.values().map(Res::Ref).collect(),
        Res::Ref(Value::Array(a)) => a.iter().map(Res::Ref).collect(),
        Res::Ref(Value::String(s)) | Res::Lit(Value::String(s)) => {
            s.bytes().map(Res::Byte).collect()
        }
        _ => Vec::new(),
    }
}

fn wildcard<'v>(input: Vec<Res<'v>>) -> Vec<Res<'v>> {
    input.iter().flat_map(children).collect()
}

/// client-go `evalRecursive`: each value that has children, then their descent, depth first
/// (a string's bytes have none, so a non-empty string is listed and its bytes are not).
fn recursive<'v>(input: Vec<Res<'v>>) -> Vec<Res<'v>> {
    let mut out = Vec::new();
    let mut stack: Vec<Res<'v>> = input.into_iter().rev().collect();
    while let Some(v) = stack.pop() {
        let is_string = matches!(v.json(), Some(Value::String(s)) if !s.is_empty());
        if is_string {
            out.push(v);
            continue;
        }
        let kids = children(&v);
        if kids.is_empty() {
            continue;
        }
        out.push(v);
        if out.len() > MAX_RESULTS {
            break;
        }
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// client-go `evalArray`: `[start:end:step]` of each list.
fn array<'v>(input: Vec<Res<'v>>, params: &[Param; 3]) -> Result<Vec<Res<'v>>, String> {
    let mut result = Vec::new();
    for value in input {
        let items = match &value {
            Res::Ref(Value::Null) => continue,
            Res::Ref(Value::Array(a)) => a,
            other => return Err(format!("{} is not array or slice", other.go_type())),
        };
        let len = items.len() as i64;
        let [mut p0, mut p1, p2] = *params;
        if !p0.known {
            p0.value = 0;
        }
        if p0.value < 0 {
            p0.value += len;
        }
        if !p1.known {
            p1.value = len;
        }
        if p1.value < 0 || (p1.value == 0 && p1.derived) {
            p1.value += len;
        }
        if p1.value == p0.value {
            // Zero elements asked for: client-go returns what it has so far.
            return Ok(result);
        }
        if p0.value >= len || p0.value < 0 {
            return Err(format!(
                "array index out of bounds: index {}, length {len}",
                p0.value
            ));
        }
        if p1.value > len || p1.value < 0 {
            return Err(format!(
                "array index out of bounds: index {}, length {len}",
                p1.value - 1
            ));
        }
        if p0.value > p1.value {
            return Err(format!(
                "starting index {} is greater than ending index {}",
                p0.value, p1.value
            ));
        }
        let step = if p2.known {
            if p2.value <= 0 {
                return Err("step must be > 0".into());
            }
            p2.value as usize
        } else {
            1
        };
        result.extend(
            items[p0.value as usize..p1.value as usize]
                .iter()
                .step_by(step)
                .map(Res::Ref),
        );
    }
    Ok(result)
}

/// The kinds Go's template comparisons know (`basicKind`).
#[derive(PartialEq)]
enum Kind<'a> {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(&'a str),
}

fn kind<'a>(r: &'a Res<'_>) -> Result<Kind<'a>, String> {
    match r {
        Res::Byte(b) => Ok(Kind::Uint(u64::from(*b))),
        Res::Ref(v) => json_kind(v),
        Res::Lit(v) => json_kind(v),
        Res::Zero => Err("invalid type for comparison".into()),
    }
}

fn json_kind(v: &Value) -> Result<Kind<'_>, String> {
    match v {
        Value::Bool(b) => Ok(Kind::Bool(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Ok(Kind::Int(i)),
            None => Ok(Kind::Float(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => Ok(Kind::Str(s)),
        _ => Err("invalid type for comparison".into()),
    }
}

const INCOMPATIBLE: &str = "incompatible types for comparison";

/// `template.Equal`.
fn equal(a: &Res<'_>, b: &Res<'_>) -> Result<bool, String> {
    Ok(match (kind(a)?, kind(b)?) {
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::Int(x), Kind::Int(y)) => x == y,
        (Kind::Uint(x), Kind::Uint(y)) => x == y,
        (Kind::Float(x), Kind::Float(y)) => x == y,
        (Kind::Str(x), Kind::Str(y)) => x == y,
        (Kind::Int(x), Kind::Uint(y)) | (Kind::Uint(y), Kind::Int(x)) => x >= 0 && x as u64 == y,
        _ => return Err(INCOMPATIBLE.into()),
    })
}

/// `template.Less`.
fn less(a: &Res<'_>, b: &Res<'_>) -> Result<bool, String> {
    Ok(match (kind(a)?, kind(b)?) {
        (Kind::Bool(_), Kind::Bool(_)) => return Err("invalid type for comparison".into()),
        (Kind::Int(x), Kind::Int(y)) => x < y,
        (Kind::Uint(x), Kind::Uint(y)) => x < y,
        (Kind::Float(x), Kind::Float(y)) => x < y,
        (Kind::Str(x), Kind::Str(y)) => x < y,
        (Kind::Int(x), Kind::Uint(y)) => x < 0 || (x as u64) < y,
        (Kind::Uint(x), Kind::Int(y)) => y >= 0 && x < y as u64,
        _ => return Err(INCOMPATIBLE.into()),
    })
}

/// `template.LessEqual`.
fn less_equal(a: &Res<'_>, b: &Res<'_>) -> Result<bool, String> {
    if less(a, b)? {
        return Ok(true);
    }
    equal(a, b)
}

/// client-go `PrintResults` of one list, appended to `out`: as text, or (`as_json`) as an
/// indented JSON array and a newline.
pub(super) fn print_results(results: &[Res<'_>], as_json: bool, out: &mut String) {
    if as_json {
        let list: Vec<Value> = results.iter().map(Res::to_value).collect();
        out.push_str(&gofmt::marshal_indent(&Value::Array(list), "    "));
        out.push('\n');
        return;
    }
    for (i, r) in results.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match r {
            Res::Zero => out.push_str("<no value>"),
            Res::Byte(b) => out.push_str(&b.to_string()),
            Res::Ref(v) => text(v, out),
            Res::Lit(v) => text(v, out),
        }
    }
}

/// One value as `PrintResults` prints it outside JSON mode.
fn text(v: &Value, out: &mut String) {
    match v {
        Value::Object(_) | Value::Array(_) => out.push_str(&gofmt::marshal(v)),
        Value::Null => out.push_str("null"),
        other => out.push_str(&gofmt::sprint(other)),
    }
}

/// The text (or JSON) `root` prints on `data`. Errors: a step's, or a bound passed.
pub(super) fn execute(root: &[Node], data: &Value, as_json: bool) -> Result<String, String> {
    let results = find_results(root, data)?;
    let mut out = String::new();
    for r in &results {
        print_results(r, as_json, &mut out);
        if out.len() > MAX_OUTPUT_BYTES {
            return Err(format!(
                "the output passed {} MiB (nested ranges multiply)",
                MAX_OUTPUT_BYTES >> 20
            ));
        }
    }
    Ok(out)
}
