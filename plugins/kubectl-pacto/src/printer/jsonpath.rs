//! kubectl's JSONPath templates (`-o jsonpath=…`, `custom-columns`, `--sort-by`), as client-go
//! `util/jsonpath` (`parser.go`, `jsonpath.go`) reads and runs them with missing keys allowed
//! (kubectl's `--allow-missing-template-keys=true` default).
//!
//! A template is text with actions in braces: `{.items[*].metadata.name}`, `{range
//! .items[*]}{.metadata.name}{"\n"}{end}`. Inside an action: `$` or `@` (the current object,
//! optional), `.field` or `['field']`, `..field` (recursive descent), `*` and `[*]`, `[n]` and
//! `[start:end:step]` (negative indices count from the end; out of range is an error),
//! `[a,b]` (union), `[?(@.x == "y")]` filters (`==`, `!=`, `<`, `>`, `<=`, `>=`, `=~`, or a bare
//! path: it exists), quoted text (`"\n"`), and `range` … `end`.
//!
//! Printing (client-go `PrintResults`): the results of one action are joined by a space; strings
//! print as they are, numbers and booleans as Go prints them, maps and lists as compact JSON
//! (Go's `json.Marshal`).

use pacto_gates::k8s::gofmt;
use serde_json::Value;
use std::cmp::Ordering;

/// A parsed template. Errors of [`Template::parse`] and [`Template::execute`] are client-go's
/// texts where it has one (`unclosed action`, `not in range, nothing to end`, `array index out
/// of bounds: index 5, length 2`, ...).
#[derive(Debug, Clone)]
pub struct Template {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Path(Vec<Step>),
    Range(Vec<Step>, Vec<Node>),
}

#[derive(Debug, Clone)]
enum Step {
    Field(String),
    Wildcard,
    Recursive,
    Slice(Option<i64>, Option<i64>, Option<i64>, bool),
    Union(Vec<Vec<Step>>),
    Filter(Box<Filter>),
}

#[derive(Debug, Clone)]
struct Filter {
    left: Operand,
    op: Option<String>,
    right: Operand,
}

#[derive(Debug, Clone)]
enum Operand {
    Path(Vec<Step>),
    Literal(Value),
    /// The literal pattern of `=~`, compiled once.
    Regex(regex::Regex),
}

/// The longest template (its work is bounded by [`MAX_STEPS`] and [`MAX_OUTPUT_BYTES`]).
const MAX_TEMPLATE_LEN: usize = 64 * 1024;

impl Template {
    /// Parses a template. Errors: an action without its `}`, an `end` outside a range, an
    /// unknown identifier, a malformed bracket or filter, a template over 64 KiB.
    pub fn parse(text: &str) -> Result<Template, String> {
        if text.len() > MAX_TEMPLATE_LEN {
            return Err(format!(
                "the template is {} bytes, over the bound of {MAX_TEMPLATE_LEN}",
                text.len()
            ));
        }
        let mut tokens = Vec::new();
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        let mut literal = String::new();
        while i < chars.len() {
            if chars[i] != '{' {
                literal.push(chars[i]);
                i += 1;
                continue;
            }
            if !literal.is_empty() {
                tokens.push(Token::Node(Node::Text(std::mem::take(&mut literal))));
            }
            let end = action_end(&chars, i + 1).ok_or("unclosed action")?;
            let inside: String = chars[i + 1..end].iter().collect();
            tokens.extend(parse_action(inside.trim())?);
            i = end + 1;
        }
        if !literal.is_empty() {
            tokens.push(Token::Node(Node::Text(literal)));
        }
        let mut tokens = tokens.into_iter();
        let nodes = build(&mut tokens, false)?;
        Ok(Template { nodes })
    }

    /// Runs the template on `data` and returns the text it prints. Errors: a step's (see
    /// above), output past [`MAX_OUTPUT_BYTES`], or more than [`MAX_STEPS`] values visited.
    pub fn execute(&self, data: &Value) -> Result<String, String> {
        let mut out = String::new();
        let mut steps = 0usize;
        run(&self.nodes, data, &mut out, &mut steps)?;
        Ok(out)
    }

