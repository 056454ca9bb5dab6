//! YAML as kubectl prints it (`kubectl get -o yaml`). cli-runtime's `YAMLPrinter`
//! (`pkg/printers/yaml.go`) hands the object to sigs.k8s.io/yaml v1.4.0 `Marshal`, which writes it
//! as JSON with Go's `encoding/json` (object keys in byte order) and converts that with
//! `JSONToYAML`: go-yaml v2 (the copy in sigs.k8s.io/yaml `goyaml.v2/`) reads the JSON back and
//! writes it again. So the bytes are go-yaml v2's encoder's (`encode.go`, `emitterc.go`):
//!
//! * mapping keys sorted by go-yaml's `keyList.Less` (`sorter.go`): rune by rune, letters
//!   (Go's `unicode.IsLetter`) after everything else, runs of digits compared as numbers;
//! * block style, two spaces of indent, a sequence in a mapping not indented further, empty
//!   collections as `[]` and `{}`, a key of more than 128 bytes or of several lines written as
//!   `? key` / `: value`;
//! * a string plain when go-yaml would read it back as a string and nothing in it needs quotes
//!   (`yaml_emitter_analyze_scalar`), else single-quoted, else double-quoted with escapes; a
//!   string holding a line feed as a literal block (`|`, `|-`, `|+`, with an indent indicator
//!   when it starts with a space or a break), unless it cannot be one;
//! * plain, single- and double-quoted strings folded at a space once the line passes 80
//!   columns (go-yaml v2's `best_width`), continued one indent deeper;
//! * numbers as the JSON step leaves them: apimachinery decodes a whole number that fits int64
//!   as an int64 and any other as a float64, `encoding/json` writes a float64 without exponent
//!   below 1e21, and go-yaml reads that text back as an int, a uint64 or a float64, which it
//!   writes with `strconv.FormatFloat(f, 'g', -1, 64)`.
//!
//! What the reading back does to the JSON text is kept too: `encoding/json` leaves U+0085 (NEL)
//! raw, and go-yaml folds it as a line break inside the quoted string (one becomes a space, `n`
//! in a row `n - 1` line feeds, with the spaces around them dropped); it refuses a NEL in a key,
//! a document marker (`---`, `...`) starting a line after one, and the characters its reader
//! does not allow (U+007F, U+0080 to U+009F but U+0085, U+FFFE, U+FFFF). Those are errors, in
//! go-yaml's words.
//!
//! The tests compare with what the Go code itself prints: `testdata/oracle` runs sigs.k8s.io/yaml
//! v1.4.0 on the values of `testdata/emit-cases.jsonl`; `testdata/emit.json` is its output.

mod resolve;
#[cfg(test)]
mod tests;

use crate::k8s::gofmt::sprint_float;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;

/// go-yaml's `best_indent`.
const INDENT: isize = 2;
/// go-yaml's `best_width`: past this column a space may become a line break.
const WIDTH: usize = 80;
/// The longest key written as a simple `key: value` (bytes; `yaml_emitter_check_simple_key`).
const SIMPLE_KEY_BYTES: usize = 128;
/// U+0085, NEL: a line break to YAML 1.1, left raw by `encoding/json`.
const NEL: char = '\u{85}';

/// `v` as kubectl's `-o yaml` prints it (see the module documentation). Errors: go-yaml's own
/// words for what it refuses to read back (`yaml: control characters are not allowed`,
/// `yaml: line N: did not find expected ',' or '}'`, `yaml: line N: found unexpected document
/// indicator`), which kubectl prints after `error: `.
pub fn marshal(v: &Value) -> Result<String, String> {
    marshal_with(v, |_| false)
}

/// [`marshal`], with the characters `unprintable` names treated as go-yaml treats those it
/// cannot print: a string holding one is double-quoted and the character written as an escape
/// (`"\u202E"`). The YAML reads back to the same value; for a terminal, whose characters a
/// caller may not want raw. Errors: as [`marshal`].
pub fn marshal_with(v: &Value, unprintable: fn(char) -> bool) -> Result<String, String> {
    refused(v)?;
    let mut e = Emitter::new(unprintable);
    e.document(v);
    Ok(e.out)
}

