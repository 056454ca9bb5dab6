//! Reading YAML/JSON streams one document at a time: a stream is split at document markers as
//! its lines arrive, each document is parsed, checked and handed on before the next is read, so
//! that memory holds one document, not the stream. Every stream is bounded by
//! [`crate::k8s::read::max_input_bytes`] (`--max-input-bytes`); each document's parser budget
//! grows with its own size, so that a small document cannot expand through YAML aliases (a
//! "billion laughs") into gigabytes.

use super::{check_object, is_list, K8sObject, ObjectError, Origin};
use crate::k8s::read::{max_input_bytes, BoundedLines};
use serde_json::Value;
use std::io::BufRead;

/// A document of a stream: the 0-based line of the whole stream it starts on, and its text.
pub(super) struct Chunk {
    pub(super) offset: usize,
    pub(super) text: String,
    /// Whether any line holds more than blanks, comments, directives and a bare `---`.
    pub(super) content: bool,
}

/// Splits a YAML stream at document markers (`---` and `...` at the start of a line, which YAML
/// forbids inside content) as its lines are read. Directives (`%YAML 1.1`, `%TAG ...`) before a
/// `---` belong to the document that marker starts (YAML 1.2 §9.2).
pub(super) struct Splitter<R> {
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
    pub(super) fn new(r: R, limit: u64) -> Self {
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
    pub(super) fn next_chunk(&mut self) -> std::io::Result<Option<Chunk>> {
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

/// Parses one document (None: empty), numbers typed as Kubernetes types them. `document` is the
/// 1-based index used in errors.
pub(super) fn parse_chunk(
    chunk: &Chunk,
    file: &str,
    document: usize,
) -> Result<Option<Value>, ObjectError> {
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
        ObjectError::Parse {
            file: file.to_string(),
            document,
            message: readable(
                &shift_line(&first_line(&e.to_string()), chunk.offset),
                nodes,
                scalar_bytes,
            ),
        }
    })?;
    Ok(if value.is_null() {
        None
    } else {
        Some(super::kube_numbers(value))
    })
}

/// How deeply a document may nest (a fixed bound, deeper than any real object).
pub const MAX_DEPTH: usize = 512;

/// A parser message in a user's words where the parser speaks Rust: its budget breaches, its
/// alias limits, serde's type errors and non-finite numbers.
pub(super) fn readable(message: &str, nodes: usize, scalar_bytes: usize) -> String {
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

/// Reads every object of a stream, in order, handing each to `each` as soon as its document is
/// parsed: a `kind: List` (any kind ending in `List` with `items`) gives its items. Returns how
/// many objects were handed on. `limit` bounds the stream's bytes.
pub(super) fn visit_stream<R: BufRead>(
    r: R,
    file: &str,
    limit: u64,
    each: &mut dyn FnMut(K8sObject) -> Result<(), ObjectError>,
) -> Result<usize, ObjectError> {
    let mut split = Splitter::new(r, limit);
    let mut count = 0;
    let mut document = 0;
    loop {
        let chunk = split.next_chunk().map_err(|error| ObjectError::Io {
            file: file.to_string(),
            error: with_document(error, document + 1),
        })?;
        let Some(chunk) = chunk else { break };
        document += 1;
        let Some(value) = parse_chunk(&chunk, file, document)? else {
            continue;
        };
        let origin = Origin {
            file: file.to_string(),
            document,
            item: None,
        };
        if is_list(&value).map_err(|message| ObjectError::Invalid {
            origin: origin.clone(),
            message,
        })? {
            let Value::Object(mut map) = value else {
                continue;
            };
            let items = match map.remove("items") {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            for (i, item) in items.into_iter().enumerate() {
                let origin = Origin {
                    item: Some(i),
                    ..origin.clone()
                };
                each(check_object(item, origin)?)?;
                count += 1;
            }
        } else {
            each(check_object(value, origin)?)?;
            count += 1;
        }
    }
    Ok(count)
}

/// A stream error with the document it stopped in, when it is a size bound or a bad byte.
fn with_document(e: std::io::Error, document: usize) -> std::io::Error {
    match e.kind() {
        std::io::ErrorKind::FileTooLarge | std::io::ErrorKind::InvalidData => {
            std::io::Error::new(e.kind(), format!("document {document}: {e}"))
        }
        _ => e,
    }
}

/// Every document of an in-memory text (None for an empty one), unbounded: the text is already
/// read.
pub(super) fn documents(text: &str, file: &str) -> Result<Vec<Option<Value>>, ObjectError> {
    let mut split = Splitter::new(text.as_bytes(), u64::MAX);
    let mut docs = Vec::new();
    while let Some(chunk) = split.next_chunk().map_err(|error| ObjectError::Io {
        file: file.to_string(),
        error,
    })? {
        docs.push(parse_chunk(&chunk, file, docs.len() + 1)?);
    }
    Ok(docs)
}

/// Opens a path for [`visit_stream`]: standard input for `-`. Errors: the open error, a
/// directory.
pub(super) fn open(path: &std::path::Path) -> std::io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ));
    }
    Ok(Box::new(std::io::BufReader::with_capacity(
        1 << 16,
        std::fs::File::open(path)?,
    )))
}

/// The bound of a stream read from a path.
pub(super) fn limit() -> u64 {
    max_input_bytes()
}