    /// The values of a template that is one path (`custom-columns`, `--sort-by`): every result
    /// of its actions, in order. Text nodes are ignored.
    pub fn values<'v>(&self, data: &'v Value) -> Result<Vec<&'v Value>, String> {
        let mut out = Vec::new();
        for node in &self.nodes {
            match node {
                Node::Path(steps) => out.extend(eval(steps, vec![data])?),
                Node::Range(steps, _) => out.extend(eval(steps, vec![data])?),
                Node::Text(_) => {}
            }
        }
        Ok(out)
    }
}

/// kubectl's relaxed path (`RelaxedJSONPathExpression`): `.a.b`, `a.b`, `$.a.b` and `{.a.b}`
/// all mean `{.a.b}`. Errors: a template with more than one action or with text around it.
pub fn relaxed(expr: &str) -> Result<Template, String> {
    let e = expr.trim();
    let inner = match e.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        Some(inner) => inner.trim(),
        None => e,
    };
    if inner.is_empty() {
        return Err(format!("{expr:?}: an empty path"));
    }
    let inner = inner.strip_prefix('$').unwrap_or(inner);
    let body = if inner.starts_with('.') || inner.starts_with('[') {
        inner.to_string()
    } else {
        format!(".{inner}")
    };
    Template::parse(&format!("{{{body}}}")).map_err(|e| format!("{expr:?}: {e}"))
}

enum Token {
    Node(Node),
    Range(Vec<Step>),
    End,
}

fn build(tokens: &mut impl Iterator<Item = Token>, in_range: bool) -> Result<Vec<Node>, String> {
    let mut nodes = Vec::new();
    while let Some(t) = tokens.next() {
        match t {
            Token::Node(n) => nodes.push(n),
            Token::Range(steps) => {
                let body = build(tokens, true)?;
                nodes.push(Node::Range(steps, body));
            }
            Token::End if in_range => return Ok(nodes),
            Token::End => return Err("not in range, nothing to end".into()),
        }
    }
    // client-go runs an unclosed range to the end of the template.
    Ok(nodes)
}

/// The index of the `}` that closes the action opened before `from`, skipping quoted text and
/// brackets.
fn action_end(chars: &[char], from: usize) -> Option<usize> {
    let mut i = from;
    let mut depth = 0usize;
    while i < chars.len() {
        match chars[i] {
            '"' | '\'' => i = quote_end(chars, i)?,
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '}' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the one at `start` (backslash escapes honoured).
fn quote_end(chars: &[char], start: usize) -> Option<usize> {
    let q = chars[start];
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == q => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn parse_action(inside: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut rest = inside;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(tokens);
        }
        if let Some(r) = rest.strip_prefix("range") {
            if r.is_empty() || r.starts_with(char::is_whitespace) {
                let (steps, after) = parse_path(r.trim_start())?;
                tokens.push(Token::Range(steps));
                rest = after;
                continue;
            }
        }
        if let Some(r) = rest.strip_prefix("end") {
            if r.is_empty() || r.starts_with(char::is_whitespace) {
                tokens.push(Token::End);
                rest = r;
                continue;
            }
        }
        if rest.starts_with('"') {
            let chars: Vec<char> = rest.chars().collect();
            let end = quote_end(&chars, 0).ok_or("unterminated quoted string")?;
            let quoted: String = chars[..=end].iter().collect();
            tokens.push(Token::Node(Node::Text(unquote(&quoted)?)));
            rest = &rest[quoted.len()..];
            continue;
        }
        let (steps, after) = parse_path(rest)?;
        if after.len() == rest.len() {
            let word: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
            return Err(format!("unrecognized identifier {word}"));
        }
        tokens.push(Token::Node(Node::Path(steps)));
        rest = after;
    }
}

/// Go's `strconv.Unquote` of a double-quoted string: `\n`, `\t`, `\r`, `\\`, `\"`, `\xNN`,
/// `\uNNNN`, `\UNNNNNNNN`.
fn unquote(q: &str) -> Result<String, String> {
    let body = &q[1..q.len() - 1];
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next().ok_or("invalid syntax")?;
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            '\'' => out.push('\''),
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = chars.by_ref().take(n).collect();
                let code = u32::from_str_radix(&hex, 16).map_err(|_| "invalid syntax")?;
                out.push(char::from_u32(code).ok_or("invalid syntax")?);
            }
            _ => return Err("invalid syntax".into()),
        }
    }
    Ok(out)
}

