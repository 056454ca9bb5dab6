//! Which plain scalars go-yaml v2 reads as something other than a string (sigs.k8s.io/yaml
//! `goyaml.v2/resolve.go`: `resolve`, `parseTimestamp`; `goyaml.v2/encode.go`: `isBase60Float`),
//! and so which strings its encoder quotes. A string reads as a string unless its first byte
//! hints otherwise (`resolveTable`: a sign, a digit, one of `yYnNtTfFoO~`, a dot) and it is one
//! of the words of `resolveMap` (`yes`, `Off`, `~`, `null`, `.inf`, ...), a float Go's
//! `strconv.ParseFloat` accepts, an integer `strconv.ParseInt`/`ParseUint` (base 0, `_` removed)
//! accepts, a YAML-style float, a `0b`/`-0b` binary number, or a timestamp of the four layouts
//! `time.Parse` accepts there. The empty string reads as null.

/// The words go-yaml v2 reads as booleans, null or special floats (`resolveMap`; `<<` is there
/// too, but no byte hints at it, so it is never looked up).
const WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no", "No",
    "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null", "NULL", ".nan",
    ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
];

/// Whether go-yaml v2 reads `s`, written plain, as a string: what its encoder asks before it
/// writes a string plain (`stringv`: `resolve("", s)` is `!!str` and `s` is no base-60 float).
pub(super) fn plain_is_string(s: &str) -> bool {
    resolves_to_string(s) && !is_base60_float(s)
}

fn resolves_to_string(s: &str) -> bool {
    let hint = match s.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => return true,
    };
    if WORDS.contains(&s) {
        return false;
    }
    match hint {
        b'.' => !parse_float_ok(s),
        b'D' | b'S' => !number_or_timestamp(s),
        _ => true,
    }
}

