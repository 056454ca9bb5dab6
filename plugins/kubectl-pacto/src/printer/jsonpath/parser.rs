//! Reading a template into nodes as client-go's `util/jsonpath/parser.go` scans it, one rune at
//! a time (the node kinds of `node.go`). Outside braces is text; an action (`{...}`) is a list of
//! nodes: fields (`.name`, with `\` escaping a terminator), `..` (recursive descent), `*`, array
//! selections (`[n]`, `[start:end:step]`, `['key']`, unions `[a,b]`), filters (`[?(left op
//! right)]`), quoted text (`"\n"`, `'x'`), numbers, `true`/`false`, and identifiers (`range`,
//! `end`, and any other word, which fails when it runs).
//!
//! What client-go accepts and refuses is kept, quirks included: `{}` is the current object and
//! `{.}` the field with the empty name (nothing); `[]` is `[0]`; `["x"]` is refused (`invalid
//! array index "x"`: only single quotes make a key); a filter's operator is the run of
//! `!<>=` after its left side, so `=~` is refused (`unrecognized character in action: U+007E
//! '~'`); `range` without `end` and unknown identifiers are accepted here and decided when the
//! template runs. Errors are client-go's texts.

/// One node (client-go `NodeText`, `NodeList`, `NodeField`, `NodeIdentifier`, `NodeInt`,
/// `NodeFloat`, `NodeBool`, `NodeArray`, `NodeFilter`, `NodeWildcard`, `NodeRecursive`,
/// `NodeUnion`).
#[derive(Debug, Clone)]
pub(super) enum Node {
    Text(String),
    List(Vec<Node>),
    Field(String),
    Identifier(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// `[start:end:step]`.
    Array([Param; 3]),
    Filter(Box<Filter>),
    Wildcard,
    Recursive,
    Union(Vec<Vec<Node>>),
}

/// One bound of an array selection (client-go `ParamsEntry`): given or not, and whether an end
/// was derived from a single index (`[n]` is `[n:n+1]`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Param {
    pub(super) value: i64,
    pub(super) known: bool,
    pub(super) derived: bool,
}

/// `[?(left op right)]`; `op` is `exists` for a filter without an operator.
#[derive(Debug, Clone)]
pub(super) struct Filter {
    pub(super) left: Vec<Node>,
    pub(super) right: Vec<Node>,
    pub(super) op: String,
}

/// The top-level nodes of `text` (its length already bounded by the caller): text nodes and one
/// list per action.
pub(super) fn parse(text: &str) -> Result<Vec<Node>, String> {
    let mut p = Scanner {
        input: text,
        pos: 0,
        start: 0,
        width: 0,
    };
    let mut root = Vec::new();
    loop {
        // Text up to the next `{`.
        loop {
            if p.rest().starts_with('{') {
                if p.pos > p.start {
                    root.push(Node::Text(p.consume().to_string()));
                }
                break;
            }
            if p.next().is_none() {
                if p.pos > p.start {
                    root.push(Node::Text(p.consume().to_string()));
                }
                return Ok(root);
            }
        }
        p.pos += 1;
        p.consume();
        let mut action = Vec::new();
        p.inside_action(&mut action)?;
        root.push(Node::List(action));
    }
}

/// A whole template made of one action's `text`, and that action's nodes (client-go
/// `parseAction`, used for union members, keys and the sides of a filter).
fn parse_action(text: &str) -> Result<Vec<Node>, String> {
    let mut nodes = parse(&format!("{{{text}}}"))?;
    match nodes.first_mut() {
        Some(Node::List(list)) => Ok(std::mem::take(list)),
        _ => Ok(Vec::new()),
    }
}

struct Scanner<'a> {
    input: &'a str,
    /// Byte offsets: the next rune, the start of the pending token, the last rune's width.
    pos: usize,
    start: usize,
    width: usize,
}