/// A path at the start of `s`: the steps and what follows it (a space, or the end).
fn parse_path(s: &str) -> Result<(Vec<Step>, &str), String> {
    let mut steps = Vec::new();
    let mut rest = s;
    if let Some(r) = rest.strip_prefix('$').or_else(|| rest.strip_prefix('@')) {
        rest = r;
    }
    loop {
        if let Some(r) = rest.strip_prefix("..") {
            steps.push(Step::Recursive);
            let (name, after) = field_name(r);
            if name == "*" {
                steps.push(Step::Wildcard);
            } else if !name.is_empty() {
                steps.push(Step::Field(name));
            }
            rest = after;
        } else if let Some(r) = rest.strip_prefix('.') {
            let (name, after) = field_name(r);
            match name.as_str() {
                "" => {}
                "*" => steps.push(Step::Wildcard),
                _ => steps.push(Step::Field(name)),
            }
            rest = after;
        } else if rest.starts_with('[') {
            let chars: Vec<char> = rest.chars().collect();
            let close = bracket_end(&chars).ok_or("unterminated array")?;
            let inner: String = chars[1..close].iter().collect();
            let taken: usize = chars[..=close].iter().map(|c| c.len_utf8()).sum();
            steps.push(parse_bracket(inner.trim())?);
            rest = &rest[taken..];
        } else {
            return Ok((steps, rest));
        }
    }
}

/// A field name after a dot: up to the next `.`, `[`, space or end; `\.` keeps a dot.
fn field_name(s: &str) -> (String, &str) {
    let mut name = String::new();
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some((_, '.'))) => {
                name.push('.');
                chars.next();
            }
            '.' | '[' | ']' | ' ' | '\t' | '\n' | '(' | ')' | '=' | '!' | '<' | '>' | ',' => {
                return (name, &s[i..])
            }
            c => name.push(c),
        }
    }
    (name, "")
}

fn bracket_end(chars: &[char]) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '"' | '\'' => i = quote_end(chars, i)?,
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn parse_bracket(inner: &str) -> Result<Step, String> {
    if let Some(f) = inner.strip_prefix('?') {
        let f = f.trim();
        let body = f
            .strip_prefix('(')
            .and_then(|b| b.strip_suffix(')'))
            .ok_or_else(|| format!("invalid filter [{inner}]"))?;
        return Ok(Step::Filter(Box::new(parse_filter(body.trim())?)));
    }
    if inner == "*" {
        return Ok(Step::Wildcard);
    }
    let parts = split_top(inner, ',');
    if parts.len() > 1 {
        let mut union = Vec::new();
        for p in parts {
            union.push(bracket_member(p.trim())?);
        }
        return Ok(Step::Union(union));
    }
    if inner.starts_with('\'') || inner.starts_with('"') {
        let mut steps = quoted_path(inner)?;
        return Ok(match steps.len() {
            1 => steps.remove(0),
            _ => Step::Union(vec![steps]),
        });
    }
    parse_slice(inner)
}

fn bracket_member(p: &str) -> Result<Vec<Step>, String> {
    if p.starts_with('\'') || p.starts_with('"') {
        return quoted_path(p);
    }
    if p.starts_with('.') || p.starts_with('@') || p.starts_with('$') {
        let (steps, rest) = parse_path(p)?;
        if !rest.trim().is_empty() {
            return Err(format!("invalid union member {p}"));
        }
        return Ok(steps);
    }
    Ok(vec![parse_slice(p)?])
}

/// The text of a quoted key, quotes removed.
fn quoted_key(q: &str) -> Result<String, String> {
    if q.len() < 2 || !q.ends_with(&q[..1]) {
        return Err(format!("invalid key {q}"));
    }
    Ok(q[1..q.len() - 1].to_string())
}

/// A quoted key in brackets is a path: `['metadata.name']` is `.metadata.name`, and `\.` keeps
/// a dot in a key (`['kubernetes\.io/hostname']`), as client-go reads it.
fn quoted_path(q: &str) -> Result<Vec<Step>, String> {
    let key = quoted_key(q)?;
    let mut steps = Vec::new();
    let mut name = String::new();
    let mut chars = key.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'.') => {
                name.push('.');
                chars.next();
            }
            '.' => steps.push(Step::Field(std::mem::take(&mut name))),
            c => name.push(c),
        }
    }
    steps.push(Step::Field(name));
    Ok(steps)
}

