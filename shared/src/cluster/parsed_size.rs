//! What an answer of the API server takes in memory once parsed, and the one bound on what a
//! command holds of them.
//!
//! The bytes of an answer say little about the memory its parsed form takes: a
//! `serde_json::Value` is 72 bytes whatever it holds, an object's entries sit in an
//! `IndexMap` (the order of keys is kept, `preserve_order`) with room to grow, so `[0,0,…]`
//! takes 38 times its text and `[{"a":0},…]` 60 times, where a list of Deployments takes about
//! 7 times. So the memory is estimated on the bytes, in one pass that builds nothing, before
//! an answer is parsed ([`scan`]), and measured on a value the same way when it is kept
//! ([`held_size`]); the estimate is never below what the parse allocates (the test
//! `parsed_size_alloc` measures it with a counting allocator).
//!
//! The shapes follow serde_json's own building of a `Value`: an array is a `Vec` pushed into
//! from empty (capacity 4, then doubling), an object an `IndexMap` inserted into from empty
//! (entries of a hash, a key `String` and a `Value`, and a hash table of indices; both grow
//! by doubling), a string its text on the heap (no allocation when empty), numbers, booleans
//! and null nothing beyond their `Value`.

use serde_json::Value;

/// How many times `--max-response-bytes` the parsed answers a command holds may take
/// together: an answer of Kubernetes objects takes 3 to 10 times its bytes once parsed.
pub const PARSED_FACTOR: u64 = 4;

const VALUE: u64 = std::mem::size_of::<Value>() as u64;
/// An `IndexMap` entry: the hash, the key and the value.
const ENTRY: u64 = (std::mem::size_of::<u64>() + std::mem::size_of::<String>()) as u64 + VALUE;

/// The heap an array of `n` elements takes beyond its own `Value`: a `Vec` grown by pushing
/// (capacity 4, then doubling).
fn array_heap(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    VALUE.saturating_mul(n.checked_next_power_of_two().unwrap_or(u64::MAX).max(4))
}

/// The heap an object of `n` entries takes beyond its own `Value` and its keys' text, at
/// most: the entries (room for at most twice as many, three at least) and the index table (a
/// `usize` and a control byte per bucket, at most three buckets per entry, four at least, and
/// a group of control bytes).
fn object_heap(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let entries = ENTRY.saturating_mul(n.saturating_mul(2).max(3));
    let buckets = n.saturating_mul(3).max(4);
    entries
        .saturating_add(buckets.saturating_mul(std::mem::size_of::<usize>() as u64 + 1))
        .saturating_add(16)
}

/// What JSON text would take once parsed, and how deep it nests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scanned {
    /// Bytes in memory of the parsed `Value`, at most ([`held_size`] of it, when its strings
    /// hold no escapes).
    pub bytes: u64,
    /// The most arrays and objects open inside one another.
    pub depth: usize,
}

/// Scans JSON text without building it: what its `Value` would take in memory and how deep it
/// nests, or None once it nests deeper than `max_depth` (the scan stops there, so that a deep
/// answer costs neither time nor memory). Linear in `body`; it holds one count per open
/// array or object (at most `max_depth`). Text that is not JSON is estimated as far as it
/// goes: the parse that follows refuses it. Brackets, commas and colons inside strings do
/// not count; a string counts its raw length (escapes only make the parsed text shorter).
pub fn scan(body: &[u8], max_depth: usize) -> Option<Scanned> {
    // Per open container: whether it is an object, and how many elements it holds so far
    // (commas seen, plus one once anything but whitespace is in it).
    let mut open: Vec<(bool, u64, bool)> = Vec::new();
    let mut bytes = VALUE;
    let mut depth = 0usize;
    let (mut in_string, mut escaped, mut string_len) = (false, false, 0u64);
    for &b in body {
        if in_string {
            match b {
                _ if escaped => {
                    escaped = false;
                    string_len += 1;
                }
                b'\\' => {
                    escaped = true;
                    string_len += 1;
                }
                b'"' => {
                    in_string = false;
                    bytes = bytes.saturating_add(string_len);
                }
                _ => string_len += 1,
            }
            continue;
        }
        if b.is_ascii_whitespace() {
            continue;
        }
        let closing = matches!(b, b']' | b'}');
        if let Some(top) = open.last_mut() {
            if !closing && b != b',' && b != b':' {
                top.2 = true;
            }
        }
        match b {
            b'"' => {
                in_string = true;
                string_len = 0;
            }
            b'[' | b'{' => {
                if open.len() >= max_depth {
                    return None;
                }
                open.push((b == b'{', 0, false));
                depth = depth.max(open.len());
            }
            b']' | b'}' => {
                if let Some(closed) = open.pop() {
                    bytes = bytes.saturating_add(container_heap(closed));
                }
            }
            b',' => {
                if let Some(top) = open.last_mut() {
                    top.1 += 1;
                }
            }
            _ => {}
        }
    }
    // Text that ends inside arrays, objects or a string (an answer cut short, or one that never
    // closes) is built by the parser as far as it goes before it fails: what it holds counts
    // as if closed there.
    if in_string {
        bytes = bytes.saturating_add(string_len);
    }
    while let Some(unclosed) = open.pop() {
        bytes = bytes.saturating_add(container_heap(unclosed));
    }
    Some(Scanned { bytes, depth })
}

