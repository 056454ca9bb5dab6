//! Flow collections written on one line (`metadata: {name: a, namespace: b}`,
//! `args: [--x, "y"]`), for [`super::block`]: YAML 1.2 §7.4 read for the layouts hand-written
//! manifests use, typed as [`super::scalar`] types scalars; None for anything else, which the
//! document parser then reads.
//!
//! Accepted: flow mappings (§7.4.2) of plain or quoted keys each followed by `: ` and a value,
//! flow sequences (§7.4.1) of values, nested; values are flow collections, quoted scalars and
//! plain scalars in the flow context (§7.3.3: no `,[]{}`, no `: `, no ` #`).
//! Declined: a collection that does not close on its line, empty entries and a trailing comma,
//! keys without a value (`{a}`, `{a: }`), single-pair mappings in a sequence (`[a: b]`), explicit
//! keys (`?`), JSON-style adjacent values (`{"a":1}`), anchors, aliases and tags, a repeated
//! key, a comment inside the collection, nesting beyond [`super::block::MAX_NESTING`].

use super::block::MAX_NESTING;
use super::scalar::{
    double_quoted, plain_key, plain_value, single_quoted, starts_plain, MAX_KEY_BYTES,
};
use serde_json::{Map, Value};

/// The flow collection at the start of `s` (which starts with `{` or `[`) at nesting `depth`,
/// and the bytes it spans.
pub(super) fn collection(s: &str, depth: usize) -> Option<(Value, usize)> {
    let mut f = Flow { s, i: 0 };
    let v = f.collection(depth)?;
    Some((v, f.i))
}

struct Flow<'a> {
    s: &'a str,
    i: usize,
}

/// The characters that end a plain scalar in the flow context (§7.3.3, `ns-plain-safe(c)`).
fn flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

impl Flow<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }

    fn collection(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_NESTING {
            return None;
        }
        let mapping = self.peek()? == b'{';
        let close = if mapping { b'}' } else { b']' };
        self.i += 1;
        self.spaces();
        let mut map = Map::new();
        let mut items = Vec::new();
        if self.peek()? == close {
            self.i += 1;
        } else {
            loop {
                if mapping {
                    let key = self.key()?;
                    self.spaces();
                    let value = self.node(depth)?;
                    if map.insert(key, value).is_some() {
                        return None;
                    }
                } else {
                    items.push(self.node(depth)?);
                }
                self.spaces();
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        self.spaces();
                        if matches!(self.peek()?, b',' | b'}' | b']') {
                            return None;
                        }
                    }
                    c if c == close => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        Some(if mapping {
            Value::Object(map)
        } else {
            Value::Array(items)
        })
    }

    /// A key and its `: `.
    fn key(&mut self) -> Option<String> {
        let rest = &self.s[self.i..];
        let (key, len) = match rest.as_bytes()[0] {
            b'"' => double_quoted(rest)?,
            b'\'' => single_quoted(rest)?,
            _ => {
                let b = rest.as_bytes();
                let at = (0..b.len()).find(|&j| {
                    flow_indicator(b[j])
                        || b[j] == b'#'
                        || (b[j] == b':' && b.get(j + 1).is_none_or(|&c| c == b' '))
                })?;
                if b[at] != b':' {
                    return None;
                }
                (plain_key(&rest[..at])?.to_owned(), at)
            }
        };
        if len > MAX_KEY_BYTES || !rest[len..].starts_with(": ") {
            return None;
        }
        self.i += len + 2;
        Some(key)
    }

    /// A value: a nested collection, a quoted scalar or a plain scalar.
    fn node(&mut self, depth: usize) -> Option<Value> {
        let rest = &self.s[self.i..];
        let b = rest.as_bytes();
        match *b.first()? {
            b'{' | b'[' => self.collection(depth + 1),
            b'"' | b'\'' => {
                let (text, len) = if b[0] == b'"' {
                    double_quoted(rest)?
                } else {
                    single_quoted(rest)?
                };
                self.i += len;
                Some(Value::String(text))
            }
            b'-' if b.get(1).is_none_or(|&c| flow_indicator(c)) => None,
            _ if !starts_plain(rest) => None,
            _ => {
                let end = (0..b.len()).find(|&j| {
                    let next = b.get(j + 1);
                    flow_indicator(b[j])
                        || (b[j] == b':' && next.is_none_or(|&c| c == b' ' || flow_indicator(c)))
                        || (b[j] == b'#' && j > 0 && b[j - 1] == b' ')
                })?;
                if !matches!(b[end], b',' | b']' | b'}') {
                    return None;
                }
                self.i += end;
                plain_value(rest[..end].trim_end_matches(' '))
            }
        }
    }
}