fn parse_slice(inner: &str) -> Result<Step, String> {
    let parts: Vec<&str> = inner.split(':').collect();
    if parts.len() > 3 {
        return Err(format!("invalid array index {inner}"));
    }
    let num = |s: &str| -> Result<Option<i64>, String> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        s.parse()
            .map(Some)
            .map_err(|_| format!("invalid array index {inner}"))
    };
    let start = num(parts[0])?;
    if parts.len() == 1 {
        let Some(n) = start else {
            return Err(format!("invalid array index {inner}"));
        };
        // [n] is [n:n+1]; [-1] is [-1:0] with the end counted from the length (client-go's
        // "derived" end).
        return Ok(Step::Slice(Some(n), Some(n + 1), None, true));
    }
    let end = num(parts[1])?;
    let step = if parts.len() == 3 {
        num(parts[2])?
    } else {
        None
    };
    Ok(Step::Slice(start, end, step, false))
}

fn split_top(s: &str, sep: char) -> Vec<&str> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    let mut depth = 0i32;
    for &(i, c) in &chars {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn parse_filter(body: &str) -> Result<Filter, String> {
    for op in ["==", "!=", "<=", ">=", "=~", "<", ">"] {
        let parts = split_op(body, op);
        if let Some((l, r)) = parts {
            let mut right = operand(r.trim())?;
            if let (true, Operand::Literal(Value::String(p))) = (op == "=~", &right) {
                right = Operand::Regex(regex::Regex::new(p).map_err(|e| e.to_string())?);
            }
            return Ok(Filter {
                left: operand(l.trim())?,
                op: Some(op.to_string()),
                right,
            });
        }
    }
    Ok(Filter {
        left: operand(body)?,
        op: None,
        right: Operand::Literal(Value::Null),
    })
}

/// `body` split at the first `op` outside quotes.
fn split_op<'a>(body: &'a str, op: &str) -> Option<(&'a str, &'a str)> {
    let mut quote: Option<char> = None;
    for (i, c) in body.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, _) if body[i..].starts_with(op) => {
                return Some((&body[..i], &body[i + op.len()..]));
            }
            _ => {}
        }
    }
    None
}

fn operand(s: &str) -> Result<Operand, String> {
    if s.starts_with('@') || s.starts_with('$') || s.starts_with('.') {
        let (steps, rest) = parse_path(s)?;
        if !rest.trim().is_empty() {
            return Err(format!("invalid filter operand {s}"));
        }
        return Ok(Operand::Path(steps));
    }
    if s.starts_with('"') {
        return Ok(Operand::Literal(Value::String(unquote(s)?)));
    }
    if s.starts_with('\'') {
        return Ok(Operand::Literal(Value::String(quoted_key(s)?)));
    }
    match s {
        "true" => return Ok(Operand::Literal(Value::Bool(true))),
        "false" => return Ok(Operand::Literal(Value::Bool(false))),
        _ => {}
    }
    if let Ok(i) = s.parse::<i64>() {
        return Ok(Operand::Literal(Value::from(i)));
    }
    if let Ok(f) = s.parse::<f64>() {
        return Ok(Operand::Literal(Value::from(f)));
    }
    Err(format!("unrecognized filter operand {s}"))
}

/// The most text a template may print: a template is short, but `{range}` nesting multiplies.
pub const MAX_OUTPUT_BYTES: usize = 256 << 20;
/// The most nodes a template may run, over all `{range}` iterations.
pub const MAX_STEPS: usize = 10_000_000;

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

