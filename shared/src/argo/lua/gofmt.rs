//! Go's `fmt` formatting primitives (Go 1.26 `fmt/format.go`: padding, integers, floats,
//! strings, quoting) and the `strconv` and `unicode/utf8` functions they use (`AppendFloat`,
//! `Quote`, `CanBackquote`, `IsPrint`, `DecodeRune`), over byte strings as Go's strings are:
//! what [`super::fmtlib`]'s `string.format` prints each verb with.
//!
//! Widths and precisions count runes as Go decodes them (an invalid byte is one rune); floats
//! are correctly rounded, ties to even, as strconv rounds them; `IsPrint` takes its categories
//! (letters, marks, numbers, punctuation, symbols) from the `regex` crate's Unicode tables.

/// The flags, width and precision of one verb (Go `fmt.fmtFlags`, `wid`, `prec`).
#[derive(Clone, Copy, Default)]
pub(super) struct Flags {
    pub(super) wid: usize,
    pub(super) prec: usize,
    pub(super) wid_present: bool,
    pub(super) prec_present: bool,
    pub(super) minus: bool,
    pub(super) plus: bool,
    pub(super) sharp: bool,
    pub(super) space: bool,
    pub(super) zero: bool,
    pub(super) plus_v: bool,
    pub(super) sharp_v: bool,
}

/// Go's `pp` and `fmt` for one `Sprintf`.
pub(super) struct Printer {
    pub(super) buf: Vec<u8>,
    pub(super) f: Flags,
}

impl Printer {
    /// Go `fmt.writePadding`: zeros only to the left.
    pub(super) fn write_padding(&mut self, n: isize) {
        if n > 0 {
            let byte = if self.f.zero && !self.f.minus {
                b'0'
            } else {
                b' '
            };
            self.buf.resize(self.buf.len() + n as usize, byte);
        }
    }

