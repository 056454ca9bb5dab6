//! Small re-implementations of the Go library behaviour the built-in checks depend on: `%q`
//! quoting (`strconv.Quote`, from the Lua engine's Go formatting), `encoding/json` number and string encoding, `time.Parse` with the
//! RFC 3339 layout (used by `metav1.Time.UnmarshalJSON`), `resource.ParseQuantity`
//! (`k8s.io/apimachinery/pkg/api/resource/quantity.go`) and `base64.StdEncoding.Decode`.
//! Only validity and error texts matter here: no value is ever computed from a time or a quantity.

use serde_json::Value;

/// `fmt.Sprintf("%q", s)` (`strconv.Quote`), as the Lua engine's `string.format("%q")` writes it.
pub(super) fn quote(s: &str) -> String {
    String::from_utf8_lossy(&crate::argo::lua::go_quote(s.as_bytes())).into_owned()
}

/// How `encoding/json` marshals a float64: shortest representation, `%e`-style (with an explicit
/// exponent sign, `e-7` not `e-07`) below 1e-6 or from 1e21 on.
pub(super) fn json_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
            _ => s,
        }
    } else {
        format!("{f}")
    }
}

/// The JSON text `encoding/json` produces for an unstructured number.
pub(super) fn json_number(n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_f64()) {
        (Some(i), _) => i.to_string(),
        (None, Some(f)) => json_float(f),
        _ => n.to_string(),
    }
}

/// `json.Marshal` of a string (HTML-safe escaping, as `json.Marshal` does by default).
pub(super) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The word `encoding/json` uses for a JSON value in an `UnmarshalTypeError`.
pub(crate) fn json_word(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The `reflect.Kind` name of an unstructured value (whole numbers are int64, others float64).
pub(super) use crate::k8s::gofmt::go_kind as reflect_kind;

/// `time.Parse(time.RFC3339, value)` validity, with Go's `*time.ParseError` text on failure
/// ([`crate::k8s::time::parse_go_rfc3339`]).
pub(super) fn parse_rfc3339(value: &str) -> Result<(), String> {
    crate::k8s::time::parse_go_rfc3339(value).map(|_| ())
}

/// `resource.ErrFormatWrong`.
pub(super) const QTY_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QTY_NUMERIC: &str = "unable to parse numeric part of quantity";
const QTY_SUFFIX: &str = "unable to parse quantity's suffix";

/// `resource.ParseQuantity` validity: `parseQuantityString`, the suffix table, and the
/// numeric checks of the fast and the `inf.Dec` paths.
pub(super) fn parse_quantity(s: &str) -> Result<(), &'static str> {
    if s.is_empty() {
        return Err(QTY_FORMAT_WRONG);
    }
    if s == "0" {
        return Ok(());
    }
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    if b[0] == b'-' || b[0] == b'+' {
        pos += 1;
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    let (value, num, denom, suffix): (&[u8], &[u8], &[u8], &[u8]);
    if pos >= end {
        (value, num, denom, suffix) = (b"0", b"0", b"", b"");
    } else {
        let start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        let n = if pos == start {
            &b"0"[..]
        } else {
            &b[start..pos]
        };
        if pos >= end {
            (value, num, denom, suffix) = (b, n, b"", b"");
        } else {
            let mut d: &[u8] = b"";
            let mut done = false;
            if b[pos] == b'.' {
                pos += 1;
                let ds = pos;
                while pos < end && b[pos].is_ascii_digit() {
                    pos += 1;
                }
                d = &b[ds..pos];
                done = pos >= end;
            }
            if done {
                (value, num, denom, suffix) = (b, n, d, b"");
            } else {
                let v = &b[..pos];
                let suffix_start = pos;
                while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
                    pos += 1;
                }
                if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
                    pos += 1;
                }
                while pos < end && b[pos].is_ascii_digit() {
                    pos += 1;
                }
                if pos < end {
                    return Err(QTY_FORMAT_WRONG);
                }
                (value, num, denom, suffix) = (v, n, d, &b[suffix_start..]);
            }
        }
    }
    // quantitySuffixer.interpret
    #[derive(PartialEq)]
    enum Format {
        DecimalSi,
        BinarySi,
        DecimalExponent,
    }
    let (format, exponent): (Format, i32) = match suffix {
        b"" => (Format::DecimalSi, 0),
        b"n" => (Format::DecimalSi, -9),
        b"u" => (Format::DecimalSi, -6),
        b"m" => (Format::DecimalSi, -3),
        b"k" => (Format::DecimalSi, 3),
        b"M" => (Format::DecimalSi, 6),
        b"G" => (Format::DecimalSi, 9),
        b"T" => (Format::DecimalSi, 12),
        b"P" => (Format::DecimalSi, 15),
        b"E" => (Format::DecimalSi, 18),
        b"Ki" => (Format::BinarySi, 10),
        b"Mi" => (Format::BinarySi, 20),
        b"Gi" => (Format::BinarySi, 30),
        b"Ti" => (Format::BinarySi, 40),
        b"Pi" => (Format::BinarySi, 50),
        b"Ei" => (Format::BinarySi, 60),
        [b'e' | b'E', rest @ ..] if !rest.is_empty() => {
            match std::str::from_utf8(rest)
                .ok()
                .and_then(|r| r.parse::<i64>().ok())
            {
                Some(e) => (Format::DecimalExponent, e as i32),
                None => return Err(QTY_SUFFIX),
            }
        }
        _ => return Err(QTY_SUFFIX),
    };
    let (mut scale, precision) = match format {
        Format::BinarySi if exponent >= 0 && denom.is_empty() => (
            0,
            15 - num.len() as i32 - (exponent as f32 * 3.0 / 10.0) as i32 - 1,
        ),
        Format::BinarySi => (0, -1),
        _ => (exponent, 18 - (num.len() + denom.len()) as i32),
    };
    if precision >= 0 {
        scale -= denom.len() as i32;
        if scale >= -9 {
            // num+denom has at most 18 digits here: strconv.ParseInt cannot fail; an overflow of
            // the binary multiplication falls through to the inf.Dec path, as in Go.
            let shifted: String = num.iter().chain(denom).map(|&c| c as char).collect();
            let v: i64 = shifted.parse().map_err(|_| QTY_NUMERIC)?;
            let mantissa: i64 = if format == Format::BinarySi {
                1 << exponent
            } else {
                1
            };
            if v.checked_mul(mantissa).is_some() {
                return Ok(());
            }
        }
    }
    // inf.Dec.SetString(value) fails only when no digit is read.
    if value.iter().any(u8::is_ascii_digit) {
        Ok(())
    } else {
        Err(QTY_NUMERIC)
    }
}