/// The heap of a container the scan saw end (or the text end inside): whether it is an object,
/// the commas at its level, and whether anything is in it.
fn container_heap((object, commas, any): (bool, u64, bool)) -> u64 {
    let n = commas + u64::from(any);
    if object {
        object_heap(n)
    } else {
        array_heap(n)
    }
}

/// What a parsed value takes in memory, as [`scan`] estimates its text: its own `Value`, and
/// each array's, object's and string's heap. Walks the value without recursion.
pub fn held_size(v: &Value) -> u64 {
    let mut bytes = VALUE;
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        match v {
            Value::String(s) => bytes = bytes.saturating_add(s.len() as u64),
            Value::Array(a) => {
                bytes = bytes.saturating_add(array_heap(a.len() as u64));
                todo.extend(a.iter());
            }
            Value::Object(m) => {
                bytes = bytes.saturating_add(object_heap(m.len() as u64));
                for (k, v) in m {
                    bytes = bytes.saturating_add(k.len() as u64);
                    todo.push(v);
                }
            }
            _ => {}
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    /// The estimate on the text is the estimate on the value it parses to, for the shapes
    /// an answer holds; strings count their raw text, escapes included.
    #[test]
    fn the_text_and_the_value_are_estimated_alike() {
        let cases = [
            "0",
            "\"\"",
            "\"abc\"",
            "[]",
            "{}",
            "[0]",
            "[0,1,2,3,4]",
            "[[],[[]],{}]",
            r#"{"a":0}"#,
            r#"{"a":{"b":[1,"x",null,true]},"c":"d"}"#,
            r#" { "kind" : "List" , "items" : [ { "metadata" : { "name" : "a,b:[c]" } } ] } "#,
        ];
        for text in cases {
            assert_eq!(
                scan(text.as_bytes(), 100).unwrap().bytes,
                held_size(&parsed(text)),
                "{text}"
            );
        }
        // An escape is two bytes of text for one of the string.
        assert_eq!(
            scan(br#""a\nb""#, 100).unwrap().bytes,
            held_size(&parsed(r#""a\nb""#)) + 1
        );
    }

    /// Sizes in bytes on a 64-bit target: a Value is 72 bytes, an entry 104; an array of five
    /// has room for eight, an object of one for three entries and four buckets.
    #[test]
    fn shapes_cost_what_serde_json_builds() {
        assert_eq!(VALUE, 72);
        assert_eq!(ENTRY, 104);
        let cases: &[(&str, u64)] = &[
            ("null", 72),
            ("\"abc\"", 72 + 3),
            ("[]", 72),
            ("[0,1,2,3,4]", 72 + 8 * 72),
            (r#"{"a":0}"#, 72 + 1 + 3 * 104 + 4 * 9 + 16),
        ];
        for (text, want) in cases {
            assert_eq!(scan(text.as_bytes(), 10).unwrap().bytes, *want, "{text}");
        }
    }

    /// Text that never closes counts what the parser builds before it fails: the open arrays
    /// and objects as if closed where the text ends, and an open string's text (a list answer
    /// of zeros that never closed was estimated at nothing, and parsed until memory ran out).
    #[test]
    fn unclosed_text_counts_what_it_holds() {
        let zeros = |n: usize| vec!["0"; n].join(",");
        for (open, closed) in [
            (format!("[{}", zeros(5)), format!("[{}]", zeros(5))),
            (
                format!("{{\"items\":[{{\"pad\":[{}", zeros(1000)),
                format!("{{\"items\":[{{\"pad\":[{}]}}]}}", zeros(1000)),
            ),
            ("[\"abc".to_string(), "[\"abc\"]".to_string()),
        ] {
            assert_eq!(
                scan(open.as_bytes(), 100).unwrap().bytes,
                scan(closed.as_bytes(), 100).unwrap().bytes,
                "{open:.40}"
            );
        }
        let big = format!("[{}", zeros(1_000_000));
        assert!(scan(big.as_bytes(), 100).unwrap().bytes > 72_000_000);
    }

    /// Depth is counted on the brackets outside strings, and a scan deeper than its bound
    /// stops.
    #[test]
    fn depth_is_bounded_while_scanning() {
        assert_eq!(scan(b"[[[]]]", 3).unwrap().depth, 3);
        assert_eq!(scan(b"[[[]]]", 2), None);
        assert_eq!(scan(br#"["[[[["]"#, 1).unwrap().depth, 1);
        let deep = "[".repeat(2_000_000);
        assert_eq!(scan(deep.as_bytes(), 10_000), None);
    }
}
