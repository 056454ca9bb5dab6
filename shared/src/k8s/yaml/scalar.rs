//! Scalars of block YAML read on one line and typed as `sigs.k8s.io/yaml` (go-yaml v2) types
//! them, for [`super::block`]: each function returns None for any spelling whose reading it does
//! not model, and the document parser then reads the whole document.
//!
//! * Plain scalars (YAML 1.2 §7.3.3) are typed by go-yaml v2's YAML 1.1 resolution
//!   (`gopkg.in/yaml.v2` `resolve.go`: `resolveMapList` and the `'D'`/`'S'` hint branch):
//!   `~`/`null`/`Null`/`NULL` are null; `y`/`yes`/`true`/`on` and `n`/`no`/`false`/`off` in
//!   lower, capitalised or upper case are booleans; decimal integers (`strconv.ParseInt`, an
//!   optional sign, no leading zero) within int64 are integers; `0644` (a leading zero, octal
//!   digits) is YAML 1.1's octal integer; a decimal with a fraction or an exponent
//!   (`yamlStyleFloat`) is a float64. Timestamps stay text, as go-yaml v2 keeps them when it
//!   decodes into `interface{}` (`decode.go`, "for backward compatibility reasons").
//!   Other text led by a digit or a sign (`6c767bd46c`, `1.0.0`, `128Mi`, `2026-11-29`) is
//!   text when neither an integer reader (which takes only digits and underscores after a
//!   first digit other than `0`; after a `0`, the digits of its radix prefix `0x`/`0o`/`0b`,
//!   or of YAML 1.1's octal, and underscores) nor a float reader takes it (`005e82a17`).
//!   Declined: other spellings of those words (`yEs`, `nULL`), any `0`-led integer spelling
//!   other than `0` and an octal (`0x1F`, `0X1F`, `0o17`, `0b1`, `0_7`), digits with underscores
//!   (`1_000`), `.5`, `.inf`, `.nan` (and any text of a dot before a digit or `i`/`n`), `-.5`,
//!   `1.`, integers beyond int64, signed octals, infinite floats, and anything else Rust's float
//!   parser reads.
//! * Double-quoted scalars (§7.3.1) with the escapes of §5.7; single-quoted scalars (§7.3.2)
//!   with `''`. Both are always text. Declined: a scalar that does not close on its line, a
//!   `\u` escape naming half of a surrogate pair, an unknown escape.
//! * Mapping keys: quoted keys, and plain keys that both go-yaml v2 and the document parser read
//!   as their text (the plain scalars typed as text above, without a flow indicator). A plain
//!   `<<` (a YAML 1.1 merge key) is never accepted.

use serde_json::{Number, Value};

/// The longest mapping key accepted, in bytes: YAML 1.2 §7.4 (`ns-s-implicit-yaml-key`) bounds
/// an implicit key to 1024 characters; the document parser's lookahead for it is as long.
pub(super) const MAX_KEY_BYTES: usize = 512;

/// How a plain scalar reads: as its own text, or as a typed value.
enum Plain {
    Text,
    Typed(Value),
}

/// Whether `s` may start a plain scalar in the block context (§7.3.3 `ns-plain-first`): not
/// an indicator, except `-` before a non-space (`-1`, `--flag`).
pub(super) fn starts_plain(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        None => false,
        Some(b'-') => b.get(1).is_some_and(|&c| c != b' '),
        Some(c) => !b"?:,[]{}#&*!|>'\"%@`".contains(c),
    }
}

/// The value of a plain scalar in value position (trimmed, non-empty, [`starts_plain`]), or
/// None when its typing is not modelled.
pub(super) fn plain_value(s: &str) -> Option<Value> {
    match resolve(s)? {
        Plain::Text => Some(Value::String(s.to_owned())),
        Plain::Typed(v) => Some(v),
    }
}

/// The text of a plain mapping key, or None when the key may read as something else than its
/// text (a null, a boolean, a number, a merge key) to one of the two readers, or holds a flow
/// indicator.
pub(super) fn plain_key(s: &str) -> Option<&str> {
    if s.len() > MAX_KEY_BYTES
        || s.ends_with([' ', ':'])
        || s == "<<"
        || !starts_plain(s)
        || s.bytes()
            .any(|c| matches!(c, b'[' | b']' | b'{' | b'}' | b','))
    {
        return None;
    }
    matches!(resolve(s)?, Plain::Text).then_some(s)
}

fn resolve(s: &str) -> Option<Plain> {
    match s.as_bytes().first()? {
        b'0'..=b'9' | b'-' | b'+' | b'.' => numeric(s),
        _ => word(s),
    }
}

/// A word: null, a boolean, or text.
fn word(s: &str) -> Option<Plain> {
    let v = match s {
        "~" | "null" | "Null" | "NULL" => Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Value::Bool(false)
        }
        _ if is_reserved_word(s) => return None,
        _ => return Some(Plain::Text),
    };
    Some(Plain::Typed(v))
}

/// A null or boolean word in any letter case (`nULL`, `yEs`): go-yaml v2 reads only the
/// spellings of its table, the document parser any case; such a scalar is declined.
fn is_reserved_word(s: &str) -> bool {
    s.len() <= 5
        && ["null", "y", "yes", "true", "on", "n", "no", "false", "off"]
            .iter()
            .any(|w| s.eq_ignore_ascii_case(w))
}