/// `base64.StdEncoding.Decode` validity (padding required, `\r`/`\n` skipped), with Go's
/// `illegal base64 data at input byte N` text.
pub(super) fn check_base64(s: &str) -> Result<(), String> {
    let src = s.as_bytes();
    let err = |n: usize| Err(format!("illegal base64 data at input byte {n}"));
    let valid = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let nl = |c: u8| c == b'\n' || c == b'\r';
    let mut si = 0;
    while si < src.len() {
        // decodeQuantum
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(());
                }
                return err(si - j);
            }
            let c = src[si];
            si += 1;
            if valid(c) {
                j += 1;
                continue;
            }
            if nl(c) {
                continue;
            }
            if c != b'=' {
                return err(si - 1);
            }
            match j {
                0 | 1 => return err(si - 1),
                2 => {
                    while si < src.len() && nl(src[si]) {
                        si += 1;
                    }
                    if si == src.len() {
                        return err(src.len());
                    }
                    if src[si] != b'=' {
                        return err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && nl(src[si]) {
                si += 1;
            }
            if si < src.len() {
                return err(si);
            }
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected texts follow Go's strconv.Quote, encoding/json, time.Parse, resource.ParseQuantity
    // and encoding/base64 as read in their sources (go1.2x, apimachinery v0.36.1).

    #[test]
    fn quote_like_strconv() {
        assert_eq!(quote("web"), "\"web\"");
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(quote("é\u{1}\u{200b}"), "\"é\\x01\\u200b\"");
    }

    #[test]
    fn json_floats() {
        assert_eq!(json_float(1.5), "1.5");
        assert_eq!(json_float(2.0), "2");
        assert_eq!(json_float(1e21), "1e+21");
        assert_eq!(json_float(1.5e-7), "1.5e-7");
        assert_eq!(json_float(1e20), "100000000000000000000");
        assert_eq!(json_string("a<b\n"), "\"a\\u003cb\\n\"");
    }

    /// The typed conversion keeps Go's error text (k8s::time holds the parser and its table).
    #[test]
    fn rfc3339() {
        assert!(parse_rfc3339("2018-07-18T4:48:48Z").is_ok());
        assert_eq!(
            parse_rfc3339("2018-13-18T04:48:48Z").unwrap_err(),
            r#"parsing time "2018-13-18T04:48:48Z": month out of range"#
        );
    }

    #[test]
    fn quantities() {
        for ok in [
            "0", "1", "2Gi", "500m", "1.5", ".5", "1e3", "1E-2", "+1k", "1.", "Ki", ".",
        ] {
            assert_eq!(parse_quantity(ok), Ok(()), "{ok}");
        }
        assert_eq!(parse_quantity(""), Err(QTY_FORMAT_WRONG));
        assert_eq!(parse_quantity("abc"), Err(QTY_FORMAT_WRONG));
        assert_eq!(parse_quantity("1Gix"), Err(QTY_FORMAT_WRONG));
        assert_eq!(parse_quantity("1kK"), Err(QTY_SUFFIX));
        assert_eq!(parse_quantity("1e"), Err(QTY_SUFFIX));
        assert_eq!(parse_quantity("Ei"), Err(QTY_NUMERIC));
    }

    #[test]
    fn base64() {
        assert!(check_base64("aGVsbG8=").is_ok());
        assert!(check_base64("aGVs\nbG8=").is_ok());
        assert_eq!(
            check_base64("aGVsbG8").unwrap_err(),
            "illegal base64 data at input byte 4"
        );
        assert_eq!(
            check_base64("aGV*").unwrap_err(),
            "illegal base64 data at input byte 3"
        );
        assert_eq!(
            check_base64("aGVsbG8=x").unwrap_err(),
            "illegal base64 data at input byte 8"
        );
    }
}
