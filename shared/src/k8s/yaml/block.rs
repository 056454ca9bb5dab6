//! A fast reader for the block YAML that Kubernetes tools write (`kubectl get -o yaml`,
//! `kustomize build`, `helm template`): it returns exactly the value the document parser
//! returns (go-yaml v2's typing, as [`super::parse_chunk`] configures it), or None for any
//! document it is not certain of, which the document parser then reads (and whose errors it
//! words: this reader reports none).
//!
//! Accepted, after an optional `---` line (YAML 1.2 §9.1.2, a comment allowed after it):
//! * block mappings (§8.2.2) of plain or quoted implicit keys (§7.4) followed by `: `, whose
//!   value is on the key's line or, for an empty one, a block collection on the lines below:
//!   more indented, or a block sequence at the key's own indentation (§8.2.1, the compact
//!   `seq-spaces(n, block-out)` of `s-l+block-collection`); nothing below is null;
//! * block sequences (§8.2.1) whose entries are a scalar, a compact mapping (`- key: v`, §8.2.1
//!   `ns-l-compact-mapping`), a compact sequence (`- - x`), or an empty entry with its value
//!   below;
//! * one-line plain, single- and double-quoted scalars (§7.3), typed in `scalar.rs`;
//! * flow collections that close on their line (§7.4), read in `flow.rs`;
//! * literal and folded block scalars (§8.1.2, §8.1.3) with an auto-detected indentation
//!   (§8.1.1.1) and any chomping indicator (`-`, `+`, §8.1.1.2), whose lines are not more
//!   indented than their first (folded) and whose all-space lines are no longer than that
//!   indentation;
//! * comments (§6.6) on their own lines and after a value, and blank lines.
//!
//! Declined: tabs, carriage returns and any character outside YAML's printable set or that
//! YAML 1.1 reads as a line break (§5.1, §5.4); directives, a document end marker and a second
//! start marker; anchors, aliases and tags (§6.9); flow collections over several lines;
//! multi-line plain and quoted scalars; explicit keys (`? `); indentation that does not line
//! up; a repeated key (go-yaml v2 keeps the last value; the document parser's reading is left
//! to it); a block scalar with an indentation indicator, without content, or ending the text
//! without a line break; nesting deeper than [`MAX_NESTING`]; long runs of comment lines
//! (`MAX_COMMENT_RUN`) and more comment text than `MAX_COMMENT_BYTES`; and each scalar
//! spelling `scalar.rs` declines.
//!
//! Pure: no I/O; the work is linear in the document's length, and the memory it takes beyond
//! the value it returns does not grow with the document (lines are found as they are read,
//! never listed: a list of them took 24 bytes for each blank line of one byte).

use super::flow;
use super::scalar::{
    double_quoted, plain_key, plain_value, single_quoted, starts_plain, MAX_KEY_BYTES,
};
use serde_json::{Map, Value};

/// How deeply collections may nest before this reader declines a document: far below the
/// document parser's [`super::MAX_DEPTH`], so that every document this reader accepts is within
/// the parser's bounds, and a deeper one reaches the parser and its depth error.
pub const MAX_NESTING: usize = 128;

/// How many comment lines in a row (blank lines between them included) make this reader
/// decline a document: the parser buffers at most 32 comments while it looks ahead
/// (serde-saphyr's `Budget::max_buffered_comment_events`) and fails beyond; half of that is
/// left to it, whatever the tokens around the comments.
const MAX_COMMENT_RUN: usize = 16;

/// How many bytes of comments (from a `#` at the start of a line's content or after a space to
/// the line's end, counted wherever they are, block scalars included) make this reader decline
/// a document: the parser refuses a document whose comments exceed 64 MiB (serde-saphyr's
/// `Budget::max_total_comment_bytes`); half of that is left to it.
const MAX_COMMENT_BYTES: usize = 32 << 20;

/// One line of the text: its byte range without the line break, and its leading spaces.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    indent: usize,
}

/// The line that starts at byte `start` of `text`, None at the end of the text.
fn line_at(text: &str, start: usize) -> Option<Line> {
    let rest = text.get(start..).filter(|r| !r.is_empty())?;
    let len = rest.find('\n').unwrap_or(rest.len());
    let indent = rest.bytes().take_while(|&c| c == b' ').count();
    Some(Line {
        start,
        end: start + len,
        indent,
    })
}