/// A scalar that starts with a digit, a sign or a dot: an integer, a float, or text that no
/// number reader takes.
fn numeric(s: &str) -> Option<Plain> {
    let b = s.as_bytes();
    let (negative, body) = match b[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let digits = body.as_bytes();
    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        if digits[0] == b'0' && digits.len() > 1 {
            // YAML 1.1's `0644`: unsigned, octal digits only.
            if b[0] != b'0' || !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                return None;
            }
            let n = u64::from_str_radix(body, 8).ok()?;
            return Some(Plain::Typed(Value::from(n)));
        }
        let n: i64 = body.parse().ok()?;
        return Some(Plain::Typed(Value::from(if negative { -n } else { n })));
    }
    if is_decimal_float(digits) {
        let f: f64 = s.parse().ok()?;
        let n = Number::from_f64(f).filter(|_| f.is_finite())?;
        return Some(Plain::Typed(Value::Number(n)));
    }
    match digits.first() {
        // `.5` and `.inf`/`.nan` are numbers; `./path` and `.` are text to both readers (a
        // float needs a digit after a leading dot).
        Some(b'.') => {
            let second = digits.get(1);
            if b[0] != b'.' || second.is_some_and(|c| c.is_ascii_digit() || b"iInN".contains(c)) {
                return None;
            }
        }
        // What an integer reader could still take: a radix prefix or YAML 1.1's octal (`0x1F`,
        // `0o17`, `0b1`, `0_7`), digits with underscores (`1_000`).
        Some(b'0') => {
            let (allowed, tail): (&[u8], &[u8]) = match digits[1..].split_first() {
                Some((b'x' | b'X', tail)) => (b"0123456789abcdefABCDEF_", tail),
                Some((b'o' | b'O', tail)) => (b"01234567_", tail),
                Some((b'b' | b'B', tail)) => (b"01_", tail),
                _ => (b"01234567_", &digits[1..]),
            };
            if tail.iter().all(|c| allowed.contains(c)) {
                return None;
            }
        }
        _ if digits.iter().all(|c| c.is_ascii_digit() || *c == b'_') => return None,
        _ => {}
    }
    // What a float reader takes (`1.`, `1e5` spelled otherwise, `+inf`, `1e999`).
    if s.parse::<f64>().is_ok() {
        return None;
    }
    Some(Plain::Text)
}

/// `(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?` with a fraction or an exponent (a subset of
/// go-yaml v2's `yamlStyleFloat`).
fn is_decimal_float(b: &[u8]) -> bool {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(0);
    if int == 0 || (b[0] == b'0' && int > 1) {
        return false;
    }
    let mut i = int;
    let mut fraction_or_exponent = false;
    if b.get(i) == Some(&b'.') {
        let frac = digits(i + 1);
        if frac == 0 {
            return false;
        }
        i += 1 + frac;
        fraction_or_exponent = true;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(i);
        if exp == 0 {
            return false;
        }
        i += exp;
        fraction_or_exponent = true;
    }
    fraction_or_exponent && i == b.len()
}

/// A double-quoted scalar at the start of `s` (which starts with `"`): its text and the bytes
/// it spans, closing quote included. None: it does not close on this line, or an escape is
/// not one of YAML 1.2 §5.7's or names a surrogate.
pub(super) fn double_quoted(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let mut out = String::new();
    let (mut i, mut run) = (1, 1);
    loop {
        match *b.get(i)? {
            b'"' => {
                out.push_str(&s[run..i]);
                return Some((out, i + 1));
            }
            b'\\' => {
                out.push_str(&s[run..i]);
                let escape = *b.get(i + 1)?;
                let width = match escape {
                    b'x' => 2,
                    b'u' => 4,
                    b'U' => 8,
                    _ => 0,
                };
                let c = if width > 0 {
                    let hex = s.get(i + 2..i + 2 + width)?;
                    if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                        return None;
                    }
                    let code = u32::from_str_radix(hex, 16).ok()?;
                    if (0xD800..=0xDFFF).contains(&code) {
                        return None;
                    }
                    char::from_u32(code)?
                } else {
                    match escape {
                        b'0' => '\0',
                        b'a' => '\x07',
                        b'b' => '\x08',
                        b't' => '\t',
                        b'n' => '\n',
                        b'v' => '\x0b',
                        b'f' => '\x0c',
                        b'r' => '\r',
                        b'e' => '\x1b',
                        b' ' => ' ',
                        b'"' => '"',
                        b'/' => '/',
                        b'\\' => '\\',
                        b'N' => '\u{85}',
                        b'_' => '\u{a0}',
                        b'L' => '\u{2028}',
                        b'P' => '\u{2029}',
                        _ => return None,
                    }
                };
                out.push(c);
                i += 2 + width;
                run = i;
            }
            _ => i += 1,
        }
    }
}

/// A single-quoted scalar at the start of `s` (which starts with `'`): its text (`''` read as
/// `'`) and the bytes it spans. None: it does not close on this line.
pub(super) fn single_quoted(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let mut out = String::new();
    let (mut i, mut run) = (1, 1);
    loop {
        if *b.get(i)? == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                out.push_str(&s[run..=i]);
                i += 2;
                run = i;
                continue;
            }
            out.push_str(&s[run..i]);
            return Some((out, i + 1));
        }
        i += 1;
    }
}