/// What go-yaml's reading of the JSON text refuses, in the order it would find it.
fn refused(v: &Value) -> Result<(), String> {
    let mut any_nel = false;
    let mut stack: Vec<&Value> = vec![v];
    // Its reader checks every character first (a document this size is read whole before the
    // scanner gets far).
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                reader_check(s)?;
                any_nel |= s.contains(NEL);
            }
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                for (k, val) in map {
                    reader_check(k)?;
                    any_nel |= k.contains(NEL);
                    stack.push(val);
                }
            }
            _ => {}
        }
    }
    if !any_nel {
        return Ok(());
    }
    // Then the scanner and the parser, in the text's order, counting lines at each NEL.
    let mut line = 0usize;
    let mut work: Vec<Step<'_>> = vec![Step::Value(v)];
    while let Some(step) = work.pop() {
        match step {
            Step::Key(k) => {
                scan_quoted(k, &mut line)?;
                if k.contains(NEL) {
                    return Err(format!(
                        "yaml: line {line}: did not find expected ',' or '}}'"
                    ));
                }
            }
            Step::Value(Value::String(s)) => scan_quoted(s, &mut line)?,
            Step::Value(Value::Array(items)) => {
                work.extend(items.iter().rev().map(Step::Value));
            }
            Step::Value(Value::Object(map)) => {
                let mut keys: Vec<(&String, &Value)> = map.iter().collect();
                keys.sort_by(|a, b| a.0.cmp(b.0));
                for (k, val) in keys.into_iter().rev() {
                    work.push(Step::Value(val));
                    work.push(Step::Key(k));
                }
            }
            Step::Value(_) => {}
        }
    }
    Ok(())
}

/// One string of the JSON text, as [`refused`] walks it.
enum Step<'a> {
    Key(&'a str),
    Value(&'a Value),
}

/// go-yaml's reader (`readerc.go`): the characters YAML does not allow. `encoding/json` escapes
/// every control character below U+0020, so only these reach it raw.
fn reader_check(s: &str) -> Result<(), String> {
    let bad =
        |c: char| matches!(c, '\u{7f}'..='\u{84}' | '\u{86}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}');
    if s.chars().any(bad) {
        return Err("yaml: control characters are not allowed".to_string());
    }
    Ok(())
}

/// go-yaml's scanner on one double-quoted JSON string (`yaml_parser_scan_flow_scalar`): each
/// raw NEL starts a line; `---` or `...` right at the start of one, followed by a space or a
/// break, is a document marker it refuses.
fn scan_quoted(s: &str, line: &mut usize) -> Result<(), String> {
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c != NEL {
            continue;
        }
        *line += 1;
        let rest = &chars[i + 1..];
        let marker = rest.len() >= 4
            && (rest[..3] == ['-'; 3] || rest[..3] == ['.'; 3])
            && matches!(rest[3], ' ' | NEL);
        if marker {
            return Err(format!(
                "yaml: line {}: found unexpected document indicator",
                *line + 1
            ));
        }
    }
    Ok(())
}

/// A string as go-yaml reads it back from `encoding/json`'s text: each run of spaces and raw
/// NELs that holds `n` NELs becomes a space (`n` = 1) or `n - 1` line feeds.
fn read_back(s: &str) -> Cow<'_, str> {
    if !s.contains(NEL) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut run = String::new();
    let mut breaks = 0usize;
    let flush = |out: &mut String, run: &mut String, breaks: &mut usize| {
        match *breaks {
            0 => out.push_str(run),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
        run.clear();
        *breaks = 0;
    };
    for c in s.chars() {
        match c {
            ' ' => run.push(c),
            NEL => breaks += 1,
            _ => {
                flush(&mut out, &mut run, &mut breaks);
                out.push(c);
            }
        }
    }
    flush(&mut out, &mut run, &mut breaks);
    Cow::Owned(out)
}

/// A number as the JSON round trip leaves it (see the module documentation).
fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    // `encoding/json` writes a whole float64 below 1e21 without exponent, its shortest digits
    // padded with zeros (`strconv.AppendFloat(f, 'f', -1, 64)`, as Rust's `Display` writes
    // it), and go-yaml reads that back as an int or a uint64 when it fits.
    if f.fract() == 0.0 && f.abs() < 1e21 {
        let digits = format!("{f}");
        if let Ok(i) = digits.parse::<i64>() {
            return i.to_string();
        }
        if let Ok(u) = digits.parse::<u64>() {
            return u.to_string();
        }
    }
    match sprint_float(f).as_str() {
        "+Inf" => ".inf".to_string(),
        "-Inf" => "-.inf".to_string(),
        "NaN" => ".nan".to_string(),
        s => s.to_string(),
    }
}