impl<'a> Scanner<'a> {
    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    /// The pending token, consumed.
    fn consume(&mut self) -> &'a str {
        let v = &self.input[self.start..self.pos];
        self.start = self.pos;
        v
    }

    /// The next rune (None at the end).
    fn next(&mut self) -> Option<char> {
        match self.rest().chars().next() {
            None => {
                self.width = 0;
                None
            }
            Some(c) => {
                self.width = c.len_utf8();
                self.pos += self.width;
                Some(c)
            }
        }
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    fn peek(&mut self) -> Option<char> {
        let r = self.next();
        self.backup();
        r
    }

    /// The nodes of one action, up to and including its `}`.
    fn inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            let rest = self.rest();
            if rest.starts_with('}') {
                self.pos += 1;
                self.consume();
                return Ok(());
            }
            if rest.starts_with("[?(") {
                self.filter(cur)?;
                continue;
            }
            if rest.starts_with("..") {
                if matches!(cur.last(), Some(Node::Recursive)) {
                    return Err("invalid multiple recursive descent".into());
                }
                self.pos += 2;
                self.consume();
                cur.push(Node::Recursive);
                if self.peek().is_some_and(is_alphanumeric) {
                    self.field(cur);
                }
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err("unclosed action".into()),
                Some(' ' | '@' | '$') => {
                    self.consume();
                }
                Some('[') => self.array(cur)?,
                Some(q @ ('"' | '\'')) => self.quote(cur, q)?,
                Some('.') => self.field(cur),
                Some(c) if c == '+' || c == '-' || is_digit(c) => {
                    self.backup();
                    self.number(cur)?;
                }
                Some(c) if is_alphanumeric(c) => {
                    self.backup();
                    self.identifier(cur);
                }
                Some(c) => {
                    return Err(format!(
                        "unrecognized character in action: {}",
                        go_rune_u(c)
                    ))
                }
            }
        }
    }

    fn identifier(&mut self, cur: &mut Vec<Node>) {
        loop {
            let r = self.next();
            if is_terminator(r) {
                self.backup();
                break;
            }
        }
        match self.consume() {
            "true" => cur.push(Node::Bool(true)),
            "false" => cur.push(Node::Bool(false)),
            word => cur.push(Node::Identifier(word.to_string())),
        }
    }

    fn number(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        loop {
            match self.next() {
                Some(c) if c == '.' || is_digit(c) => {}
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        let value = self.consume();
        if let Ok(i) = value.parse::<i64>() {
            cur.push(Node::Int(i));
        } else if let Some(f) = go_parse_float(value) {
            cur.push(Node::Float(f));
        } else {
            return Err(format!("cannot parse number {value}"));
        }
        Ok(())
    }

    /// `[...]` up to the first `]`: a union, a quoted key or a slice.
    fn array(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".into()),
                Some(']') => break,
                _ => {}
            }
        }
        let token = self.consume();
        let mut text = &token[1..token.len() - 1];
        if text == "*" {
            text = ":";
        }
        let members: Vec<&str> = text.split(',').collect();
        if members.len() > 1 {
            let mut union = Vec::with_capacity(members.len());
            for m in members {
                union.push(parse_action(&format!("[{}]", m.trim_matches(' ')))?);
            }
            cur.push(Node::Union(union));
            return Ok(());
        }
        if let Some(key) = single_quoted_key(text) {
            cur.extend(parse_action(&format!(".{key}"))?);
            return Ok(());
        }
        let Some(groups) = slice_groups(text) else {
            return Err(format!("invalid array index {text}"));
        };
        let mut params = [Param::default(); 3];
        for i in 0..3 {
            let mut g = groups[i];
            if !g.is_empty() {
                if i > 0 {
                    g = &g[1..];
                }
                if i > 0 && g.is_empty() {
                    params[i].known = false;
                } else {
                    params[i].known = true;
                    params[i].value = g
                        .parse()
                        .map_err(|_| format!("array index {g} is not a number"))?;
                }
            } else if i == 1 {
                params[i].known = true;
                params[i].value = params[0].value.saturating_add(1);
                params[i].derived = true;
            }
        }
        cur.push(Node::Array(params));
        Ok(())
    }

    /// `[?(...)]`: up to the `)` outside quotes, then `]`.
    fn filter(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        self.pos += 3;
        self.consume();
        let (mut begin, mut end) = (false, false);
        let mut pair = '\0';
        loop {
            let r = self.next();
            match r {
                None | Some('\n') => return Err("unterminated filter".into()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                        continue;
                    }
                    if self.input.as_bytes()[self.pos - 2] != b'\\' && q == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                _ => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        let token = self.consume();
        let text = &token[..token.len() - 2];
        let node = match split_filter(text) {
            None => Filter {
                left: parse_action(text)?,
                right: Vec::new(),
                op: "exists".into(),
            },
            Some((l, op, r)) => Filter {
                left: parse_action(l)?,
                right: parse_action(r)?,
                op: op.to_string(),
            },
        };
        cur.push(Node::Filter(Box::new(node)));
        Ok(())
    }

    /// Quoted text, up to the unescaped closing quote.
    fn quote(&mut self, cur: &mut Vec<Node>, end: char) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some(c) if c == end && self.input.as_bytes()[self.pos - 2] != b'\\' => break,
                _ => {}
            }
        }
        let value = self.consume();
        let text = unquote_extend(value)
            .ok_or_else(|| format!("unquote string {value} error invalid syntax"))?;
        cur.push(Node::Text(text));
        Ok(())
    }

    /// A field name after `.` up to the next unescaped terminator; backslashes are dropped.
    fn field(&mut self, cur: &mut Vec<Node>) {
        self.consume();
        loop {
            let r = self.next();
            if r == Some('\\') {
                self.next();
            } else if is_terminator(r) {
                self.backup();
                break;
            }
        }
        let value = self.consume();
        if value == "*" {
            cur.push(Node::Wildcard);
        } else {
            cur.push(Node::Field(value.replace('\\', "")));
        }
    }
}

