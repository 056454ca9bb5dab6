//! YAML streams read as Kubernetes tools read them, one document at a time: a stream is split
//! at document markers as its lines arrive (never more than one document in memory), each
//! document parsed with go-yaml v2's YAML 1.1 typing (`yes`/`no` booleans, `0644` octal, the
//! last of repeated keys). The parser's budget grows with the document's own size, so that a
//! small document cannot expand through YAML aliases (a "billion laughs") into gigabytes; its
//! breaches and serde's messages are worded for users.
//!
//! Two readers come before the YAML parser, each for the documents it is certain of and
//! returning exactly the parser's value: JSON documents (`kubectl get -o json`) and the block
//! YAML Kubernetes tools write ([`block`]). Every other document, and every error, is the
//! parser's. Writing YAML as kubectl writes it is [`emit`]'s.

pub mod block;
pub mod emit;
mod flow;
mod scalar;

use super::read::BoundedLines;
use serde_json::Value;
use std::io::BufRead;

/// A document of a stream: the 0-based line of the whole stream it starts on, and its text.
pub struct Chunk {
    pub offset: usize,
    pub text: String,
    /// Whether any line holds more than blanks, comments, directives and a bare `---`.
    pub content: bool,
}

/// Splits a YAML stream at document markers (`---` and `...` at the start of a line, which YAML
/// forbids inside content) as its lines are read. Directives (`%YAML 1.1`, `%TAG ...`) before a
/// `---` belong to the document that marker starts (YAML 1.2 §9.2).
pub struct Splitter<R> {
    lines: BoundedLines<R>,
    line: String,
    line_no: usize,
    cur: String,
    cur_start: usize,
    cur_content: bool,
    /// Only directives (and comments) since the last document ended.
    cur_directives: bool,
    started: bool,
    /// After the last line, the last document has been handed out.
    done: bool,
}

impl<R: BufRead> Splitter<R> {
    /// Splits `r`, reading at most `limit` bytes in all.
    pub fn new(r: R, limit: u64) -> Self {
        Splitter {
            lines: BoundedLines::new(r, limit),
            line: String::new(),
            line_no: 0,
            cur: String::new(),
            cur_start: 0,
            cur_content: false,
            cur_directives: false,
            started: false,
            done: false,
        }
    }

    fn take(&mut self) -> Chunk {
        let c = Chunk {
            offset: self.cur_start,
            text: std::mem::take(&mut self.cur),
            content: self.cur_content,
        };
        self.cur_content = false;
        self.cur_directives = false;
        c
    }

    /// The next document, None after the last. Errors: the stream's (bound, NUL, UTF-8).
    pub fn next_chunk(&mut self) -> std::io::Result<Option<Chunk>> {
        if self.done {
            return Ok(None);
        }
        loop {
            let mut line = std::mem::take(&mut self.line);
            let more = self.lines.next_line(&mut line)?;
            if !more {
                self.done = true;
                let last = self.started || !self.cur.trim().is_empty();
                return Ok(last.then(|| self.take()));
            }
            let line_no = self.line_no;
            self.line_no += 1;
            let bare = line.trim_end_matches(['\n', '\r']);
            let marker = |m: &str| {
                bare == m || (bare.starts_with(m) && bare[m.len()..].starts_with([' ', '\t']))
            };
            let mut out = None;
            if marker("---") {
                let rest = bare[3..].trim();
                let directives_first = self.cur_directives && !self.cur_content;
                if !directives_first && (self.started || !self.cur.trim().is_empty()) {
                    out = Some(self.take());
                }
                if self.cur.is_empty() {
                    self.cur_start = line_no;
                }
                self.started = true;
                self.cur.push_str(&line);
                if !rest.is_empty() && !rest.starts_with('#') {
                    self.cur_content = true;
                }
            } else if marker("...") {
                out = Some(self.take());
                self.started = false;
                self.cur_start = line_no + 1;
            } else {
                let t = bare.trim_start();
                // Blank and comment lines before a document's first content are not kept (the
                // document starts on the next line kept, so that line numbers still count in
                // the whole stream): a stream of comments alone takes no memory. A bare marker
                // kept so far is dropped with them; `started` remembers it.
                let before_content = !self.cur_content && !self.cur_directives;
                // (A marker line, with no content after it: else `cur_content` would be set.)
                let only_marker = self.cur.is_empty()
                    || (self.cur.starts_with("---")
                        && self.cur.find('\n').is_none_or(|i| i + 1 == self.cur.len()));
                if before_content && only_marker && (t.is_empty() || t.starts_with('#')) {
                    self.cur.clear();
                    self.line = line;
                    continue;
                }
                if self.cur.is_empty() {
                    self.cur_start = line_no;
                }
                if bare.starts_with('%') && !self.cur_content && !self.started {
                    self.cur_directives = true;
                } else if !t.is_empty() && !t.starts_with('#') {
                    self.cur_content = true;
                }
                self.cur.push_str(&line);
            }
            self.line = line;
            if let Some(c) = out {
                return Ok(Some(c));
            }
        }
    }
}

