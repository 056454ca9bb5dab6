//! The scanner of the front end, following gopher-lua v1.1.2 `parse/lexer.go` (the `Scanner`: its
//! character reader, `Newline`, `skipWhiteSpace`, `skipComments`, `scanNumber`, `scanString`,
//! `scanEscape`, `scanMultilineString` and `Scan`). Besides the tokens it records the compatibility
//! edits found inside a token (string escapes, numerals; see [`super::edit`]), comparing each
//! numeral's value under gopher-lua (`parseNumber` in `utils.go`) and LuaJIT.

use super::edit::{Insert, Text, OPEN, SEP};
use super::error::{lossy, SyntaxError};
use super::token::{keyword, Token, T};

const EOF: i32 = -1;

fn is_decimal(c: i32) -> bool {
    (b'0' as i32..=b'9' as i32).contains(&c)
}

fn is_hex(c: i32) -> bool {
    is_decimal(c)
        || (b'a' as i32..=b'f' as i32).contains(&c)
        || (b'A' as i32..=b'F' as i32).contains(&c)
}

fn is_ident(c: i32, first: bool) -> bool {
    c == b'_' as i32
        || (b'a' as i32..=b'z' as i32).contains(&c)
        || (b'A' as i32..=b'Z' as i32).contains(&c)
        || (!first && is_decimal(c))
}

/// Appends a character as gopher-lua's `writeChar` does: the low byte (so the end of input, -1,
/// becomes 0xFF).
fn push(buf: &mut Vec<u8>, c: i32) {
    buf.push(c as u8);
}

pub(super) struct Scanner<'a> {
    pub(super) src: &'a [u8],
    pos: usize,
    line: usize,
    col: usize,
    /// gopher-lua's `Pos.Line == EOF`: the reader has returned the end of input.
    at_eof: bool,
    /// Compatibility edits found while scanning (escapes, numerals).
    pub(super) fix_inserts: Vec<Insert>,
    pub(super) fix_deletes: Vec<(usize, usize)>,
    /// `(end, ends_in_e)` of numerals kept verbatim.
    pub(super) numeral_ends: Vec<(usize, bool)>,
}

impl<'a> Scanner<'a> {
    pub(super) fn new(src: &'a [u8]) -> Self {
        Scanner {
            src,
            pos: 0,
            line: 1,
            col: 0,
            at_eof: false,
            fix_inserts: Vec::new(),
            fix_deletes: Vec::new(),
            numeral_ends: Vec::new(),
        }
    }

    fn peek(&self) -> i32 {
        self.src.get(self.pos).map_or(EOF, |&b| b as i32)
    }

    /// Reads one character; `\r`, `\n` and the two-character pairs `\r\n`, `\n\r` are one
    /// newline, returned as `\n`.
    fn next(&mut self) -> i32 {
        let Some(&b) = self.src.get(self.pos) else {
            self.at_eof = true;
            self.col = 0;
            return EOF;
        };
        self.pos += 1;
        match b {
            b'\n' | b'\r' => {
                self.line += 1;
                self.col = 0;
                let other = if b == b'\n' { b'\r' } else { b'\n' };
                if self.src.get(self.pos) == Some(&other) {
                    self.pos += 1;
                }
                b'\n' as i32
            }
            _ => {
                self.col += 1;
                b as i32
            }
        }
    }

    fn error(&self, token: &[u8], message: &str) -> SyntaxError {
        SyntaxError {
            line: if self.at_eof { 0 } else { self.line },
            column: if self.at_eof { 0 } else { self.col },
            token: lossy(token),
            message: message.to_string(),
        }
    }

    /// Skips spaces and tabs (and newlines when `newlines`), returning the first other character
    /// (consumed).
    fn skip_space(&mut self, newlines: bool) -> i32 {
        loop {
            let c = self.next();
            let space = c == b' ' as i32 || c == b'\t' as i32;
            if !(space || (newlines && c == b'\n' as i32)) {
                return c;
            }
        }
    }