fn eval<'v>(steps: &[Step], mut cur: Vec<&'v Value>) -> Result<Vec<&'v Value>, String> {
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
                        return Err(format!("{} is not array or slice", go_type(v)));
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

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "map[string]interface {}",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        _ => "interface {}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The example object of kubectl's JSONPath reference page (kubernetes.io
    /// docs/reference/kubectl/jsonpath), and the results that page gives for each function.
    fn doc() -> Value {
        json!({
            "kind": "List",
            "items": [
                {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
                 "status": {"capacity": {"cpu": "4"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
                {"kind": "None", "metadata": {"name": "127.0.0.2"},
                 "status": {"capacity": {"cpu": "8"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"}, {"type": "another", "address": "127.0.0.3"}]}}
            ],
            "users": [
                {"name": "myself", "user": {}},
                {"name": "e2e", "user": {"username": "admin", "password": "secret"}}
            ]
        })
    }

    fn run(t: &str) -> String {
        Template::parse(t).unwrap().execute(&doc()).unwrap()
    }

    #[test]
    fn the_functions_of_kubectls_reference_page() {
        assert_eq!(run("kind is {.kind}"), "kind is List");
        assert_eq!(run("{.kind}"), "List");
        assert_eq!(run("{['kind']}"), "List");
        assert_eq!(run("{..name}"), "127.0.0.1 127.0.0.2 myself e2e");
        assert_eq!(run("{.items[*].metadata.name}"), "127.0.0.1 127.0.0.2");
        assert_eq!(run("{.users[0].name}"), "myself");
        assert_eq!(run("{.users[?(@.name==\"e2e\")].user.password}"), "secret");
        assert_eq!(
            run("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}"),
            "[127.0.0.1, {\"cpu\":\"4\"}] [127.0.0.2, {\"cpu\":\"8\"}] "
        );
        assert_eq!(
            run("{range .items[*]}{.metadata.name}{\"\\t\"}{end}"),
            "127.0.0.1\t127.0.0.2\t"
        );
        assert_eq!(run("{.items[-1:].metadata.name}"), "127.0.0.2");
        // The page shows Go's map[cpu:4]; client-go's PrintResults marshals maps as JSON.
        assert_eq!(
            run("{.items[*]['metadata.name', 'status.capacity']}"),
            "127.0.0.1 127.0.0.2 {\"cpu\":\"4\"} {\"cpu\":\"8\"}"
        );
        assert_eq!(
            run("{.items[*].metadata.labels['kubernetes\\.io/hostname']}"),
            "127.0.0.1"
        );
    }

    #[test]
    fn missing_keys_print_nothing_and_errors_are_client_gos() {
        assert_eq!(run("{.status.nothing}"), "");
        assert_eq!(run("a{.nothing}b"), "ab");
        let e = Template::parse("{.items[5]}")
            .unwrap()
            .execute(&doc())
            .unwrap_err();
        assert_eq!(e, "array index out of bounds: index 5, length 2");
        assert_eq!(Template::parse("{.kind").unwrap_err(), "unclosed action");
        assert_eq!(
            Template::parse("{end}").unwrap_err(),
            "not in range, nothing to end"
        );
        let e = Template::parse("{.kind[0]}")
            .unwrap()
            .execute(&doc())
            .unwrap_err();
        assert_eq!(e, "string is not array or slice");
    }

    #[test]
    fn relaxed_paths_as_custom_columns_read_them() {
        for p in [
            ".metadata.name",
            "metadata.name",
            "{.metadata.name}",
            "$.metadata.name",
        ] {
            let t = relaxed(p).unwrap();
            let v = json!({"metadata": {"name": "a"}});
            assert_eq!(t.values(&v).unwrap(), vec![&json!("a")], "{p}");
        }
        assert!(relaxed("").is_err());
    }

    /// Nested ranges multiply: the work and the output are bounded, whatever the template.
    #[test]
    fn nested_ranges_end_at_a_bound() {
        let v = json!({"a": 1});
        let tenfold = "{range [@,@,@,@,@,@,@,@,@,@]}";
        let t = tenfold.repeat(12) + "x" + &"{end}".repeat(12);
        let e = Template::parse(&t).unwrap().execute(&v).unwrap_err();
        assert!(
            e.starts_with("the output passed") || e.starts_with("the template ran more than"),
            "{e}"
        );
        let quiet = tenfold.repeat(12) + &"{end}".repeat(12);
        let e = Template::parse(&quiet).unwrap().execute(&v).unwrap_err();
        assert!(e.starts_with("the template ran more than"), "{e}");
    }

    #[test]
    fn filters_compare_like_go_templates() {
        let v = json!({"c": [{"t": "Ready", "n": 2}, {"t": "Synced", "n": 5}]});
        let t = |s: &str| Template::parse(s).unwrap().execute(&v);
        assert_eq!(t("{.c[?(@.n > 3)].t}").unwrap(), "Synced");
        assert_eq!(t("{.c[?(@.n <= 2)].t}").unwrap(), "Ready");
        assert_eq!(t("{.c[?(@.t != 'Ready')].n}").unwrap(), "5");
        assert_eq!(t("{.c[?(@.t =~ '^Syn')].n}").unwrap(), "5");
        assert_eq!(t("{.c[?(@.t)].n}").unwrap(), "2 5");
        assert_eq!(
            t("{.c[?(@.n == 'x')].t}").unwrap_err(),
            "incompatible types for comparison"
        );
    }
}