/// Parses one document (None: empty). Errors: the parser's message in a user's words, its
/// `line N` counted in the whole stream.
pub fn parse_chunk(chunk: &Chunk) -> Result<Option<Value>, String> {
    if !chunk.content {
        return Ok(None);
    }
    if let Some(v) = as_json(&chunk.text).or_else(|| block::parse(&chunk.text)) {
        return Ok((!v.is_null()).then_some(v));
    }
    parse_chunk_by_parser(chunk)
}

/// Parses one document with the YAML parser alone, as [`parse_chunk`] does for the documents
/// its faster readers decline: the reading they must reproduce exactly. None: empty.
/// Errors: as [`parse_chunk`].
pub fn parse_chunk_by_parser(chunk: &Chunk) -> Result<Option<Value>, String> {
    if !chunk.content {
        return Ok(None);
    }
    // go-yaml v2's readings: a repeated key keeps its last value, 0777 is octal.
    let (mut options, bounds) = options_for_len(chunk.text.len());
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    options.legacy_octal_numbers = true;
    let value: Value = serde_saphyr::from_str_with_options(&chunk.text, options).map_err(|e| {
        readable(
            &shift_line(&first_line(&e.to_string()), chunk.offset),
            &bounds,
        )
    })?;
    Ok((!value.is_null()).then_some(value))
}

/// The parser's bounds for one document, grown with its size in bytes so that text without
/// aliases never reaches them, while a document that aliases expand (YAML's "billion laughs")
/// stops after work proportional to its own size: the parser counts what it copies for anchors
/// and replays for aliases as it goes, so a refusal costs no more than the bound, never the
/// expansion.
///
/// go-yaml v2, which Kubernetes tools read YAML with, bounds aliases by ratio instead
/// (`decode.go` `allowedAliasRatio`): it refuses a document once more than 99% of the values it
/// has decoded came from aliases (10% beyond four million values). Both stop a billion laughs
/// within a few thousand values; a small document that also holds values of its own may expand to
/// about 400,000 values under go-yaml's rule, further than [`Bounds::alias_values`] lets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Nodes (and half the events) of the whole document: its size in bytes, at least 2^20.
    pub nodes: usize,
    /// Bytes of scalar text: 4 times its size, at least 16 MiB.
    pub scalar_bytes: usize,
    /// Values replayed for aliases, and values copied into anchors (each bound alone; serde-saphyr's
    /// `AliasLimits::max_total_replayed_events` and `Budget::max_recorded_anchor_events`):
    /// [`ALIAS_VALUES_PER_BYTE`] times its size, at least [`MIN_ALIAS_VALUES`].
    pub alias_values: usize,
}

/// Values aliases may replay (and anchors hold) per byte of the document.
pub const ALIAS_VALUES_PER_BYTE: usize = 8;
/// Values aliases may replay (and anchors hold) in any document, however small.
pub const MIN_ALIAS_VALUES: usize = 1 << 14;

