//! YAML streams read as Kubernetes tools read them, one document at a time: a stream is split
//! at document markers as its lines arrive (never more than one document in memory), each
//! document parsed with go-yaml v2's YAML 1.1 typing (`yes`/`no` booleans, `0644` octal, the
//! last of repeated keys). The parser's budget grows with the document's own size, so that a
//! small document cannot expand through YAML aliases (a "billion laughs") into gigabytes; its
//! breaches and serde's messages are worded for users.

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
                if self.cur.is_empty() {
                    self.cur_start = line_no;
                }
                let t = bare.trim_start();
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
    // The parser's bounds grow with the document: text without aliases never reaches them, and a
    // document that aliases expand (YAML's "billion laughs") stops at a few times its own size.
    let len = chunk.text.len();
    let nodes = len.max(1 << 20);
    let scalar_bytes = len.saturating_mul(4).max(16 << 20);
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
        legacy_octal_numbers: true,
        budget: serde_saphyr::budget! {
            max_events: nodes.saturating_mul(2),
            max_nodes: nodes,
            max_depth: MAX_DEPTH,
            max_total_scalar_bytes: scalar_bytes,
        },
    };
    let value: Value = serde_saphyr::from_str_with_options(&chunk.text, options).map_err(|e| {
        readable(
            &shift_line(&first_line(&e.to_string()), chunk.offset),
            nodes,
            scalar_bytes,
        )
    })?;
    Ok((!value.is_null()).then_some(value))
}

/// How deeply a document may nest (a fixed bound, deeper than any real object).
pub const MAX_DEPTH: usize = 512;

/// A parser message in a user's words where the parser speaks Rust: its budget breaches, its
/// alias limits, serde's type errors and non-finite numbers.
pub fn readable(message: &str, nodes: usize, scalar_bytes: usize) -> String {
    let bomb = "YAML aliases expand the document";
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
            "RecordedAnchorEvents" | "RecordedAnchorBytes" => "its YAML anchors and their aliases hold more than a million values or 64 MiB (a fixed bound against alias bombs)".to_string(),
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
        return format!(
            "refused: {bomb} beyond a million replayed values (a fixed bound against alias bombs)"
        );
    }
    if message.contains("cannot deserialize null into string") {
        return message.replace(
            "cannot deserialize null into string; use Option<String>",
            "a value is missing (null) where text is expected",
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

/// The first line of a parser message, without the parser's own `error:` prefix.
fn first_line(s: &str) -> String {
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