    /// Go `fmt.pad`/`padString`: the width counts runes.
    pub(super) fn pad(&mut self, b: &[u8]) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.extend_from_slice(b);
            return;
        }
        let width = self.f.wid as isize - rune_count(b) as isize;
        if self.f.minus {
            self.buf.extend_from_slice(b);
            self.write_padding(width);
        } else {
            self.write_padding(width);
            self.buf.extend_from_slice(b);
        }
    }

    /// `pad` with the zero flag off.
    pub(super) fn pad_spaces(&mut self, b: &[u8]) {
        let zero = self.f.zero;
        self.f.zero = false;
        self.pad(b);
        self.f.zero = zero;
    }

    pub(super) fn fmt_boolean(&mut self, v: bool) {
        self.pad(if v { b"true" } else { b"false" });
    }

    /// Go `fmt.truncate`: at most `prec` runes.
    pub(super) fn truncate<'s>(&self, s: &'s [u8]) -> &'s [u8] {
        if self.f.prec_present {
            let (mut n, mut i) = (self.f.prec, 0);
            while i < s.len() {
                if n == 0 {
                    return &s[..i];
                }
                n -= 1;
                i += decode_rune(&s[i..]).1;
            }
        }
        s
    }

    pub(super) fn fmt_s(&mut self, s: &[u8]) {
        let s = self.truncate(s);
        self.pad(s);
    }

    /// Go `fmt.fmtSbx`: two hex digits a byte, `0x` with `#`, spaced with ` `.
    pub(super) fn fmt_sx(&mut self, s: &[u8], upper: bool) {
        let digits: &[u8; 17] = if upper {
            b"0123456789ABCDEFX"
        } else {
            b"0123456789abcdefx"
        };
        let mut length = s.len();
        if self.f.prec_present && self.f.prec < length {
            length = self.f.prec;
        }
        let mut width = 2 * length;
        if width == 0 {
            if self.f.wid_present {
                self.write_padding(self.f.wid as isize);
            }
            return;
        }
        if self.f.space {
            if self.f.sharp {
                width *= 2;
            }
            width += length - 1;
        } else if self.f.sharp {
            width += 2;
        }
        if self.f.wid_present && self.f.wid > width && !self.f.minus {
            self.write_padding((self.f.wid - width) as isize);
        }
        if self.f.sharp {
            self.buf.extend_from_slice(&[b'0', digits[16]]);
        }
        for (i, &c) in s[..length].iter().enumerate() {
            if self.f.space && i > 0 {
                self.buf.push(b' ');
                if self.f.sharp {
                    self.buf.extend_from_slice(&[b'0', digits[16]]);
                }
            }
            self.buf
                .extend_from_slice(&[digits[(c >> 4) as usize], digits[(c & 15) as usize]]);
        }
        if self.f.wid_present && self.f.wid > width && self.f.minus {
            self.write_padding((self.f.wid - width) as isize);
        }
    }

    /// Go `fmt.fmtQ`.
    pub(super) fn fmt_q(&mut self, s: &[u8]) {
        let s = self.truncate(s);
        if self.f.sharp && can_backquote(s) {
            let mut q = Vec::with_capacity(s.len() + 2);
            q.push(b'`');
            q.extend_from_slice(s);
            q.push(b'`');
            return self.pad(&q);
        }
        let q = quote(s, self.f.plus);
        self.pad(&q);
    }

    /// Go `fmt.fmtC`: the code point as UTF-8, U+FFFD when invalid.
    pub(super) fn fmt_c(&mut self, c: u64) {
        let r = u32::try_from(c)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or('\u{FFFD}');
        let mut b = [0; 4];
        self.pad(r.encode_utf8(&mut b).as_bytes());
    }

    /// Go `fmt.fmtUnicode`: `U+0041`, with `#` `U+0041 'A'`.
    pub(super) fn fmt_unicode(&mut self, u: u64) {
        let prec = if self.f.prec_present && self.f.prec > 4 {
            self.f.prec
        } else {
            4
        };
        let mut s = format!("U+{u:0prec$X}").into_bytes();
        if self.f.sharp && u <= 0x10FFFF && is_print(u as u32) {
            if let Some(c) = char::from_u32(u as u32) {
                s.extend_from_slice(format!(" '{c}'").as_bytes());
            }
        }
        self.pad_spaces(&s);
    }

    /// Go `fmt.fmtInteger`.
    pub(super) fn fmt_integer(
        &mut self,
        mut u: u64,
        base: u64,
        signed: bool,
        verb: char,
        upper: bool,
    ) {
        let digits: &[u8; 17] = if upper {
            b"0123456789ABCDEFX"
        } else {
            b"0123456789abcdefx"
        };
        let negative = signed && (u as i64) < 0;
        if negative {
            u = u.wrapping_neg();
        }
        let f = self.f;
        let mut prec: isize = 0;
        if f.prec_present {
            prec = f.prec as isize;
            if prec == 0 && u == 0 {
                let zero = self.f.zero;
                self.f.zero = false;
                self.write_padding(f.wid as isize);
                self.f.zero = zero;
                return;
            }
        } else if f.zero && !f.minus && f.wid_present {
            prec = f.wid as isize;
            if negative || f.plus || f.space {
                prec -= 1;
            }
        }
        let mut rev: Vec<u8> = Vec::with_capacity(24);
        loop {
            rev.push(digits[(u % base) as usize]);
            u /= base;
            if u == 0 {
                break;
            }
        }
        while (rev.len() as isize) < prec {
            rev.push(b'0');
        }
        if f.sharp {
            match base {
                2 => rev.extend_from_slice(b"b0"),
                8 if rev.last() != Some(&b'0') => rev.push(b'0'),
                16 => rev.extend_from_slice(&[digits[16], b'0']),
                _ => {}
            }
        }
        if verb == 'O' {
            rev.extend_from_slice(b"o0");
        }
        if negative {
            rev.push(b'-');
        } else if f.plus {
            rev.push(b'+');
        } else if f.space {
            rev.push(b' ');
        }
        rev.reverse();
        self.pad_spaces(&rev);
    }

    /// Go `fmt.fmtFloat` (64 bits): the sign, `+Inf`/`NaN` without zero padding, `#` keeping
    /// the point and trailing zeros, zero padding after the sign.
    pub(super) fn fmt_float(&mut self, v: f64, verb: char, prec: i32) {
        let f = self.f;
        let prec = if f.prec_present {
            f.prec.min(i32::MAX as usize) as i32
        } else {
            prec
        };
        let verb_byte = verb as u8;
        let mut num = append_float(v, verb_byte, prec);
        if num[0] != b'-' && num[0] != b'+' {
            num.insert(0, b'+');
        }
        if f.space && num[0] == b'+' && !f.plus {
            num[0] = b' ';
        }
        if num[1] == b'I' || num[1] == b'N' {
            if num[1] == b'N' && !f.space && !f.plus {
                num.remove(0);
            }
            return self.pad_spaces(&num);
        }
        if f.sharp {
            let mut digits: i64 = match verb {
                'v' | 'g' | 'G' => {
                    if prec == -1 {
                        6
                    } else {
                        prec as i64
                    }
                }
                _ => 0,
            };
            let mut tail = Vec::new();
            let mut has_point = false;
            let mut saw_nonzero = false;
            let mut i = 1;
            while i < num.len() {
                match num[i] {
                    b'.' => has_point = true,
                    b'e' | b'E' => {
                        tail = num.split_off(i);
                        break;
                    }
                    c => {
                        if c != b'0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                    }
                }
                i += 1;
            }
            if !has_point {
                if num.len() == 2 && num[1] == b'0' {
                    digits -= 1;
                }
                num.push(b'.');
            }
            while digits > 0 {
                num.push(b'0');
                digits -= 1;
            }
            num.extend_from_slice(&tail);
        }
        if f.plus || num[0] != b'+' {
            if f.zero && !f.minus && f.wid_present && f.wid > num.len() {
                self.buf.push(num[0]);
                self.write_padding((f.wid - num.len()) as isize);
                self.buf.extend_from_slice(&num[1..]);
                return;
            }
            return self.pad(&num);
        }
        self.pad(&num[1..]);
    }
}