/// The line after `l`.
fn line_after(text: &str, l: Line) -> Option<Line> {
    line_at(text, l.end + 1)
}

/// The value of one document written in block style, or None when this reader does not accept
/// it (see the module's documentation). An empty document is declined too.
pub fn parse(text: &str) -> Option<Value> {
    if !readable_text(text) {
        return None;
    }
    let line = line_at(text, 0);
    let mut p = Reader {
        text,
        col: line.map_or(0, |l| l.indent),
        line,
        terminated: text.ends_with('\n'),
    };
    if let Some(l) = line.filter(|l| l.indent == 0) {
        let first = p.rest(l);
        if let Some(after) = first.strip_prefix("---") {
            let after_marker = after.trim_start_matches(' ');
            let comment = after_marker.starts_with('#') && after_marker.len() < after.len();
            if !(after_marker.is_empty() || comment) {
                return None;
            }
            p.next_line();
        }
    }
    let (col, _) = p.current()?;
    let value = p.collection(col, 1)?;
    p.current().is_none().then_some(value)
}

/// Whether the text is one this reader may read, line by line: false when a character is
/// outside YAML's printable set (§5.1) or a line break YAML 1.1 knows and 1.2 does not (§5.4:
/// NEL, LS, PS), a tab or a carriage return, a byte-order mark, a directive (`%`), a document
/// end marker, a document start marker after the first line, [`MAX_COMMENT_RUN`] comment lines
/// in a row, or more than [`MAX_COMMENT_BYTES`] of comments.
fn readable_text(text: &str) -> bool {
    let b = text.as_bytes();
    let mut non_ascii = false;
    let (mut comments, mut comment_bytes) = (0, 0);
    let mut start = 0;
    while start < b.len() {
        let mut i = start;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let indent = i - start;
        let mut comment = None;
        while i < b.len() && b[i] != b'\n' {
            let c = b[i];
            if c < 0x20 || c == 0x7f {
                return false;
            }
            if c == b'#' && comment.is_none() && (i == start + indent || b[i - 1] == b' ') {
                comment = Some(i);
            }
            non_ascii |= c >= 0x80;
            i += 1;
        }
        let line = &b[start..i];
        let first_start = start == 0 && line.starts_with(b"---");
        if line.first() == Some(&b'%') || (is_marker(line) && !first_start) {
            return false;
        }
        match line.get(indent) {
            Some(b'#') => {
                comments += 1;
                if comments >= MAX_COMMENT_RUN {
                    return false;
                }
            }
            Some(_) => comments = 0,
            None => {}
        }
        if let Some(at) = comment {
            comment_bytes += i - at;
            if comment_bytes > MAX_COMMENT_BYTES {
                return false;
            }
        }
        start = i + 1;
    }
    let unusual = |c: char| {
        matches!(
            c,
            '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
    };
    !(non_ascii && text.chars().any(unusual))
}

/// `---` or `...` at the start of a line, alone or before a space (§9.1.2, §9.1.3).
fn is_marker(line: &[u8]) -> bool {
    (line.starts_with(b"---") || line.starts_with(b"..."))
        && matches!(line.get(3), None | Some(b' '))
}

/// `-` alone or before a space: a block sequence entry (§8.2.1).
fn is_entry(s: &str) -> bool {
    let b = s.as_bytes();
    b.first() == Some(&b'-') && matches!(b.get(1), None | Some(b' '))
}

/// After a scalar: nothing, or spaces and a comment.
fn ends_cleanly(rest: &str) -> bool {
    let t = rest.trim_start_matches(' ');
    t.is_empty() || (t.starts_with('#') && t.len() < rest.len())
}

/// The `:` that ends a plain implicit key on this line (followed by a space or the line's end,
/// before any comment), if any.
fn key_colon(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b':' if i + 1 == b.len() || b[i + 1] == b' ' => return Some(i),
            b'#' if i > 0 && b[i - 1] == b' ' => return None,
            _ => {}
        }
    }
    None
}