    pub(super) fn scan(&mut self) -> Result<Token, SyntaxError> {
        loop {
            let mut c = self.skip_space(false);
            if c == b'\n' as i32 {
                c = self.skip_space(true);
            }
            let start = if c == EOF {
                self.src.len()
            } else {
                self.pos - 1
            };
            let mut buf: Vec<u8> = Vec::new();
            let mut nan_fix = false;
            let t = if c == EOF {
                T::Eof
            } else if is_ident(c, true) {
                push(&mut buf, c);
                while is_ident(self.peek(), false) {
                    let n = self.next();
                    push(&mut buf, n);
                }
                keyword(&buf).unwrap_or(T::Name)
            } else if is_decimal(c) {
                self.scan_number(c, &mut buf)?;
                nan_fix = self.numeral_fix(start, &buf);
                T::Number
            } else {
                match c as u8 {
                    b'-' if self.peek() == b'-' as i32 => {
                        let n = self.next();
                        self.skip_comment(n)?;
                        continue;
                    }
                    b'"' | b'\'' => {
                        self.scan_string(c, &mut buf)?;
                        T::Str
                    }
                    b'[' if self.peek() == b'[' as i32 || self.peek() == b'=' as i32 => {
                        let n = self.next();
                        self.scan_long(n, &mut buf)?;
                        T::Str
                    }
                    b'=' | b'~' | b'<' | b'>' if self.peek() == b'=' as i32 => {
                        self.next();
                        buf.push(c as u8);
                        buf.push(b'=');
                        match c as u8 {
                            b'=' => T::Eq,
                            b'~' => T::Ne,
                            b'<' => T::Le,
                            _ => T::Ge,
                        }
                    }
                    b'~' => return Err(self.error(b"~", "Invalid '~' token")),
                    b'.' => {
                        if is_decimal(self.peek()) {
                            self.scan_number(c, &mut buf)?;
                            nan_fix = self.numeral_fix(start, &buf);
                            T::Number
                        } else if self.peek() == b'.' as i32 {
                            self.next();
                            if self.peek() == b'.' as i32 {
                                self.next();
                                buf.extend_from_slice(b"...");
                                T::Dots
                            } else {
                                buf.extend_from_slice(b"..");
                                T::Concat
                            }
                        } else {
                            // gopher-lua leaves the text of `.` empty.
                            T::Op(b'.')
                        }
                    }
                    b':' if self.peek() == b':' as i32 => {
                        self.next();
                        buf.extend_from_slice(b"::");
                        T::DColon
                    }
                    b'-' | b'=' | b'<' | b'>' | b':' | b'[' | b'+' | b'*' | b'/' | b'%' | b'^'
                    | b'#' | b'(' | b')' | b'{' | b'}' | b']' | b';' | b',' => {
                        buf.push(c as u8);
                        T::Op(c as u8)
                    }
                    _ => return Err(self.error(&[c as u8], "Invalid token")),
                }
            };
            return Ok(Token {
                t,
                text: buf,
                start,
                end: self.pos,
                end_line: self.line,
                err_line: if self.at_eof { 0 } else { self.line },
                err_col: if self.at_eof { 0 } else { self.col },
                nan_fix,
            });
        }
    }

    /// Skips a comment; `c` is its second `-`.
    fn skip_comment(&mut self, mut c: i32) -> Result<(), SyntaxError> {
        if self.peek() == b'[' as i32 {
            c = self.next();
            if self.peek() == b'[' as i32 || self.peek() == b'=' as i32 {
                let mut buf = Vec::new();
                let n = self.next();
                if self.scan_long(n, &mut buf).is_err() {
                    return Err(self.error(&buf, "invalid multiline comment"));
                }
                return Ok(());
            }
        }
        while c != b'\n' as i32 && c != EOF {
            c = self.next();
        }
        Ok(())
    }

    /// Reads digits after `first` (already consumed, and written).
    fn scan_decimal(&mut self, first: i32, buf: &mut Vec<u8>) {
        push(buf, first);
        while is_decimal(self.peek()) {
            let n = self.next();
            push(buf, n);
        }
    }

