//! Label selectors (the full Kubernetes grammar: `k=v`, `k==v`, `k!=v`,
//! `k in (a,b)`, `k notin (a)`, `k`, `!k`, `k>n`, `k<n`, comma = AND) and
//! field selectors on `metadata.name` / `metadata.namespace`.

use std::fmt;

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Equals,
    DoubleEquals,
    NotEquals,
    Bang,
    Open,
    Close,
    Comma,
    Greater,
    Less,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(s) => f.write_str(s),
            Token::Equals => f.write_str("="),
            Token::DoubleEquals => f.write_str("=="),
            Token::NotEquals => f.write_str("!="),
            Token::Bang => f.write_str("!"),
            Token::Open => f.write_str("("),
            Token::Close => f.write_str(")"),
            Token::Comma => f.write_str(","),
            Token::Greater => f.write_str(">"),
            Token::Less => f.write_str("<"),
        }
    }
}

fn is_special(c: char) -> bool {
    matches!(c, '(' | ')' | ',' | '=' | '!' | '<' | '>') || c.is_whitespace()
}

fn lex(input: &str) -> Vec<Token> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        let (token, width) = match chars[i] {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            ',' => (Token::Comma, 1),
            '>' => (Token::Greater, 1),
            '<' => (Token::Less, 1),
            '=' if next == Some('=') => (Token::DoubleEquals, 2),
            '=' => (Token::Equals, 1),
            '!' if next == Some('=') => (Token::NotEquals, 2),
            '!' => (Token::Bang, 1),
            _ => {
                let start = i;
                while i < chars.len() && !is_special(chars[i]) {
                    i += 1;
                }
                tokens.push(Token::Ident(chars[start..i].iter().collect()));
                continue;
            }
        };
        tokens.push(token);
        i += width;
    }
    tokens
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Equals(String),
    NotEquals(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
    Greater(i64),
    Less(i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    op: Op,
}

impl Requirement {
    fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        let value = labels
            .and_then(|l| l.get(&self.key))
            .and_then(Value::as_str);
        match (&self.op, value) {
            (Op::Exists, v) => v.is_some(),
            (Op::DoesNotExist, v) => v.is_none(),
            (Op::Equals(want), v) => v == Some(want.as_str()),
            (Op::NotEquals(want), v) => v != Some(want.as_str()),
            (Op::In(set), v) => v.is_some_and(|v| set.iter().any(|s| s == v)),
            (Op::NotIn(set), v) => !v.is_some_and(|v| set.iter().any(|s| s == v)),
            (Op::Greater(n), v) => v
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > *n),
            (Op::Less(n), v) => v
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < *n),
        }
    }
}