impl Bounds {
    /// The bounds of a document of `len` bytes.
    pub fn for_len(len: usize) -> Bounds {
        Bounds {
            nodes: len.max(1 << 20),
            scalar_bytes: len.saturating_mul(4).max(16 << 20),
            alias_values: len
                .saturating_mul(ALIAS_VALUES_PER_BYTE)
                .max(MIN_ALIAS_VALUES),
        }
    }
}

/// A document that is plain JSON (`kubectl get -o json`), parsed as JSON: the same value the
/// YAML parser gives (JSON strings are quoted, so YAML 1.1's `yes`/`0644` readings never apply),
/// several times faster. None when it is not JSON (a flow mapping, comments, `0644`, nesting
/// beyond serde_json's 128 levels): the YAML parser then reads it and words any error.
fn as_json(text: &str) -> Option<Value> {
    let body = match text.strip_prefix("---") {
        Some(rest) if rest.starts_with(['\n', '\r']) => rest,
        Some(_) => return None,
        None => text,
    };
    let t = body.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    let v: Value = serde_json::from_str(t).ok()?;
    // `-0` is the integer 0 to YAML and to Go's JSON number typing, -0.0 to serde_json.
    (!has_negative_zero(&v)).then_some(v)
}

fn has_negative_zero(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if n.as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative()) => {
                return true
            }
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    false
}

/// How deeply a document may nest (a fixed bound, deeper than any real object).
pub const MAX_DEPTH: usize = 512;

/// How many comment lines in a row the parser holds while it looks ahead inside a mapping or a
/// list (each a few dozen bytes): far beyond any commented-out block of a manifest.
pub const MAX_BUFFERED_COMMENTS: usize = 100_000;

/// A parser message in a user's words where the parser speaks Rust: its budget breaches (of
/// `bounds`, the document's), its alias limits, serde's type errors and non-finite numbers.
pub fn readable(message: &str, bounds: &Bounds) -> String {
    let Bounds {
        nodes,
        scalar_bytes,
        alias_values,
    } = *bounds;
    let bomb = "YAML aliases expand the document";
    let alias_bound = format!(
        "the bound is {ALIAS_VALUES_PER_BYTE} times the document's size in bytes, at least {MIN_ALIAS_VALUES}"
    );
    if let Some(rest) = message.split("budget breached:").nth(1) {
        let what = rest.trim();
        let kind = what.split(['{', ' ']).next().unwrap_or(what);
        let bound = match kind {
            "Depth" => format!("it nests deeper than {MAX_DEPTH} levels (a fixed bound)"),
            "Events" | "Nodes" => format!(
                "{bomb} beyond {nodes} values (the bound is the document's size in bytes, at least 1048576)"
            ),
            "ScalarBytes" => format!(
                "{bomb} beyond {} of text (the bound is 4 times the document's size, at least 16 MiB)",
                crate::k8s::read::size_words(scalar_bytes as u64)
            ),
            "RecordedAnchorEvents" => format!(
                "its YAML anchors and the aliases inside them hold more than {alias_values} values ({alias_bound})"
            ),
            "RecordedAnchorBytes" => "its YAML anchors and the aliases inside them hold more than 64 MiB of text (a fixed bound against alias bombs)".to_string(),
            "Aliases" | "Anchors" | "AliasAnchorRatio" | "MergeKeys" => format!(
                "it uses too many YAML aliases, anchors or merge keys ({what}; a fixed bound against alias bombs)"
            ),
            "CommentBytes" => "its comments exceed 64 MiB (a fixed bound)".to_string(),
            _ => format!("it exceeds a parser bound ({what})"),
        };
        return format!("refused: {bound}");
    }
    if message.contains("alias replay limit exceeded")
        || message.contains("alias expansion limit exceeded")
    {
        return format!("refused: {bomb} beyond {alias_values} replayed values ({alias_bound})");
    }
    if message.contains("cannot deserialize null into string") {
        return message.replace(
            "cannot deserialize null into string; use Option<String>",
            "a value is missing (null) where text is expected",
        );
    }
    if let Some(at) = message.find("too many buffered comments while looking ahead") {
        return format!(
            "{}more than {MAX_BUFFERED_COMMENTS} comment lines in a row inside a mapping or list (a fixed bound)",
            &message[..at]
        );
    }
    if let Some(at) = message.find("recursion limit exceeded") {
        return format!(
            "{}it nests deeper than {MAX_DEPTH} levels (a fixed bound)",
            &message[..at]
        );
    }
    if let Some(at) = message.find("non-finite float") {
        let value = message[at..].split('`').nth(1).unwrap_or("");
        return format!(
            "{}the number {value} is infinite or not a number: Kubernetes objects are JSON, which cannot hold it",
            &message[..at]
        );
    }
    message.to_string()
}

