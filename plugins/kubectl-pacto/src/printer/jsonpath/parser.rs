//! Reading a template into nodes, as client-go's `util/jsonpath/parser.go` does (the node
//! kinds of `node.go`): text outside braces; inside an action, paths (`.field`, `['key']`,
//! `..`, `*`, `[n]`, `[start:end:step]`, unions, `[?(...)]` filters), quoted text, and
//! `range` … `end`. Errors are client-go's texts where it has one.

use serde_json::Value;

/// One node of a template (client-go `NodeText`, `ListNode`, `NodeRange`).
#[derive(Debug, Clone)]
pub(super) enum Node {
    Text(String),
    Path(Vec<Step>),
    Range(Vec<Step>, Vec<Node>),
}

/// One step of a path (client-go `FieldNode`, `WildcardNode`, `RecursiveNode`, `ArrayNode`
/// as `[start:end:step]` with whether the end is derived from a single index, `UnionNode`,
/// `FilterNode`).
#[derive(Debug, Clone)]
pub(super) enum Step {
    Field(String),
    Wildcard,
    Recursive,
    Slice(Option<i64>, Option<i64>, Option<i64>, bool),
    Union(Vec<Vec<Step>>),
    Filter(Box<Filter>),
}

/// `[?(left op right)]`, or `[?(left)]` (the path exists) without an operator.
#[derive(Debug, Clone)]
pub(super) struct Filter {
    pub(super) left: Operand,
    pub(super) op: Option<String>,
    pub(super) right: Operand,
}

/// One side of a filter.
#[derive(Debug, Clone)]
pub(super) enum Operand {
    Path(Vec<Step>),
    Literal(Value),
    /// The literal pattern of `=~`, compiled once.
    Regex(regex::Regex),
}

enum Token {
    Node(Node),
    Range(Vec<Step>),
    End,
}

/// The nodes of `text` (its length already bounded by the caller).
pub(super) fn parse(text: &str) -> Result<Vec<Node>, String> {
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
    build(&mut tokens, false)
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