    /// Reads a numeral starting with `c` (a digit or `.`, consumed) the way gopher-lua does: a hex
    /// numeral stops at the first non-hex-digit; otherwise digits, at most one `.` and digits, and
    /// an exponent whose first character after `e`/`E` and sign is taken whatever it is. A `0`
    /// before another digit is dropped from the text.
    fn scan_number(&mut self, mut c: i32, buf: &mut Vec<u8>) -> Result<(), SyntaxError> {
        if c == b'0' as i32 {
            let p = self.peek();
            if p == b'x' as i32 || p == b'X' as i32 {
                push(buf, c);
                let x = self.next();
                push(buf, x);
                let mut any = false;
                while is_hex(self.peek()) {
                    let n = self.next();
                    push(buf, n);
                    any = true;
                }
                if !any {
                    return Err(self.error(buf, "illegal hexadecimal number"));
                }
                return Ok(());
            } else if is_decimal(p) {
                c = self.next();
            }
        }
        self.scan_decimal(c, buf);
        if self.peek() == b'.' as i32 {
            let n = self.next();
            self.scan_decimal(n, buf);
        }
        let p = self.peek();
        if p == b'e' as i32 || p == b'E' as i32 {
            let e = self.next();
            push(buf, e);
            let s = self.peek();
            if s == b'-' as i32 || s == b'+' as i32 {
                let s = self.next();
                push(buf, s);
            }
            let n = self.next();
            self.scan_decimal(n, buf);
        }
        Ok(())
    }