/// serde-saphyr's options with its defaults but the bounds of a document of `len` bytes
/// ([`Bounds::for_len`]): for YAML read into other types than objects (a kubeconfig), as the
/// type's own reader would read it, without its fixed budget (250,000 nodes). Returns the
/// bounds too, for [`readable`].
pub fn options_for_len(len: usize) -> (serde_saphyr::Options, Bounds) {
    let bounds = Bounds::for_len(len);
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: bounds.nodes.saturating_mul(2),
            max_nodes: bounds.nodes,
            max_depth: MAX_DEPTH,
            // Flow collections (`[`, `{`, JSON's) nest as deep as block ones.
            flow_nesting_limit: MAX_DEPTH,
            // Comment lines the parser holds while it looks ahead for a key (its default of 32
            // refuses a commented-out block inside a mapping, which go-yaml reads).
            max_buffered_comment_events: MAX_BUFFERED_COMMENTS,
            max_total_scalar_bytes: bounds.scalar_bytes,
            max_recorded_anchor_events: bounds.alias_values,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: bounds.alias_values,
        },
    };
    (options, bounds)
}

/// The first line of a parser message, without the parser's own `error:` prefix.
pub fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    line.strip_prefix("error:")
        .unwrap_or(line)
        .trim()
        .to_string()
}