/// A mapping key at the start of `s`, and the text after its `:`. None: `s` is not a key
/// this reader accepts.
fn split_key(s: &str) -> Option<(String, &str)> {
    let (key, len) = match s.as_bytes()[0] {
        b'"' => double_quoted(s)?,
        b'\'' => single_quoted(s)?,
        _ => {
            let at = key_colon(s)?;
            return Some((plain_key(&s[..at])?.to_owned(), &s[at + 1..]));
        }
    };
    let after = s[len..].strip_prefix(':')?;
    (len <= MAX_KEY_BYTES && (after.is_empty() || after.starts_with(' '))).then_some((key, after))
}

/// Whether a sequence entry's content is a compact mapping (`- key: v`). An answer that is
/// wrong either way only makes the reader decline: [`split_key`] and [`inline_scalar`] check.
fn starts_mapping(s: &str) -> bool {
    match s.as_bytes()[0] {
        b'{' | b'[' => false,
        b'"' | b'\'' => split_key(s).is_some(),
        _ => key_colon(s).is_some(),
    }
}

/// A scalar or a flow collection on the rest of a line (non-empty, not a comment, not a block
/// scalar header), `depth` deep.
fn inline_scalar(s: &str, depth: usize) -> Option<Value> {
    let b = s.as_bytes();
    match b[0] {
        b'"' | b'\'' => {
            let (text, len) = if b[0] == b'"' {
                double_quoted(s)?
            } else {
                single_quoted(s)?
            };
            ends_cleanly(&s[len..]).then_some(Value::String(text))
        }
        b'{' | b'[' => {
            let (v, len) = flow::collection(s, depth)?;
            ends_cleanly(&s[len..]).then_some(v)
        }
        _ if !starts_plain(s) => None,
        _ => plain_value(plain_text(s)?),
    }
}

