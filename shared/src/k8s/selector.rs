//! Label selectors as `kubectl get -l` takes them, read and matched as apimachinery
//! `pkg/labels/selector.go` (`Parse`, `Requirement.Matches`) does: requirements joined by commas,
//! each `key`, `!key`, `key=value` (or `==`), `key!=value`, `key in (a,b)`, `key notin (a,b)`,
//! `key>N` or `key<N`. An empty selector matches everything; `!=` and `notin` also match objects
//! without the label.

use serde_json::Value;

/// How a requirement compares a label.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Exists,
    DoesNotExist,
    In(Vec<String>),
    NotIn(Vec<String>),
    Greater(i64),
    Less(i64),
}

/// One requirement: a key and how its value must compare.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    op: Op,
}

/// A parsed label selector.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selector(Vec<Requirement>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Not,
    NotEquals,
    Equals,
    Greater,
    Less,
    Open,
    Close,
    Comma,
}

fn special(c: char) -> bool {
    matches!(c, '!' | '=' | '>' | '<' | '(' | ')' | ',')
}

fn tokens(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        i += 1;
        let token = match c {
            c if c.is_whitespace() => continue,
            '!' if next == Some('=') => {
                i += 1;
                Token::NotEquals
            }
            '!' => Token::Not,
            '=' if next == Some('=') => {
                i += 1;
                Token::Equals
            }
            '=' => Token::Equals,
            '>' => Token::Greater,
            '<' => Token::Less,
            '(' => Token::Open,
            ')' => Token::Close,
            ',' => Token::Comma,
            _ => {
                let start = i - 1;
                while i < chars.len() && !chars[i].is_whitespace() && !special(chars[i]) {
                    i += 1;
                }
                Token::Word(chars[start..i].iter().collect())
            }
        };
        out.push(token);
    }
    out
}

/// A label value: at most 63 characters, alphanumerics with `-`, `_` and `.` inside.
fn valid_value(v: &str) -> bool {
    v.is_empty()
        || (v.len() <= 63
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && v.starts_with(|c: char| c.is_ascii_alphanumeric())
            && v.ends_with(|c: char| c.is_ascii_alphanumeric()))
}

/// A label key: an optional DNS subdomain prefix and `/`, then a non-empty name like a value.
fn valid_key(k: &str) -> bool {
    let (prefix, name) = match k.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, k),
    };
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|l| {
                !l.is_empty()
                    && l.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !l.starts_with('-')
                    && !l.ends_with('-')
            })
    });
    prefix_ok && !name.is_empty() && valid_value(name)
}