/// go-yaml's `keyList.Less` on two string keys.
fn key_less(a: &str, b: &str) -> bool {
    use crate::k8s::goregexp::{is_digit, is_letter};
    let letter = |c: char| {
        if c.is_ascii() {
            c.is_ascii_alphabetic()
        } else {
            is_letter(c)
        }
    };
    let digit = |c: char| {
        if c.is_ascii() {
            c.is_ascii_digit()
        } else {
            is_digit(c)
        }
    };
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (letter(ar[i]), letter(br[i]));
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && digit(ar[j - 1]) {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// The entries of a map in go-yaml's key order. A merge sort: it never panics, whatever the
/// order does on odd keys, and for distinct keys `keyList.Less` is strict, so the result is the
/// one any sort gives.
fn sorted(map: &Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut v: Vec<(&str, &Value)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    merge_sort(&mut v, &|a, b| {
        if key_less(a.0, b.0) {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    });
    v
}

fn merge_sort<T: Copy>(v: &mut [T], cmp: &dyn Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mid = v.len() / 2;
    merge_sort(&mut v[..mid], cmp);
    merge_sort(&mut v[mid..], cmp);
    let mut merged: Vec<T> = Vec::with_capacity(v.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < v.len() {
        if cmp(&v[j], &v[i]) == Ordering::Less {
            merged.push(v[j]);
            j += 1;
        } else {
            merged.push(v[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&v[i..mid]);
    merged.extend_from_slice(&v[j..]);
    v.copy_from_slice(&merged);
}

/// The style a scalar is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// What `yaml_emitter_analyze_scalar` finds in a scalar, for block context (where everything
/// is written: see [`Emitter::empty_flow`]).
#[derive(Debug, Clone, Copy)]
struct Analysis {
    empty: bool,
    multiline: bool,
    block_plain: bool,
    single: bool,
    block: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | NEL | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t')
}

/// go-yaml's `is_printable` (byte-wise there; these are the characters it accepts).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        && c != '\u{feff}'
}

fn analyze(s: &str, unprintable: fn(char) -> bool) -> Analysis {
    if s.is_empty() {
        return Analysis {
            empty: true,
            multiline: false,
            block_plain: true,
            single: true,
            block: false,
        };
    }
    // Block indicators: what a plain scalar may not hold in block context.
    let mut indicators = s.starts_with("---") || s.starts_with("...");
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut prev_space, mut prev_break) = (false, false);
    let chars: Vec<char> = s.chars().collect();
    let mut preceded_by_ws = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_ws = chars.get(i + 1).is_none_or(|&n| is_blank(n));
        let last = i + 1 == chars.len();
        indicators |= if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => true,
                '?' | ':' | '-' => followed_by_ws,
                _ => false,
            }
        } else {
            match c {
                ':' => followed_by_ws,
                '#' => preceded_by_ws,
                _ => false,
            }
        };
        if !is_printable(c) || unprintable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= last;
            break_space |= prev_break;
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= last;
            space_break |= prev_space;
            prev_space = false;
            prev_break = true;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_by_ws = is_blank(c) || is_break(c) || c == '\0';
    }
    let edges = leading_space || leading_break || trailing_space || trailing_break;
    Analysis {
        empty: false,
        multiline: line_breaks,
        block_plain: !(edges || break_space || space_break || special || line_breaks || indicators),
        single: !(break_space || space_break || special),
        block: !(trailing_space || space_break || special),
    }
}

/// The style go-yaml's encoder asks for a string (`stringv`): a literal block when it holds a
/// line feed, plain when it reads back as a string, else double-quoted.
fn requested(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if resolve::plain_is_string(s) {
        Style::Plain
    } else {
        Style::Double
    }
}

/// The contexts of the node being written (`yaml_emitter_emit_node`'s flags that change the
/// output: its `root_context` only marks the stream open-ended, which the encoder undoes, and
/// its `sequence_context` is never read).
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    mapping: bool,
    simple_key: bool,
}

/// A collection being written.
enum Frame<'a> {
    Map {
        entries: Vec<(&'a str, &'a Value)>,
        next: usize,
    },
    Seq {
        items: &'a [Value],
        next: usize,
    },
}

/// go-yaml v2's emitter, for the events a decoded JSON value makes (no anchors, tags or
/// directives, no flow collection but empty ones), with its state: the column, whether the
/// last thing written was whitespace or indentation, the indents.
struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: isize,
    indents: Vec<isize>,
    /// Characters written escaped beyond those go-yaml cannot print.
    unprintable: fn(char) -> bool,
}

