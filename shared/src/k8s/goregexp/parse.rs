//! Reading a pattern as Go's `regexp.Compile` reads it (`regexp/syntax/parse.go`: `parse`,
//! `parseRepeat`, `parseInt`, `parsePerlFlags`, `isValidCaptureName`, `parseEscape`,
//! `repeat`), with the flags `syntax.Perl`: `^` and `$` are the start and end of the text
//! unless `(?m)`, `.` is not `\n` unless `(?s)`, and Perl's extensions are on — `(?i)`,
//! `(?P<name>…)` and `(?<name>…)`, `\Q…\E`, `\A`, `\z`, `\b`, `\B`, `\d`, `\s`, `\w` (ASCII)
//! and `\pL`. What Go refuses is refused with Go's error: backreferences, lookaround, `\Z`,
//! `\C`, `(?'name'…)`, stacked repetition (`a**`), repeat counts above 1000.

use super::error::{Error, ErrorCode};
use super::limits::MAX_REPEAT;
use super::ranges::MAX_RUNE;
use super::tree::{
    Flags, Op, Parser, Tree, DOT_NL, FOLD_CASE, NON_GREEDY, ONE_LINE, PERL_X, WAS_DOLLAR,
};

/// Parses `s` with `flags` (Go's `syntax.Parse`; `regexp.Compile` passes [`super::tree::PERL`]).
pub(super) fn parse(s: &str, flags: Flags) -> Result<Tree, Error> {
    let mut p = Parser::new(s, flags);
    let mut t = s;
    let mut last_repeat = "";
    while !t.is_empty() {
        let mut repeat = "";
        match t.as_bytes()[0] {
            b'(' => {
                if p.flags & PERL_X != 0 && t.as_bytes().get(1) == Some(&b'?') {
                    t = p.parse_perl_flags(t)?;
                } else {
                    p.num_cap += 1;
                    let id = p.op(Op::LeftParen)?;
                    p.nodes[id].cap = p.num_cap;
                    t = &t[1..];
                }
            }
            b'|' => {
                p.parse_vertical_bar()?;
                t = &t[1..];
            }
            b')' => {
                p.parse_right_paren()?;
                t = &t[1..];
            }
            b'^' => {
                let op = if p.flags & ONE_LINE != 0 {
                    Op::BeginText
                } else {
                    Op::BeginLine
                };
                p.op(op)?;
                t = &t[1..];
            }
            b'$' => {
                if p.flags & ONE_LINE != 0 {
                    let id = p.op(Op::EndText)?;
                    p.nodes[id].flags |= WAS_DOLLAR;
                } else {
                    p.op(Op::EndLine)?;
                }
                t = &t[1..];
            }
            b'.' => {
                let op = if p.flags & DOT_NL != 0 {
                    Op::AnyChar
                } else {
                    Op::AnyCharNotNl
                };
                p.op(op)?;
                t = &t[1..];
            }
            b'[' => t = p.parse_class(t)?,
            b'*' | b'+' | b'?' => {
                let op = match t.as_bytes()[0] {
                    b'*' => Op::Star,
                    b'+' => Op::Plus,
                    _ => Op::Quest,
                };
                let before = t;
                t = p.repeat(op, 0, 0, before, &t[1..], last_repeat)?;
                repeat = before;
            }
            b'{' => {
                let before = t;
                match parse_repeat(t) {
                    None => {
                        // Not a repeat: { is a literal.
                        p.literal('{' as i32)?;
                        t = &t[1..];
                    }
                    Some((min, max, after)) => {
                        if !(0..=MAX_REPEAT).contains(&min)
                            || max > MAX_REPEAT
                            || (max >= 0 && min > max)
                        {
                            let text = &before[..before.len() - after.len()];
                            return Err(Error::syntax(ErrorCode::InvalidRepeatSize, text));
                        }
                        t = p.repeat(Op::Repeat, min, max, before, after, last_repeat)?;
                        repeat = before;
                    }
                }
            }
            b'\\' => t = p.parse_backslash(t)?,
            _ => {
                let (c, rest) = next_rune(t);
                p.literal(c)?;
                t = rest;
            }
        }
        last_repeat = repeat;
    }
    p.concat()?;
    if p.swap_vertical_bar()? {
        p.stack.pop();
    }
    p.alternate()?;
    if p.stack.len() != 1 {
        return Err(Error::syntax(ErrorCode::MissingParen, s));
    }
    Ok(Tree {
        root: p.stack[0],
        nodes: p.nodes,
    })
}