impl Selector {
    /// Reads a selector. Errors name the requirement at fault and what was expected.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let toks = tokens(s);
        let mut reqs = Vec::new();
        let mut i = 0;
        let word = |i: usize| match toks.get(i) {
            Some(Token::Word(w)) => Some(w.clone()),
            _ => None,
        };
        while i < toks.len() {
            let negated = toks[i] == Token::Not;
            if negated {
                i += 1;
            }
            let key = word(i).ok_or_else(|| format!("{s:?}: expected a label key"))?;
            if !valid_key(&key) {
                return Err(format!("{s:?}: {key:?} is not a valid label key"));
            }
            i += 1;
            let at_end = |i: usize| matches!(toks.get(i), None | Some(Token::Comma));
            let op = if negated {
                if !at_end(i) {
                    return Err(format!("{s:?}: nothing may follow !{key}"));
                }
                Op::DoesNotExist
            } else if at_end(i) {
                Op::Exists
            } else {
                let tok = toks[i].clone();
                i += 1;
                match tok {
                    Token::Equals | Token::NotEquals => {
                        let value = if at_end(i) {
                            String::new()
                        } else {
                            let v = word(i)
                                .ok_or_else(|| format!("{s:?}: expected a value after {key}"))?;
                            i += 1;
                            v
                        };
                        if tok == Token::Equals {
                            Op::In(vec![value])
                        } else {
                            Op::NotIn(vec![value])
                        }
                    }
                    Token::Greater | Token::Less => {
                        let n = word(i)
                            .and_then(|w| w.parse::<i64>().ok())
                            .ok_or_else(|| format!("{s:?}: {key} needs an integer to compare"))?;
                        i += 1;
                        if tok == Token::Greater {
                            Op::Greater(n)
                        } else {
                            Op::Less(n)
                        }
                    }
                    Token::Word(w) if w == "in" || w == "notin" => {
                        if toks.get(i) != Some(&Token::Open) {
                            return Err(format!("{s:?}: expected ( after {key} {w}"));
                        }
                        i += 1;
                        let mut values = Vec::new();
                        loop {
                            match toks.get(i) {
                                Some(Token::Word(v)) => values.push(v.clone()),
                                Some(Token::Close) => break,
                                _ => {
                                    return Err(format!(
                                        "{s:?}: expected a value or ) in {key} {w} (...)"
                                    ))
                                }
                            }
                            i += 1;
                            match toks.get(i) {
                                Some(Token::Comma) => i += 1,
                                Some(Token::Close) => break,
                                _ => {
                                    return Err(format!(
                                        "{s:?}: expected , or ) in {key} {w} (...)"
                                    ))
                                }
                            }
                        }
                        i += 1;
                        if values.is_empty() {
                            return Err(format!("{s:?}: {key} {w} () names no value"));
                        }
                        if w == "in" {
                            Op::In(values)
                        } else {
                            Op::NotIn(values)
                        }
                    }
                    _ => {
                        return Err(format!(
                            "{s:?}: expected =, ==, !=, in, notin, > or < after {key}"
                        ))
                    }
                }
            };
            if let Op::In(v) | Op::NotIn(v) = &op {
                if let Some(bad) = v.iter().find(|v| !valid_value(v)) {
                    return Err(format!("{s:?}: {bad:?} is not a valid label value"));
                }
            }
            reqs.push(Requirement { key, op });
            match toks.get(i) {
                None => break,
                Some(Token::Comma) if i + 1 < toks.len() => i += 1,
                _ => return Err(format!("{s:?}: expected , between requirements")),
            }
        }
        Ok(Selector(reqs))
    }

    /// Whether an object's `metadata.labels` satisfy every requirement.
    pub fn matches(&self, obj: &Value) -> bool {
        let label = |k: &str| {
            obj.pointer("/metadata/labels")
                .and_then(|l| l.get(k))
                .and_then(Value::as_str)
        };
        self.0.iter().all(|r| {
            let v = label(&r.key);
            match &r.op {
                Op::Exists => v.is_some(),
                Op::DoesNotExist => v.is_none(),
                Op::In(set) => v.is_some_and(|v| set.iter().any(|s| s == v)),
                Op::NotIn(set) => v.is_none_or(|v| !set.iter().any(|s| s == v)),
                Op::Greater(n) => v
                    .and_then(|v| v.parse::<i64>().ok())
                    .is_some_and(|x| x > *n),
                Op::Less(n) => v
                    .and_then(|v| v.parse::<i64>().ok())
                    .is_some_and(|x| x < *n),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labelled(labels: Value) -> Value {
        json!({"metadata": {"name": "x", "labels": labels}})
    }

    /// apimachinery's semantics: `!=` and `notin` match an absent label; `>`/`<` compare
    /// integers and never match a value that is not one.
    #[test]
    fn requirements_match_as_apimachinery_defines_them() {
        let o = labelled(json!({"team": "shop", "tier": "web", "rank": "7"}));
        let cases = [
            ("", true),
            ("team", true),
            ("!team", false),
            ("!owner", true),
            ("team=shop", true),
            ("team==shop", true),
            ("team = shop , tier=web", true),
            ("team=pay", false),
            ("team!=pay", true),
            ("owner!=pay", true),
            ("tier in (web, api)", true),
            ("tier notin (web)", false),
            ("owner notin (a)", true),
            ("owner in (a)", false),
            ("rank>5", true),
            ("rank<5", false),
            ("team>1", false),
            ("example.com/owner", false),
            ("team=", false),
        ];
        for (s, want) in cases {
            let sel = Selector::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(sel.matches(&o), want, "{s}");
        }
        assert!(Selector::parse("team=")
            .unwrap()
            .matches(&labelled(json!({"team": ""}))));
        assert!(Selector::parse("team!=shop").unwrap().matches(&json!({})));
    }

    #[test]
    fn malformed_selectors_are_refused_naming_the_fault() {
        for (s, want) in [
            ("=shop", "expected a label key"),
            ("team in web", "expected ( after team in"),
            ("team in ()", "names no value"),
            (
                "team shop",
                "expected =, ==, !=, in, notin, > or < after team",
            ),
            ("rank>high", "needs an integer"),
            ("a,", "expected , between requirements"),
            ("Team_/x", "is not a valid label key"),
            ("team=a b", "expected , between requirements"),
            ("team=-x", "is not a valid label value"),
            ("!team=x", "nothing may follow !team"),
        ] {
            let e = Selector::parse(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }
}