/// Go `strconv.AppendFloat(v, fmt, prec, 64)` for `e`, `E`, `f`, `g`, `G`: correctly rounded
/// (ties to even) decimal digits, the shortest that read back as `v` when `prec` is negative.
fn append_float(v: f64, fmt: u8, prec: i32) -> Vec<u8> {
    if v.is_nan() {
        return b"NaN".to_vec();
    }
    if v.is_infinite() {
        return if v < 0.0 {
            b"-Inf".to_vec()
        } else {
            b"+Inf".to_vec()
        };
    }
    let neg = v.is_sign_negative();
    let a = v.abs();
    let mut out = Vec::new();
    if neg {
        out.push(b'-');
    }
    let shortest = prec < 0;
    if fmt == b'f' && !shortest {
        // Digits after the point, correctly rounded: what strconv's fmtF prints.
        out.extend_from_slice(format!("{a:.*}", prec as usize).as_bytes());
        return out;
    }
    // The decimal digits d (no leading zero; none for zero) and the point position dp.
    let (mut d, dp, prec) = if a == 0.0 {
        (Vec::new(), 0i64, prec)
    } else if shortest {
        let (d, dp) = digits_of(&format!("{a:e}"));
        let p = match fmt {
            b'e' | b'E' => d.len() as i64 - 1,
            b'f' => (d.len() as i64 - dp).max(0),
            _ => d.len() as i64,
        };
        (d, dp, p as i32)
    } else {
        let sig = match fmt {
            b'e' | b'E' => prec as usize + 1,
            _ => prec.max(1) as usize,
        };
        let (d, dp) = digits_of(&format!("{a:.*e}", sig - 1));
        (
            d,
            dp,
            if matches!(fmt, b'g' | b'G') {
                prec.max(1)
            } else {
                prec
            },
        )
    };
    while d.last() == Some(&b'0') {
        d.pop();
    }
    let nd = d.len() as i64;
    match fmt {
        b'e' | b'E' => fmt_e(&mut out, &d, dp, prec as i64, fmt),
        b'f' => fmt_f(&mut out, &d, dp, prec as i64),
        _ => {
            let mut eprec = prec as i64;
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            if shortest {
                eprec = 6;
            }
            let exp = dp - 1;
            let mut p = prec as i64;
            if exp < -4 || exp >= eprec {
                if p > nd {
                    p = nd;
                }
                fmt_e(&mut out, &d, dp, p - 1, fmt + b'e' - b'g');
            } else {
                if p > dp {
                    p = nd;
                }
                fmt_f(&mut out, &d, dp, (p - dp).max(0));
            }
        }
    }
    out
}

/// The digits and decimal point position of Rust's `{:e}` text (`1.25e-3` → `125`, -2).
fn digits_of(s: &str) -> (Vec<u8>, i64) {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let d: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    (d, exp.parse::<i64>().unwrap_or(0) + 1)
}

/// strconv `fmtE`: `d.ddde±dd`.
fn fmt_e(out: &mut Vec<u8>, d: &[u8], dp: i64, prec: i64, fmt: u8) {
    out.push(d.first().copied().unwrap_or(b'0'));
    if prec > 0 {
        out.push(b'.');
        let m = (d.len() as i64).min(prec + 1) as usize;
        if m > 1 {
            out.extend_from_slice(&d[1..m]);
        }
        for _ in m.max(1) as i64..=prec {
            out.push(b'0');
        }
    }
    out.push(fmt);
    let mut exp = if d.is_empty() { 0 } else { dp - 1 };
    out.push(if exp < 0 { b'-' } else { b'+' });
    exp = exp.abs();
    if exp < 10 {
        out.push(b'0');
    }
    out.extend_from_slice(exp.to_string().as_bytes());
}