    /// Records how LuaJIT must see the numeral `src[start..self.pos]` (gopher-lua text `text`);
    /// true when it is replaced by `(0/0)`.
    fn numeral_fix(&mut self, start: usize, text: &[u8]) -> bool {
        let end = self.pos;
        let source = &self.src[start..end];
        let gopher = gopher_number(text);
        if let Some(v) = gopher {
            if luajit_number(source) == Some(v) {
                let ends_in_e = matches!(source.last(), Some(b'e' | b'E'));
                self.numeral_ends.push((end, ends_in_e));
                return false;
            }
        }
        let literal = match gopher {
            Some(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{}", v as i64),
            Some(v) => format!("{v:e}"),
            None => "(0/0)".to_string(),
        };
        let nan = gopher.is_none();
        if !nan {
            self.numeral_ends.push((end, false));
        }
        self.fix_inserts.push(Insert {
            pos: start,
            class: OPEN,
            key: u32::MAX,
            seq: 0,
            text: Text::Owned(literal),
        });
        // Delete everything but newlines (an exponent can swallow one).
        let mut i = start;
        while i < end {
            if matches!(self.src[i], b'\n' | b'\r') {
                i += 1;
                continue;
            }
            let run = i;
            while i < end && !matches!(self.src[i], b'\n' | b'\r') {
                i += 1;
            }
            self.fix_deletes.push((run, i));
        }
        nan
    }

    /// Reads a quoted string; the opening quote is consumed.
    fn scan_string(&mut self, quote: i32, buf: &mut Vec<u8>) -> Result<(), SyntaxError> {
        let mut c = self.next();
        while c != quote {
            if c == b'\n' as i32 || c == EOF {
                return Err(self.error(buf, "unterminated string"));
            }
            if c == b'\\' as i32 {
                let backslash = self.pos - 1;
                self.scan_escape(backslash, buf);
            } else {
                push(buf, c);
            }
            c = self.next();
        }
        Ok(())
    }

    fn scan_escape(&mut self, backslash: usize, buf: &mut Vec<u8>) {
        let c = self.next();
        let decoded = match c {
            EOF => {
                push(buf, c);
                return;
            }
            _ => match c as u8 {
                b'a' => 7,
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'v' => 11,
                b'\\' => b'\\',
                b'"' => b'"',
                b'\'' => b'\'',
                b'\n' => b'\n',
                d @ b'0'..=b'9' => {
                    let first = self.pos - 1;
                    let mut val = (d - b'0') as u32;
                    for _ in 0..2 {
                        if !is_decimal(self.peek()) {
                            break;
                        }
                        val = val * 10 + (self.next() - b'0' as i32) as u32;
                    }
                    if val > 255 {
                        // gopher-lua writes byte(val); LuaJIT rejects escapes above 255.
                        self.fix_deletes.push((first, self.pos));
                        self.fix_inserts.push(Insert {
                            pos: first,
                            class: SEP,
                            key: 0,
                            seq: 0,
                            text: Text::Owned(format!("{:03}", val & 255)),
                        });
                    }
                    (val & 255) as u8
                }
                other => {
                    // Unknown to gopher-lua: it keeps the character alone.
                    self.fix_deletes.push((backslash, backslash + 1));
                    other
                }
            },
        };
        buf.push(decoded);
    }

    /// Reads a long bracket string or comment; `c` is the character after the first `[`
    /// (consumed).
    fn scan_long(&mut self, c: i32, buf: &mut Vec<u8>) -> Result<(), SyntaxError> {
        let (level, mut c) = self.count_eq(c);
        if c != b'[' as i32 {
            let shown = if c == EOF {
                char::REPLACEMENT_CHARACTER
            } else {
                char::from(c as u8)
            };
            let mut tmp = [0u8; 4];
            return Err(self.error(
                shown.encode_utf8(&mut tmp).as_bytes(),
                "invalid multiline string",
            ));
        }
        c = self.next();
        if c == b'\n' as i32 {
            c = self.next();
        }
        loop {
            if c == EOF {
                return Err(self.error(buf, "unterminated multiline string"));
            }
            if c == b']' as i32 {
                let n = self.next();
                let (close, after) = self.count_eq(n);
                if close == level && after == b']' as i32 {
                    return Ok(());
                }
                buf.push(b']');
                buf.extend(std::iter::repeat_n(b'=', close));
                c = after;
                continue;
            }
            push(buf, c);
            c = self.next();
        }
    }

    fn count_eq(&mut self, mut c: i32) -> (usize, i32) {
        let mut n = 0;
        while c == b'=' as i32 {
            n += 1;
            c = self.next();
        }
        (n, c)
    }
}

/// gopher-lua's value of a numeral token (`parseNumber` in `utils.go`): Go's `strconv.ParseInt`
/// with base 0 (so a leading `0` means octal), then `strconv.ParseFloat`; `None` where both fail
/// (gopher-lua then uses NaN), including a float out of range.
fn gopher_number(text: &[u8]) -> Option<f64> {
    let mut s = text;
    while let [b' ' | b'\t' | b'\n', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\n'] = s {
        s = rest;
    }
    let s = std::str::from_utf8(s).ok()?;
    let int = if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
            .ok()
            .filter(|&v| v <= i64::MAX as u64)
            .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))
    } else if s.len() > 1 && s.starts_with('0') {
        let oct = &s[1..];
        if oct.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            u64::from_str_radix(oct, 8)
                .ok()
                .filter(|&v| v <= i64::MAX as u64)
        } else {
            None
        }
    } else if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse::<u64>().ok().filter(|&v| v <= i64::MAX as u64)
    } else {
        None
    };
    if let Some(v) = int {
        return Some(v as f64);
    }
    if s.starts_with("0x") || s.starts_with("0X") {
        // ParseFloat needs a `p` exponent for hex mantissas, which gopher-lua never scans.
        return None;
    }
    let well_formed = s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !well_formed {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// LuaJIT's value of a numeral, for the shapes gopher-lua can produce; `None` where LuaJIT would
/// read something else or reject it.
fn luajit_number(source: &[u8]) -> Option<f64> {
    if let [b'0', b'x' | b'X', hex @ ..] = source {
        if hex.is_empty() || !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        let s = std::str::from_utf8(hex).ok()?;
        return u64::from_str_radix(s, 16).ok().map(|v| v as f64);
    }
    let s = std::str::from_utf8(source).ok()?;
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
    let dots = mantissa.bytes().filter(|&b| b == b'.').count();
    if digits == 0 || digits + dots != mantissa.len() || dots > 1 {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}