/// The first rune of `s` and the rest; an empty `s` reads as U+FFFD and nothing, as Go's
/// `utf8.DecodeRuneInString` does.
pub(super) fn next_rune(s: &str) -> (i32, &str) {
    match s.chars().next() {
        Some(c) => (c as i32, &s[c.len_utf8()..]),
        None => (0xFFFD, s),
    }
}

/// Go's `parseRepeat`: `{min}`, `{min,}` (max -1) or `{min,max}` at the start of `s`; a count
/// too large to read makes min -1.
fn parse_repeat(s: &str) -> Option<(i32, i32, &str)> {
    let s = s.strip_prefix('{')?;
    let (mut min, mut s) = parse_int(s)?;
    let max;
    if s.is_empty() {
        return None;
    }
    if let Some(rest) = s.strip_prefix(',') {
        s = rest;
        if s.is_empty() {
            return None;
        }
        if s.starts_with('}') {
            max = -1;
        } else {
            let (m, rest) = parse_int(s)?;
            s = rest;
            max = m;
            if max < 0 {
                min = -1;
            }
        }
    } else {
        max = min;
    }
    let rest = s.strip_prefix('}')?;
    Some((min, max, rest))
}

/// Go's `parseInt`: decimal digits without a leading zero; -1 when too large.
fn parse_int(s: &str) -> Option<(i32, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits >= 2 && s.starts_with('0')) {
        return None;
    }
    let mut n: i32 = 0;
    for b in s[..digits].bytes() {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i32::from(b - b'0');
    }
    Some((n, &s[digits..]))
}

/// Go's `isValidCaptureName`: `[A-Za-z0-9_]+`.
fn is_valid_capture_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric())
}

fn unhex(c: i32) -> i32 {
    match u8::try_from(c).map(char::from) {
        Ok(d @ '0'..='9') => d as i32 - '0' as i32,
        Ok(d @ 'a'..='f') => d as i32 - 'a' as i32 + 10,
        Ok(d @ 'A'..='F') => d as i32 - 'A' as i32 + 10,
        _ => -1,
    }
}

fn is_octal(s: &str) -> bool {
    matches!(s.as_bytes().first(), Some(b'0'..=b'7'))
}