/// strconv `fmtF`: the integer digits, then `prec` fraction digits.
fn fmt_f(out: &mut Vec<u8>, d: &[u8], dp: i64, prec: i64) {
    if dp > 0 {
        let m = (d.len() as i64).min(dp) as usize;
        out.extend_from_slice(&d[..m]);
        for _ in m as i64..dp {
            out.push(b'0');
        }
    } else {
        out.push(b'0');
    }
    if prec > 0 {
        out.push(b'.');
        for i in 0..prec {
            let j = dp + i;
            out.push(if j >= 0 && (j as usize) < d.len() {
                d[j as usize]
            } else {
                b'0'
            });
        }
    }
}

/// Go `utf8.DecodeRune`: the rune, its width, and whether it is valid (invalid: width 1).
pub(super) fn decode_rune(s: &[u8]) -> (u32, usize, bool) {
    let Some(&b) = s.first() else {
        return (0xFFFD, 0, false);
    };
    let n = match b {
        0x00..=0x7F => return (b as u32, 1, true),
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (0xFFFD, 1, false),
    };
    match s.get(..n).and_then(|c| std::str::from_utf8(c).ok()) {
        Some(c) => (c.chars().next().map_or(0xFFFD, |c| c as u32), n, true),
        None => (0xFFFD, 1, false),
    }
}

/// Go `utf8.RuneCount`.
pub(super) fn rune_count(mut s: &[u8]) -> usize {
    let mut n = 0;
    while !s.is_empty() {
        s = &s[decode_rune(s).1..];
        n += 1;
    }
    n
}

/// Go `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
pub(super) fn is_print(r: u32) -> bool {
    if r <= 0xFF {
        return (0x20..=0x7E).contains(&r) || ((0xA1..=0xFF).contains(&r) && r != 0xAD);
    }
    static PRINTABLE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = PRINTABLE
        .get_or_init(|| regex::Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").expect("valid"));
    char::from_u32(r).is_some_and(|c| re.is_match(c.encode_utf8(&mut [0; 4])))
}

/// Go `strconv.Quote` (`AppendQuoteToASCII` when `ascii`).
pub(super) fn quote(mut s: &[u8], ascii: bool) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = vec![b'"'];
    while !s.is_empty() {
        let (r, width, valid) = decode_rune(s);
        if !valid {
            out.extend_from_slice(&[
                b'\\',
                b'x',
                HEX[(s[0] >> 4) as usize],
                HEX[(s[0] & 15) as usize],
            ]);
            s = &s[width..];
            continue;
        }
        s = &s[width..];
        if r == '"' as u32 || r == '\\' as u32 {
            out.extend_from_slice(&[b'\\', r as u8]);
            continue;
        }
        if if ascii {
            r < 0x80 && is_print(r)
        } else {
            is_print(r)
        } {
            let c = char::from_u32(r).unwrap_or('\u{FFFD}');
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            continue;
        }
        let esc: &[u8] = match r {
            0x07 => b"\\a",
            0x08 => b"\\b",
            0x0C => b"\\f",
            0x0A => b"\\n",
            0x0D => b"\\r",
            0x09 => b"\\t",
            0x0B => b"\\v",
            _ => b"",
        };
        if !esc.is_empty() {
            out.extend_from_slice(esc);
        } else if r < 0x20 || r == 0x7F {
            out.extend_from_slice(&[b'\\', b'x', HEX[(r >> 4) as usize], HEX[(r & 15) as usize]]);
        } else if r < 0x10000 {
            out.extend_from_slice(format!("\\u{r:04x}").as_bytes());
        } else {
            out.extend_from_slice(format!("\\U{r:08x}").as_bytes());
        }
    }
    out.push(b'"');
    out
}

/// Go `strconv.CanBackquote`.
pub(super) fn can_backquote(mut s: &[u8]) -> bool {
    while !s.is_empty() {
        let (r, width, valid) = decode_rune(s);
        s = &s[width..];
        if width > 1 {
            if r == 0xFEFF {
                return false;
            }
            continue;
        }
        if !valid || (r < 0x20 && r != 0x09) || r == 0x60 || r == 0x7F {
            return false;
        }
    }
    true
}