/// A parsed label selector; every requirement must hold (AND).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LabelSelector {
    requirements: Vec<Requirement>,
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        token
    }

    fn describe(token: Option<&Token>) -> String {
        token.map_or_else(|| "end of string".to_string(), |t| format!("'{t}'"))
    }

    fn key(&mut self) -> Result<String, String> {
        match self.next() {
            Some(Token::Ident(key)) => {
                validate_key(&key)?;
                Ok(key)
            }
            other => Err(format!(
                "found {}, expected: identifier",
                Self::describe(other.as_ref())
            )),
        }
    }

    fn exact_value(&mut self) -> Result<String, String> {
        match self.peek() {
            None | Some(Token::Comma) => Ok(String::new()),
            Some(Token::Ident(_)) => {
                let Some(Token::Ident(value)) = self.next() else {
                    unreachable!("peeked an identifier")
                };
                validate_value(&value)?;
                Ok(value)
            }
            other => Err(format!(
                "found {}, expected: identifier",
                Self::describe(other)
            )),
        }
    }

    fn value_set(&mut self) -> Result<Vec<String>, String> {
        if self.next() != Some(Token::Open) {
            return Err("found something else, expected: '('".to_string());
        }
        let mut values = Vec::new();
        loop {
            match self.next() {
                Some(Token::Ident(value)) => {
                    validate_value(&value)?;
                    values.push(value);
                }
                other => {
                    return Err(format!(
                        "found {}, expected: identifier in value set",
                        Self::describe(other.as_ref())
                    ))
                }
            }
            match self.next() {
                Some(Token::Comma) => continue,
                Some(Token::Close) => return Ok(values),
                other => {
                    return Err(format!(
                        "found {}, expected: ',' or ')'",
                        Self::describe(other.as_ref())
                    ))
                }
            }
        }
    }

    fn integer(&mut self) -> Result<i64, String> {
        match self.next() {
            Some(Token::Ident(n)) => n.parse().map_err(|_| {
                format!("for 'gt', 'lt' operators, the value must be an integer: {n}")
            }),
            other => Err(format!(
                "found {}, expected: integer",
                Self::describe(other.as_ref())
            )),
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        if self.peek() == Some(&Token::Bang) {
            self.next();
            let key = self.key()?;
            return Ok(Requirement {
                key,
                op: Op::DoesNotExist,
            });
        }
        let key = self.key()?;
        let op = match self.peek().cloned() {
            None | Some(Token::Comma) => Op::Exists,
            Some(Token::Equals | Token::DoubleEquals) => {
                self.next();
                Op::Equals(self.exact_value()?)
            }
            Some(Token::NotEquals) => {
                self.next();
                Op::NotEquals(self.exact_value()?)
            }
            Some(Token::Greater) => {
                self.next();
                Op::Greater(self.integer()?)
            }
            Some(Token::Less) => {
                self.next();
                Op::Less(self.integer()?)
            }
            Some(Token::Ident(word)) if word == "in" => {
                self.next();
                Op::In(self.value_set()?)
            }
            Some(Token::Ident(word)) if word == "notin" => {
                self.next();
                Op::NotIn(self.value_set()?)
            }
            Some(other) => {
                return Err(format!(
                    "found '{other}', expected: in, notin, =, ==, !=, gt, lt"
                ))
            }
        };
        Ok(Requirement { key, op })
    }
}