/// The text of a plain scalar that fills the rest of a line: up to a comment, trailing spaces
/// dropped. None: it holds `: ` or ends with `:` (a mapping where none may start).
fn plain_text(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut end = b.len();
    for i in 0..b.len() {
        match b[i] {
            b':' if i + 1 == b.len() || b[i + 1] == b' ' => return None,
            b'#' if i > 0 && b[i - 1] == b' ' => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    Some(s[..end].trim_end_matches(' '))
}

/// Block scalar chomping (§8.1.1.2).
#[derive(Clone, Copy, PartialEq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// The reader's position: `line` (None past the last), whose content starts at column `col` (its
/// indentation, or further in after a compact `- `).
struct Reader<'a> {
    text: &'a str,
    line: Option<Line>,
    col: usize,
    /// Whether the text ends with a line break.
    terminated: bool,
}

impl<'a> Reader<'a> {
    /// The content of `l`, the current line, from `col`.
    fn rest(&self, l: Line) -> &'a str {
        &self.text[l.start + self.col..l.end]
    }

    fn go_to(&mut self, line: Option<Line>) {
        self.line = line;
        if let Some(l) = line {
            self.col = l.indent;
        }
    }

    fn next_line(&mut self) {
        if let Some(l) = self.line {
            self.go_to(line_after(self.text, l));
        }
    }

    /// The next line with content (blank and comment lines skipped): its column and content.
    fn current(&mut self) -> Option<(usize, &'a str)> {
        while let Some(l) = self.line {
            let rest = self.rest(l);
            if !(rest.is_empty() || rest.starts_with('#')) {
                return Some((self.col, rest));
            }
            self.next_line();
        }
        None
    }

    /// A block mapping or sequence whose first line is the current one, at column `ind`.
    fn collection(&mut self, ind: usize, depth: usize) -> Option<Value> {
        let (_, rest) = self.current()?;
        if is_entry(rest) {
            self.sequence(ind, depth)
        } else {
            self.mapping(ind, depth)
        }
    }

    fn mapping(&mut self, ind: usize, depth: usize) -> Option<Value> {
        if depth > MAX_NESTING {
            return None;
        }
        let mut map = Map::new();
        while let Some((col, rest)) = self.current() {
            if col < ind {
                break;
            }
            if col > ind || is_entry(rest) {
                return None;
            }
            let (key, after) = split_key(rest)?;
            let value = self.value(ind, after, true, depth)?;
            if map.insert(key, value).is_some() {
                return None;
            }
        }
        Some(Value::Object(map))
    }

    fn sequence(&mut self, ind: usize, depth: usize) -> Option<Value> {
        if depth > MAX_NESTING {
            return None;
        }
        let mut items = Vec::new();
        while let Some((col, rest)) = self.current() {
            if col < ind || (col == ind && !is_entry(rest)) {
                break;
            }
            if col > ind {
                return None;
            }
            let after = &rest[1..];
            let content = after.trim_start_matches(' ');
            let inner = ind + 1 + (after.len() - content.len());
            let item = if content.is_empty() || content.starts_with('#') {
                self.value(ind, after, false, depth)?
            } else if is_entry(content) {
                self.col = inner;
                self.sequence(inner, depth + 1)?
            } else if starts_mapping(content) {
                self.col = inner;
                self.mapping(inner, depth + 1)?
            } else {
                self.value(ind, after, false, depth)?
            };
            items.push(item);
        }
        Some(Value::Array(items))
    }

    /// The value after a key's `:` or an entry's `-` (`after`, empty or starting with a space)
    /// of a collection at column `owner`: on this line, or below it. Leaves the reader on the
    /// line after the value.
    fn value(&mut self, owner: usize, after: &'a str, in_map: bool, depth: usize) -> Option<Value> {
        let s = after.trim_start_matches(' ');
        if s.is_empty() || s.starts_with('#') {
            self.next_line();
            return match self.current() {
                Some((col, _)) if col > owner => self.collection(col, depth + 1),
                Some((col, rest)) if in_map && col == owner && is_entry(rest) => {
                    self.sequence(col, depth + 1)
                }
                _ => Some(Value::Null),
            };
        }
        if s.starts_with(['|', '>']) {
            return self.block_scalar(owner, s);
        }
        let v = inline_scalar(s, depth + 1)?;
        self.next_line();
        Some(v)
    }

    /// A literal or folded block scalar whose header is `header`, of a collection at column
    /// `owner` (its content is more indented, §8.1.1.1).
    fn block_scalar(&mut self, owner: usize, header: &str) -> Option<Value> {
        let b = header.as_bytes();
        let folded = b[0] == b'>';
        let (chomp, len) = match b.get(1) {
            Some(b'-') => (Chomp::Strip, 2),
            Some(b'+') => (Chomp::Keep, 2),
            _ => (Chomp::Clip, 1),
        };
        if !ends_cleanly(&header[len..]) {
            return None;
        }
        let text = self.text;
        let blank = |l: &Line| l.indent == l.end - l.start;
        let first = line_after(text, self.line?);
        // The leading blank lines, then the first line with content, whose indentation is the
        // scalar's.
        let (mut content, mut leading) = (first, None);
        while let Some(l) = content.filter(blank) {
            leading = leading.max(Some(l.indent));
            content = line_after(text, l);
        }
        let m = content?.indent;
        if m <= owner || leading.is_some_and(|spaces| spaces > m) {
            return None;
        }
        let mut out = String::new();
        let mut empties = 0;
        let mut any = false;
        let mut k = first;
        while let Some(l) = k {
            if blank(&l) {
                if l.indent > m {
                    return None;
                }
                empties += 1;
            } else if l.indent >= m {
                let text = &self.text[l.start + m..l.end];
                if folded && text.starts_with(' ') {
                    return None;
                }
                let breaks = match (any, folded) {
                    (false, _) => empties,
                    (true, false) => empties + 1,
                    (true, true) if empties == 0 => {
                        out.push(' ');
                        0
                    }
                    (true, true) => empties,
                };
                out.extend(std::iter::repeat_n('\n', breaks));
                out.push_str(text);
                any = true;
                empties = 0;
            } else {
                break;
            }
            k = line_after(text, l);
        }
        if k.is_none() && !self.terminated {
            return None;
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => out.push('\n'),
            Chomp::Keep => out.extend(std::iter::repeat_n('\n', empties + 1)),
        }
        self.go_to(k);
        Some(Value::String(out))
    }
}