/// Adds `offset` to the first `line N` of a parser message.
fn shift_line(message: &str, offset: usize) -> String {
    let Some(at) = message.find("line ") else {
        return message.to_string();
    };
    let digits: String = message[at + 5..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    match digits.parse::<usize>() {
        Ok(n) => format!(
            "{}line {}{}",
            &message[..at],
            n + offset,
            &message[at + 5 + digits.len()..]
        ),
        Err(_) => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(text: &str) -> Vec<Option<Value>> {
        let mut split = Splitter::new(text.as_bytes(), u64::MAX);
        let mut out = Vec::new();
        while let Some(c) = split.next_chunk().unwrap() {
            out.push(parse_chunk(&c).unwrap());
        }
        out
    }

    /// JSON documents read through the JSON fast path give what the YAML parser gives.
    #[test]
    fn json_documents_read_as_yaml_reads_them() {
        let json = r#"{"kind": "X", "a": [1, 2.5, 0, 1e3, "yes", null, true], "b": {"c": "0644", "c": "last"}, "n": 18446744073709551615}"#;
        let fast = as_json(json).expect("JSON");
        let chunk = Chunk {
            offset: 0,
            text: format!("{json} # not JSON any more\n"),
            content: true,
        };
        let slow = parse_chunk(&chunk).unwrap().unwrap();
        assert_eq!(fast, slow);
        assert_eq!(
            parse_all(&format!("---\n{json}\n---\n{json}\n")),
            vec![Some(fast.clone()), Some(fast)]
        );
        // `-0` and YAML that starts like JSON are left to the YAML parser.
        assert_eq!(as_json("[-0]"), None);
        assert_eq!(parse_all("[-0]\n"), vec![Some(serde_json::json!([0]))]);
        assert_eq!(as_json("{a: 0644}"), None);
        assert_eq!(
            parse_all("{a: 0644}\n"),
            vec![Some(serde_json::json!({"a": 420}))]
        );
    }

    /// Blank and comment lines before a document's content are not kept in its text (a stream of
    /// comments takes no memory), and the document's lines still count in the whole stream: an
    /// error names the line of the stream. Documents, empty ones included, are as before.
    #[test]
    fn comments_before_a_document_are_not_kept() {
        let comments = "# c\n\n  # d\n".repeat(1000);
        let text =
            format!("{comments}a: 1\n---\n{comments}b: 2\n--- # x\n{comments}---\n{comments}");
        let mut split = Splitter::new(text.as_bytes(), u64::MAX);
        let mut chunks = Vec::new();
        while let Some(c) = split.next_chunk().unwrap() {
            chunks.push((c.offset, c.text.clone(), parse_chunk(&c).unwrap()));
        }
        let got: Vec<(usize, &str, Option<Value>)> = chunks
            .iter()
            .map(|(o, t, v)| (*o, t.as_str(), v.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (3000, "a: 1\n", Some(serde_json::json!({"a": 1}))),
                (6002, "b: 2\n", Some(serde_json::json!({"b": 2}))),
                (6003, "", None),
                (9004, "", None),
            ]
        );
        let bad = format!("{comments}---\n{comments}kind: [\n");
        let mut split = Splitter::new(bad.as_bytes(), u64::MAX);
        let c = split.next_chunk().unwrap().unwrap();
        let e = parse_chunk(&c).unwrap_err();
        assert!(e.starts_with("line 6002 column 7: "), "{e}");
    }

    /// A document of `levels` anchors, each a list of nine aliases of the one before (the first
    /// nine strings): 9^levels strings once expanded.
    fn laughs(levels: usize) -> String {
        let mut text = String::from("kind: X\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 1..levels {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
            ));
        }
        text
    }

    fn parse_text(text: &str) -> Result<Option<Value>, String> {
        parse_chunk(&Chunk {
            offset: 0,
            text: text.to_string(),
            content: true,
        })
    }

    /// A "billion laughs" of 514 bytes stops at the small bound of a small document (16384
    /// values copied into its anchors), counted as the parser goes: the refusal costs that much
    /// work, not the billions the aliases would expand to.
    #[test]
    fn an_alias_bomb_stops_at_a_bound_of_its_own_size() {
        let text = laughs(10);
        assert_eq!(Bounds::for_len(text.len()).alias_values, 16384);
        assert_eq!(
            parse_text(&text),
            Err("refused: its YAML anchors and the aliases inside them hold more than 16384 values (the bound is 8 times the document's size in bytes, at least 16384)".to_string())
        );
        // Aliases replayed outside any anchor count against the same bound.
        let hundred: Vec<String> = (0..100).map(|n| n.to_string()).collect();
        let mut wide = format!("kind: X\na: &a [{}]\nb: [", hundred.join(","));
        wide.push_str(&vec!["*a"; 300].join(","));
        wide.push_str("]\n");
        assert_eq!(Bounds::for_len(wide.len()).alias_values, 16384);
        assert_eq!(
            parse_text(&wide),
            Err("refused: YAML aliases expand the document beyond 16384 replayed values (the bound is 8 times the document's size in bytes, at least 16384)".to_string())
        );
    }

    /// Aliases within the bound are read, expanded, as go-yaml reads them.
    #[test]
    fn aliases_within_the_bound_are_expanded() {
        let v = parse_text(&laughs(4)).unwrap().unwrap();
        assert_eq!(v["a3"].as_array().unwrap().len(), 9);
        assert_eq!(v["a3"][8][8][8], serde_json::json!(vec!["lol"; 9]));
        let v = parse_text("kind: X\nmetadata:\n  labels: &l {app: x}\n  annotations: *l\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            v["metadata"]["annotations"],
            serde_json::json!({"app": "x"})
        );
        // The bound grows with the document: 8 values per byte.
        assert_eq!(Bounds::for_len(1 << 20).alias_values, 8 << 20);
        assert_eq!(Bounds::for_len(0).nodes, 1 << 20);
    }

    /// Directives stay with the document they precede; `...` ends a document, and the `---`
    /// after it starts the next one.
    #[test]
    fn documents_split_at_markers() {
        let docs = parse_all("%YAML 1.1\n---\na: 1\n...\n---\nb: 2\n");
        assert_eq!(
            docs,
            vec![
                Some(serde_json::json!({"a": 1})),
                Some(serde_json::json!({"b": 2}))
            ]
        );
    }
}