/// Checks a label key: an optional DNS-subdomain prefix and `/`, then a
/// name of at most 63 characters of `[A-Za-z0-9._-]` with alphanumeric ends.
fn validate_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let ok = !prefix.is_empty()
            && prefix.len() <= 253
            && prefix
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
            && prefix.starts_with(|c: char| c.is_ascii_alphanumeric())
            && prefix.ends_with(|c: char| c.is_ascii_alphanumeric());
        if !ok {
            return Err(format!(
                "invalid label key \"{key}\": prefix part must be a DNS subdomain"
            ));
        }
    }
    if name.is_empty() || !is_label_name(name) {
        return Err(format!(
            "invalid label key \"{key}\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        ));
    }
    Ok(())
}

fn is_label_name(s: &str) -> bool {
    s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.ends_with(|c: char| c.is_ascii_alphanumeric())
}

/// Checks a label value: empty, or a valid label name.
fn validate_value(value: &str) -> Result<(), String> {
    if value.is_empty() || is_label_name(value) {
        Ok(())
    } else {
        Err(format!(
            "invalid label value: \"{value}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        ))
    }
}

impl LabelSelector {
    /// Parses a selector; the empty string selects everything. The error is a
    /// message in the style of kube-apiserver's.
    pub(crate) fn parse(input: &str) -> Result<LabelSelector, String> {
        let mut parser = Parser {
            tokens: lex(input),
            pos: 0,
        };
        let mut requirements = Vec::new();
        if parser.peek().is_none() {
            return Ok(LabelSelector { requirements });
        }
        loop {
            requirements.push(
                parser
                    .requirement()
                    .map_err(|e| format!("unable to parse requirement: {e}"))?,
            );
            match parser.next() {
                None => return Ok(LabelSelector { requirements }),
                Some(Token::Comma) if parser.peek().is_some() => continue,
                Some(Token::Comma) => {
                    return Err("found ',' at the end of the selector, expected: identifier".into())
                }
                Some(other) => {
                    return Err(format!("found '{other}', expected: ',' or 'end of string'"))
                }
            }
        }
    }

    /// Whether an object with these labels (`metadata.labels`) is selected.
    pub(crate) fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

/// A field selector term's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Namespace,
}

/// A parsed field selector over `metadata.name` and `metadata.namespace`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldSelector {
    terms: Vec<(Field, bool, String)>,
}

impl FieldSelector {
    /// Parses `field=value`, `field==value`, `field!=value` terms joined by
    /// commas; the empty string selects everything.
    pub(crate) fn parse(input: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        if input.trim().is_empty() {
            return Ok(FieldSelector { terms });
        }
        for term in input.split(',') {
            let (field, equal, value) = if let Some((k, v)) = term.split_once("!=") {
                (k, false, v)
            } else if let Some((k, v)) = term.split_once("==") {
                (k, true, v)
            } else if let Some((k, v)) = term.split_once('=') {
                (k, true, v)
            } else {
                return Err(format!(
                    "invalid selector: '{input}'; can't understand '{term}'"
                ));
            };
            let field = match field.trim() {
                "metadata.name" => Field::Name,
                "metadata.namespace" => Field::Namespace,
                other => return Err(format!("field label not supported: {other}")),
            };
            terms.push((field, equal, value.trim().to_string()));
        }
        Ok(FieldSelector { terms })
    }

    /// Whether an object with this name and namespace (`""` when
    /// cluster-scoped) is selected.
    pub(crate) fn matches(&self, name: &str, namespace: &str) -> bool {
        self.terms.iter().all(|(field, equal, value)| {
            let actual = match field {
                Field::Name => name,
                Field::Namespace => namespace,
            };
            (actual == value) == *equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sel(s: &str) -> LabelSelector {
        LabelSelector::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn labels(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn evaluates_every_operator() {
        let l = labels(json!({"app": "web", "tier": "front", "n": "5"}));
        let yes = [
            "",
            "app=web",
            "app==web",
            "app!=db",
            "missing!=x",
            "app in (web,db)",
            "app in(db, web)",
            "tier notin (back)",
            "missing notin (x)",
            "app",
            "!missing",
            "n>4",
            "n<6",
            " app = web , tier in ( front ) ",
            "example.com/role!=x",
        ];
        for s in yes {
            assert!(sel(s).matches(Some(&l)), "{s} should match");
        }
        let no = [
            "app=db",
            "app!=web",
            "app in (db)",
            "missing in (x)",
            "app notin (web)",
            "missing",
            "!app",
            "n>5",
            "app=web,tier=back",
        ];
        for s in no {
            assert!(!sel(s).matches(Some(&l)), "{s} should not match");
        }
        assert!(sel("app!=web").matches(None));
        assert!(sel("x=").matches(Some(&labels(json!({"x": ""})))));
    }

    #[test]
    fn rejects_malformed_selectors() {
        for s in [
            "app=web=x",
            "app in (a",
            "app in ()",
            "app in a",
            "=web",
            "app=web,",
            "app notin",
            "a b",
            "app=-bad-",
            "n>x",
            "(app)",
            "bad key=x",
            "/x=y",
        ] {
            assert!(LabelSelector::parse(s).is_err(), "{s} should be rejected");
        }
    }

    #[test]
    fn field_selectors() {
        let f = FieldSelector::parse("metadata.name=a,metadata.namespace!=kube-system").unwrap();
        assert!(f.matches("a", "default"));
        assert!(!f.matches("b", "default"));
        assert!(!f.matches("a", "kube-system"));
        assert!(FieldSelector::parse("metadata.name==a")
            .unwrap()
            .matches("a", ""));
        assert!(FieldSelector::parse("spec.x=1").is_err());
        assert!(FieldSelector::parse("metadata.name").is_err());
    }
}