/// The integers, floats and timestamps of the `'D'` and `'S'` hints, in `resolve`'s order.
fn number_or_timestamp(s: &str) -> bool {
    if is_timestamp(s) {
        return true;
    }
    let plain: String = s.chars().filter(|&c| c != '_').collect();
    if parse_int(&plain, 0).is_some() || parse_uint(&plain, 0).is_some() {
        return true;
    }
    if yaml_style_float(&plain) && parse_float_ok(&plain) {
        return true;
    }
    if let Some(bits) = plain.strip_prefix("0b") {
        return parse_int(bits, 2).is_some() || parse_uint(bits, 2).is_some();
    }
    if let Some(bits) = plain.strip_prefix("-0b") {
        return parse_int(&format!("-{bits}"), 2).is_some();
    }
    false
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` (`yamlStyleFloat`).
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat(s, 64)` succeeds on a decimal float (what `resolve` hands it: a
/// string starting with a dot, or one `yamlStyleFloat` matched): Go's float syntax with `_`
/// between digits (`underscoreOK`), and no overflow to infinity (`ErrRange`).
fn parse_float_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let (mut dot, mut digits, mut underscores) = (false, false, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'_' => underscores = true,
            b'.' if !dot => dot = true,
            b'0'..=b'9' => digits = true,
            _ => break,
        }
        i += 1;
    }
    if !digits {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while let Some(&c) = b.get(i) {
            match c {
                b'_' => underscores = true,
                b'0'..=b'9' => {}
                _ => break,
            }
            i += 1;
        }
    }
    if i != b.len() || (underscores && !underscore_ok(s)) {
        return false;
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    clean.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Go's `underscoreOK`: each `_` between digits, or between a base prefix and a digit.
fn underscore_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let b = match b.first() {
        Some(b'+' | b'-') => &b[1..],
        _ => b,
    };
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else if saw == b'_' {
            return false;
        } else {
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// Go's `strconv.ParseUint(s, base, 64)` for the bases `resolve` uses: 0 (a `0b`, `0o` or `0x`
/// prefix, or a leading `0` for octal; else decimal) or 2. `_` never reaches it.
fn parse_uint(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (base, digits) = if base == 0 {
        let b = s.as_bytes();
        if b[0] == b'0' {
            match b.get(1).map(u8::to_ascii_lowercase) {
                Some(b'b') if b.len() >= 3 => (2, &s[2..]),
                Some(b'o') if b.len() >= 3 => (8, &s[2..]),
                Some(b'x') if b.len() >= 3 => (16, &s[2..]),
                _ => (8, &s[1..]),
            }
        } else {
            (10, s)
        }
    } else {
        (base, s)
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(36)?;
        if d >= base {
            return None;
        }
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// Go's `strconv.ParseInt(s, base, 64)`: an optional sign, then [`parse_uint`], in int64's range.
fn parse_int(s: &str, base: u32) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let n = parse_uint(rest, base)?;
    if neg {
        match n.cmp(&(1u64 << 63)) {
            std::cmp::Ordering::Less => Some(-(n as i64)),
            std::cmp::Ordering::Equal => Some(i64::MIN),
            std::cmp::Ordering::Greater => None,
        }
    } else {
        i64::try_from(n).ok()
    }
}

/// `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`, which go-yaml v2 still
/// quotes on the way out.
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    if !matches!(b.first(), Some(b'+' | b'-' | b'0'..=b'9')) || !s.contains(':') {
        return false;
    }
    let mut i = usize::from(matches!(b[0], b'+' | b'-'));
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // `[0-5]?[0-9]`: one digit, or two with the first at most 5.
        match (b.get(i), b.get(i + 1)) {
            (Some(b'0'..=b'5'), Some(b'0'..=b'9')) => i += 2,
            (Some(b'0'..=b'9'), _) => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// `parseTimestamp`: four digits and a dash, then one of the layouts `2006-1-2T15:4:5.999999999Z07:00`,
/// the same with a lower-case `t`, `2006-1-2 15:4:5.999999999` and `2006-1-2`, as Go's
/// `time.Parse` reads them.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    [Layout::UpperT, Layout::LowerT, Layout::Space, Layout::Date]
        .into_iter()
        .any(|l| parse_layout(b, l))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    UpperT,
    LowerT,
    Space,
    Date,
}

/// `time.Parse`'s `getnum(value, false)`: one digit, or two.
fn getnum(v: &[u8], at: &mut usize) -> Option<u32> {
    let d0 = *v.get(*at).filter(|c| c.is_ascii_digit())?;
    *at += 1;
    match v.get(*at).filter(|c| c.is_ascii_digit()) {
        Some(d1) => {
            *at += 1;
            Some(u32::from(d0 - b'0') * 10 + u32::from(d1 - b'0'))
        }
        None => Some(u32::from(d0 - b'0')),
    }
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// One layout of [`is_timestamp`] on `v`, field by field as `time.Parse` reads them: a space in
/// the layout matches any run of spaces (`skip`), a fractional second may follow the seconds
/// after a dot or a comma, the zone is `Z` or `±hh:mm`, and the day must exist in its month.
fn parse_layout(v: &[u8], layout: Layout) -> bool {
    let year: u32 = std::str::from_utf8(&v[..4])
        .ok()
        .and_then(|y| y.parse().ok())
        .unwrap_or(0);
    let mut at = 5;
    let Some(month) = getnum(v, &mut at) else {
        return false;
    };
    if month == 0 || month > 12 || v.get(at) != Some(&b'-') {
        return false;
    }
    at += 1;
    let Some(day) = getnum(v, &mut at) else {
        return false;
    };
    if layout != Layout::Date {
        match layout {
            Layout::UpperT | Layout::LowerT => {
                let t = if layout == Layout::UpperT { b'T' } else { b't' };
                if v.get(at) != Some(&t) {
                    return false;
                }
                at += 1;
            }
            _ => {
                // A space of the layout: the value's spaces, if any, are skipped; something
                // else there is refused.
                if at < v.len() && v[at] != b' ' {
                    return false;
                }
                while v.get(at) == Some(&b' ') {
                    at += 1;
                }
            }
        }
        let Some(hour) = getnum(v, &mut at) else {
            return false;
        };
        if hour >= 24 || v.get(at) != Some(&b':') {
            return false;
        }
        at += 1;
        let Some(minute) = getnum(v, &mut at) else {
            return false;
        };
        if minute >= 60 || v.get(at) != Some(&b':') {
            return false;
        }
        at += 1;
        let Some(second) = getnum(v, &mut at) else {
            return false;
        };
        if second >= 60 {
            return false;
        }
        if matches!(v.get(at), Some(b'.' | b',')) && v.get(at + 1).is_some_and(u8::is_ascii_digit) {
            at += 1;
            while v.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
        }
        if layout != Layout::Space {
            match v.get(at) {
                Some(b'Z') => at += 1,
                _ => {
                    let zone = &v[at.min(v.len())..];
                    if zone.len() < 6
                        || zone[3] != b':'
                        || !matches!(zone[0], b'+' | b'-')
                        || !zone[1..3].iter().all(u8::is_ascii_digit)
                        || !zone[4..6].iter().all(u8::is_ascii_digit)
                    {
                        return false;
                    }
                    let hh = u32::from(zone[1] - b'0') * 10 + u32::from(zone[2] - b'0');
                    let mm = u32::from(zone[4] - b'0') * 10 + u32::from(zone[5] - b'0');
                    if hh > 24 || mm > 60 {
                        return false;
                    }
                    at += 6;
                }
            }
        }
    }
    at == v.len() && day >= 1 && day <= days_in(month, year)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `resolve` makes of some strings, by its rules (the oracle's corpus covers the rest).
    #[test]
    fn plain_words_that_are_not_strings() {
        for s in [
            "",
            "~",
            "null",
            "yes",
            "Off",
            "y",
            ".inf",
            "-.Inf",
            ".5",
            "1",
            "-1",
            "0x1F",
            "0o17",
            "017",
            "1_000",
            "1.5",
            "1e3",
            "09",
            "0b101",
            "-0b11",
            "2026-11-29",
            "2026-11-29T12:00:00Z",
            "2001-12-14 21:59:43.10",
            "1:20",
            "190:20:30.15",
            "18446744073709551615",
            "18446744073709551616",
        ] {
            assert!(!plain_is_string(s), "{s:?} reads as a string");
        }
        for s in [
            "a",
            "<<",
            "nil",
            "yEs",
            "0x",
            "1e400",
            "1.2.3",
            "._5",
            "2026-13-01",
            "2026-02-30",
            "2026-11-29T25:00:00Z",
            "1:60",
            "0b2",
            "+",
            ".iNf",
        ] {
            assert!(plain_is_string(s), "{s:?} does not read as a string");
        }
    }
}