impl Emitter {
    fn new(unprintable: fn(char) -> bool) -> Emitter {
        Emitter {
            unprintable,
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::new(),
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, s: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in s.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { INDENT } else { 0 };
        } else if !indentless {
            self.indent += INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    /// A whole document: the value, then the document's end.
    fn document(&mut self, v: &Value) {
        let mut stack: Vec<Frame<'_>> = Vec::new();
        self.node(v, Context::default(), &mut stack);
        while let Some(top) = stack.last_mut() {
            match top {
                Frame::Seq { items, next } => {
                    let Some(item) = items.get(*next) else {
                        self.pop_indent();
                        stack.pop();
                        continue;
                    };
                    *next += 1;
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::default(), &mut stack);
                }
                Frame::Map { entries, next } => {
                    let Some(&(key, value)) = entries.get(*next) else {
                        self.pop_indent();
                        stack.pop();
                        continue;
                    };
                    *next += 1;
                    self.write_indent();
                    let a = analyze(key, self.unprintable);
                    if !a.multiline && key.len() <= SIMPLE_KEY_BYTES {
                        let cx = Context {
                            mapping: true,
                            simple_key: true,
                        };
                        self.scalar(key, requested(key), a, cx);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        let cx = Context {
                            mapping: true,
                            simple_key: false,
                        };
                        self.scalar(key, requested(key), a, cx);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    let cx = Context {
                        mapping: true,
                        simple_key: false,
                    };
                    self.node(value, cx, &mut stack);
                }
            }
        }
        // The document's end; the encoder clears `open_ended` before the stream's end
        // (`encode.go` `finish`), so no `...` follows even a `|+` block.
        self.write_indent();
    }

    /// One node: a scalar is written; a non-empty collection starts and is pushed on `stack`.
    fn node<'a>(&mut self, v: &'a Value, cx: Context, stack: &mut Vec<Frame<'a>>) {
        match v {
            Value::Null => self.scalar("null", Style::Plain, analyze("null", self.unprintable), cx),
            Value::Bool(b) => {
                let s = if *b { "true" } else { "false" };
                self.scalar(s, Style::Plain, analyze(s, self.unprintable), cx);
            }
            Value::Number(n) => {
                let s = number_text(n);
                self.scalar(&s, Style::Plain, analyze(&s, self.unprintable), cx);
            }
            Value::String(s) => {
                let s = read_back(s);
                self.scalar(&s, requested(&s), analyze(&s, self.unprintable), cx);
            }
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => {
                self.empty_flow("{", "}");
            }
            Value::Array(items) => {
                self.increase_indent(false, cx.mapping && !self.indention);
                stack.push(Frame::Seq { items, next: 0 });
            }
            Value::Object(map) => {
                self.increase_indent(false, false);
                stack.push(Frame::Map {
                    entries: sorted(map),
                    next: 0,
                });
            }
        }
    }

    /// `[]` or `{}` (the flow style go-yaml picks for an empty collection; nothing is ever
    /// written inside one, so no scalar is in a flow context).
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    /// A scalar in the style `yaml_emitter_select_scalar_style` settles on.
    fn scalar(&mut self, s: &str, requested: Style, a: Analysis, cx: Context) {
        let mut style = requested;
        if cx.simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain && (!a.block_plain || (a.empty && cx.simple_key)) {
            style = Style::Single;
        }
        if style == Style::Single && !a.single {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block || cx.simple_key) {
            style = Style::Double;
        }
        self.increase_indent(true, false);
        let breaks = !cx.simple_key;
        match style {
            Style::Plain => self.plain(s, breaks),
            Style::Single => self.single_quoted(s, breaks),
            Style::Double => self.double_quoted(s, breaks),
            Style::Literal => self.literal(s),
        }
        self.pop_indent();
    }

    fn plain(&mut self, s: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = s.chars().collect();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > WIDTH && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, s: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                let inner = i > 0 && i + 1 < chars.len();
                if allow_breaks && !spaces && self.column > WIDTH && inner && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, s: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let bom = s.starts_with('\u{feff}');
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c)
                || (self.unprintable)(c)
                || bom
                || is_break(c)
                || c == '"'
                || c == '\\'
            {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{b}' => Some('v'),
                    '\u{c}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1b}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    NEL => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match short {
                    Some(e) => self.put(e),
                    None => {
                        let v = c as u32;
                        let (letter, digits) = if v <= 0xff {
                            ('x', 2)
                        } else if v <= 0xffff {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(letter);
                        for k in (0..digits).rev() {
                            let d = (v >> (4 * k)) & 0xf;
                            self.put(char::from_digit(d, 16).unwrap_or('0').to_ascii_uppercase());
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                let inner = i > 0 && i + 1 < chars.len();
                if allow_breaks && !spaces && self.column > WIDTH && inner {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// A literal block (`yaml_emitter_write_literal_scalar`) with its hints: `2` when it starts
    /// with a space or a break, `-` without a final break, `+` with more than one (or only one).
    fn literal(&mut self, s: &str) {
        self.write_indicator("|", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            self.write_indicator(&INDENT.to_string(), false, false, false);
        }
        let chomp = match chars.as_slice() {
            [] => Some("-"),
            [.., last] if !is_break(*last) => Some("-"),
            [_] => Some("+"),
            [.., before, _] if is_break(*before) => Some("+"),
            _ => None,
        };
        if let Some(h) = chomp {
            self.write_indicator(h, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}