impl<'a> Parser<'a> {
    /// Go's `repeat`: the top of the stack repeated; `before` starts at the operator, `after`
    /// follows it. Returns what follows (a `?` making it non-greedy is taken).
    fn repeat(
        &mut self,
        op: Op,
        min: i32,
        max: i32,
        before: &'a str,
        mut after: &'a str,
        last_repeat: &'a str,
    ) -> Result<&'a str, Error> {
        let mut flags = self.flags;
        if self.flags & PERL_X != 0 {
            if let Some(rest) = after.strip_prefix('?') {
                after = rest;
                flags ^= NON_GREEDY;
            }
            if !last_repeat.is_empty() {
                // a** is an error in Perl, not a doubled star.
                let text = &last_repeat[..last_repeat.len() - after.len()];
                return Err(Error::syntax(ErrorCode::InvalidRepeatOp, text));
            }
        }
        let text = &before[..before.len() - after.len()];
        let Some(&sub) = self.stack.last() else {
            return Err(Error::syntax(ErrorCode::MissingRepeatArgument, text));
        };
        if self.op_of(sub).is_pseudo() {
            return Err(Error::syntax(ErrorCode::MissingRepeatArgument, text));
        }
        let re = self.new_node(op);
        let node = &mut self.nodes[re];
        node.min = min;
        node.max = max;
        node.flags = flags;
        node.sub = vec![sub];
        let top = self.stack.len() - 1;
        self.stack[top] = re;
        self.check_limits(re)?;
        if op == Op::Repeat && (min >= 2 || max >= 2) && !self.repeat_is_valid(re, MAX_REPEAT) {
            return Err(Error::syntax(ErrorCode::InvalidRepeatSize, text));
        }
        Ok(after)
    }

    /// Go's `parsePerlFlags`: `(?i)`, `(?i:`, `(?:`, `(?P<name>`, `(?<name>` at the start of
    /// `s`; returns what follows.
    fn parse_perl_flags(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let b = s.as_bytes();
        let starts_with_p = b.len() > 4 && b[2] == b'P' && b[3] == b'<';
        let starts_with_name = b.len() > 3 && b[2] == b'<';
        if starts_with_p || starts_with_name {
            let expr_start = if starts_with_name { 3 } else { 4 };
            let Some(end) = s.find('>') else {
                return Err(Error::syntax(ErrorCode::InvalidNamedCapture, s));
            };
            let capture = &s[..end + 1];
            let name = &s[expr_start..end];
            if !is_valid_capture_name(name) {
                return Err(Error::syntax(ErrorCode::InvalidNamedCapture, capture));
            }
            self.num_cap += 1;
            let re = self.op(Op::LeftParen)?;
            self.nodes[re].cap = self.num_cap;
            self.nodes[re].name = name.to_string();
            return Ok(&s[end + 1..]);
        }

        // A group without capture, perhaps changing flags.
        let mut t = &s[2..];
        let mut flags = self.flags;
        let mut negated = false;
        let mut saw_flag = false;
        while !t.is_empty() {
            let (c, rest) = next_rune(t);
            t = rest;
            match char::from_u32(c as u32).unwrap_or('\u{FFFD}') {
                'i' => {
                    flags |= FOLD_CASE;
                    saw_flag = true;
                }
                'm' => {
                    flags &= !ONE_LINE;
                    saw_flag = true;
                }
                's' => {
                    flags |= DOT_NL;
                    saw_flag = true;
                }
                'U' => {
                    flags |= NON_GREEDY;
                    saw_flag = true;
                }
                '-' => {
                    if negated {
                        break;
                    }
                    negated = true;
                    // Inverted, so the | above clears and later inverting restores.
                    flags = !flags;
                    saw_flag = false;
                }
                c @ (':' | ')') => {
                    if negated {
                        if !saw_flag {
                            break;
                        }
                        flags = !flags;
                    }
                    if c == ':' {
                        self.op(Op::LeftParen)?;
                    }
                    self.flags = flags;
                    return Ok(t);
                }
                _ => break,
            }
        }
        Err(Error::syntax(
            ErrorCode::InvalidPerlOp,
            &s[..s.len() - t.len()],
        ))
    }

    /// A `\` at the start of `t`: an assertion, `\Q…\E`, a class or an escaped character.
    fn parse_backslash(&mut self, t: &'a str) -> Result<&'a str, Error> {
        if self.flags & PERL_X != 0 && t.len() >= 2 {
            match t.as_bytes()[1] {
                b'A' => {
                    self.op(Op::BeginText)?;
                    return Ok(&t[2..]);
                }
                b'b' => {
                    self.op(Op::WordBoundary)?;
                    return Ok(&t[2..]);
                }
                b'B' => {
                    self.op(Op::NoWordBoundary)?;
                    return Ok(&t[2..]);
                }
                // Any byte: not supported.
                b'C' => return Err(Error::syntax(ErrorCode::InvalidEscape, &t[..2])),
                b'Q' => {
                    // \Q ... \E: the ... is always literals.
                    let rest = &t[2..];
                    let (lit, after) = match rest.find("\\E") {
                        Some(i) => (&rest[..i], &rest[i + 2..]),
                        None => (rest, ""),
                    };
                    for c in lit.chars() {
                        self.literal(c as i32)?;
                    }
                    return Ok(after);
                }
                b'z' => {
                    self.op(Op::EndText)?;
                    return Ok(&t[2..]);
                }
                _ => {}
            }
        }
        let re = self.new_node(Op::CharClass);
        self.nodes[re].flags = self.flags;
        let mut class = Vec::new();
        if t.starts_with("\\p") || t.starts_with("\\P") {
            if let Some(rest) = self.parse_unicode_class(t, &mut class)? {
                self.nodes[re].runes = class;
                self.push(re)?;
                return Ok(rest);
            }
        }
        if let Some(rest) = self.parse_perl_class_escape(t, &mut class)? {
            self.nodes[re].runes = class;
            self.push(re)?;
            return Ok(rest);
        }
        self.reuse(re);
        let (c, rest) = self.parse_escape(t)?;
        self.literal(c)?;
        Ok(rest)
    }

    /// Go's `parseEscape`: the character an escape at the start of `s` stands for: `\n`,
    /// `\x41`, `\x{10FFFF}`, octal `\123`, or an escaped punctuation character.
    pub(super) fn parse_escape(&self, s: &'a str) -> Result<(i32, &'a str), Error> {
        let t = &s[1..];
        if t.is_empty() {
            return Err(Error::syntax(ErrorCode::TrailingBackslash, ""));
        }
        let (c, mut t) = next_rune(t);
        let invalid = |t: &str| Error::syntax(ErrorCode::InvalidEscape, &s[..s.len() - t.len()]);
        let ch = char::from_u32(c as u32).unwrap_or('\u{FFFD}');
        match ch {
            // A single non-zero digit would be a backreference: not supported.
            '1'..='7' if !is_octal(t) => Err(invalid(t)),
            '0'..='7' => {
                // Up to three octal digits.
                let mut r = c - '0' as i32;
                for _ in 1..3 {
                    if !is_octal(t) {
                        break;
                    }
                    r = r * 8 + i32::from(t.as_bytes()[0] - b'0');
                    t = &t[1..];
                }
                Ok((r, t))
            }
            'x' => {
                if t.is_empty() {
                    return Err(invalid(t));
                }
                let (c, rest) = next_rune(t);
                t = rest;
                if c == '{' as i32 {
                    // Any number of hex digits in braces, at least one.
                    let mut nhex = 0;
                    let mut r = 0;
                    loop {
                        if t.is_empty() {
                            return Err(invalid(t));
                        }
                        let (c, rest) = next_rune(t);
                        t = rest;
                        if c == '}' as i32 {
                            break;
                        }
                        let v = unhex(c);
                        if v < 0 {
                            return Err(invalid(t));
                        }
                        r = r * 16 + v;
                        if r > MAX_RUNE {
                            return Err(invalid(t));
                        }
                        nhex += 1;
                    }
                    if nhex == 0 {
                        return Err(invalid(t));
                    }
                    return Ok((r, t));
                }
                // Two hex digits.
                let x = unhex(c);
                let (c, rest) = next_rune(t);
                t = rest;
                let y = unhex(c);
                if x < 0 || y < 0 {
                    return Err(invalid(t));
                }
                Ok((x * 16 + y, t))
            }
            // No \b: in a class Go reads neither the word boundary nor a backspace.
            'a' => Ok((7, t)),
            'f' => Ok((12, t)),
            'n' => Ok((10, t)),
            'r' => Ok((13, t)),
            't' => Ok((9, t)),
            'v' => Ok((11, t)),
            // Escaped punctuation is itself (\_ included).
            _ if c < 0x80 && !ch.is_ascii_alphanumeric() => Ok((c, t)),
            _ => Err(invalid(t)),
        }
    }
}