/// The characters that end an identifier or a field name (client-go `isTerminator`).
fn is_terminator(r: Option<char>) -> bool {
    match r {
        None => true,
        Some(c) => matches!(
            c,
            ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'
        ),
    }
}

/// Go's `unicode.IsDigit` (decimal digits of any script, approximated by Rust's numeric class
/// beyond ASCII).
fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// client-go `isAlphaNumeric`: `_`, a letter or a digit.
fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphabetic() || is_digit(c)
}

/// Go's `%#U` of a rune: `U+007E '~'`, without the quoted rune when it is not printable.
fn go_rune_u(c: char) -> String {
    let printable = c == ' '
        || !(c.is_control()
            || c.is_whitespace()
            || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}'));
    if printable {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// client-go's `dictKeyRex` (`^'([^']*)'$`): the key of `['key']`.
fn single_quoted_key(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    (!inner.contains('\'')).then_some(inner)
}

/// client-go's `sliceOperatorRex` (`^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`): the three groups, each
/// empty when absent, the second and third with their colon.
fn slice_groups(text: &str) -> Option<[&str; 3]> {
    fn signed_digits(s: &str) -> usize {
        let sign = usize::from(s.starts_with('-'));
        sign + s[sign..].bytes().take_while(u8::is_ascii_digit).count()
    }
    let mut groups = [""; 3];
    let first = signed_digits(text);
    groups[0] = &text[..first];
    let mut rest = &text[first..];
    for g in groups.iter_mut().skip(1) {
        if let Some(r) = rest.strip_prefix(':') {
            let n = 1 + signed_digits(r);
            *g = &rest[..n];
            rest = &rest[n..];
        }
    }
    rest.is_empty().then_some(groups)
}

/// client-go's filter expression `^([^!<>=]+)([!<>=]+)(.+?)$`: the left side, the operator
/// (the run of `!<>=` after it) and a non-empty right side; None without an operator.
fn split_filter(text: &str) -> Option<(&str, &str, &str)> {
    let is_op = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let i = text.find(is_op)?;
    if i == 0 {
        return None;
    }
    let run = text[i..]
        .find(|c: char| !is_op(c))
        .unwrap_or(text.len() - i);
    let mut j = i + run;
    if j == text.len() {
        // The right side takes at least one character back from the operator.
        if run < 2 {
            return None;
        }
        j -= 1;
    }
    Some((&text[..i], &text[i..j], &text[j..]))
}

/// Go's `strconv.ParseFloat(s, 64)` on what a number token can hold (a sign, digits, dots).
fn go_parse_float(s: &str) -> Option<f64> {
    let digits = s.trim_start_matches(['+', '-']);
    if digits.is_empty() || digits == "." || digits.matches('.').count() > 1 {
        return None;
    }
    // Go reports a value beyond float64 as out of range.
    s.parse().ok().filter(|f: &f64| f.is_finite())
}

/// client-go `UnquoteExtend`: Go's `strconv.Unquote` for text in double or single quotes
/// (`\n`, `\t`, `\xNN`, `\NNN`, `\uNNNN`, `\UNNNNNNNN`; the other quote escaped is an error).
/// None: invalid syntax. A `\x` or octal byte that is not UTF-8 is kept as U+FFFD (the output is
/// text).
fn unquote_extend(s: &str) -> Option<String> {
    let quote = s.chars().next()?;
    if s.len() < 2 || !s.ends_with(quote) || !matches!(quote, '"' | '\'') {
        return None;
    }
    let body = &s[1..s.len() - 1];
    if !body.contains('\\') && !body.contains(quote) {
        return Some(body.to_string());
    }
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == quote {
            return None;
        }
        if c != '\\' {
            let mut b = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            continue;
        }
        let e = chars.next()?;
        let simple = match e {
            'a' => Some(7u8),
            'b' => Some(8),
            'f' => Some(12),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(11),
            '\\' => Some(b'\\'),
            '\'' | '"' if e == quote => Some(e as u8),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            continue;
        }
        match e {
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                for _ in 0..n {
                    v = v * 16 + chars.next()?.to_digit(16)?;
                }
                if e == 'x' {
                    out.push(v as u8);
                } else {
                    let c = char::from_u32(v)?;
                    let mut b = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                }
            }
            '0'..='7' => {
                let mut v = e.to_digit(8)?;
                for _ in 0..2 {
                    v = v * 8 + chars.next()?.to_digit(8)?;
                }
                if v > 255 {
                    return None;
                }
                out.push(v as u8);
            }
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_operators_as_client_gos_expression_splits_them() {
        assert_eq!(split_filter("@.a==1"), Some(("@.a", "==", "1")));
        assert_eq!(split_filter("@.a=="), Some(("@.a", "=", "=")));
        assert_eq!(split_filter("@.a="), None);
        assert_eq!(split_filter("@.a"), None);
        assert_eq!(split_filter("==1"), None);
        assert_eq!(split_filter("@.a=~'x'"), Some(("@.a", "=", "~'x'")));
    }

    #[test]
    fn slices_as_client_gos_expression_reads_them() {
        assert_eq!(slice_groups("1"), Some(["1", "", ""]));
        assert_eq!(slice_groups("-1:"), Some(["-1", ":", ""]));
        assert_eq!(slice_groups("::2"), Some(["", ":", ":2"]));
        assert_eq!(slice_groups(""), Some(["", "", ""]));
        assert_eq!(slice_groups("\"a\""), None);
        assert_eq!(slice_groups("1:2:3:4"), None);
    }

    #[test]
    fn quoted_text_as_go_unquotes_it() {
        assert_eq!(unquote_extend(r#""a\tb""#).as_deref(), Some("a\tb"));
        assert_eq!(unquote_extend(r"'it\'s'").as_deref(), Some("it's"));
        assert_eq!(unquote_extend(r#""\'""#), None);
        assert_eq!(unquote_extend(r#""\u00e9\101""#).as_deref(), Some("éA"));
        assert_eq!(unquote_extend(r#""\x""#), None);
    }
}
