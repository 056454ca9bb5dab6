//! gopher-lua value semantics that differ from LuaJIT and that a health script can see: how a
//! number becomes a string, how `tonumber` and arithmetic coercion read a string.
//!
//! Sources: gopher-lua v1.1.2 (the version argo-cd pins) `value.go` `LNumber.String`,
//! `utils.go` `isInteger` and `parseNumber`, `baselib.go` `baseToNumber`.

/// A number as gopher-lua prints it (`tostring`, `..`, `table.concat`, error messages): a value
/// equal to its int64 conversion prints as that integer, anything else as Go's `fmt.Sprint` of a
/// float64 (shortest round-trip digits, exponent form when the decimal exponent is below -4 or at
/// least 6 — strconv's `'g'` with the shortest precision decides with precision 6 — at least two
/// exponent digits; `NaN`, `+Inf`, `-Inf`).
///
/// Examples: `1e15` → `1000000000000000`, `2^53` → `9007199254740992`, `0.1+0.2` →
/// `0.30000000000000004`, `2^63` → `9.223372036854776e+18`, `-0` → `0`.
pub fn number_to_string(v: f64) -> String {
    // Go's int64(v) saturates to the minimum on amd64 for out-of-range values and NaN, so only
    // values inside [-2^63, 2^63) can round-trip.
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if v.is_finite() && v.trunc() == v && (-TWO63..TWO63).contains(&v) {
        return (v as i64).to_string();
    }
    crate::k8s::gofmt::sprint_float(v)
}

/// gopher-lua `tonumber(s [, base])` on a string: trims spaces, `\n` and `\t`; a string with a
/// `.` is read with Go's `ParseFloat`, anything else with `ParseInt` in `base` (10 by default; a
/// `0x` prefix switches to 16 only when no base was given). Anything Go rejects, including
/// `1e2`, `inf` and values outside int64, is `None` (Lua `nil`).
///
/// `base` is the script's base as Go's `int` (truncated); base 0 is `ParseInt`'s own choice of
/// base from the prefix (`0x`, `0o`, `0b`, a leading `0`), and bases outside 0 and 2..=36 read
/// nothing.
pub fn tonumber(s: &str, base: Option<i64>) -> Option<f64> {
    let t = s.trim_matches([' ', '\n', '\t']);
    if t.contains('.') {
        return parse_go_float(t);
    }
    let (digits, radix) = match base {
        None if t.len() >= 2 && t.as_bytes()[..2].eq_ignore_ascii_case(b"0x") => (&t[2..], 16),
        None => (t, 10),
        Some(0) => return parse_go_int_base0(t).map(|n| n as f64),
        Some(b) if (2..=36).contains(&b) => (t, b as u32),
        Some(_) => return None,
    };
    i64::from_str_radix(digits, radix).ok().map(|n| n as f64)
}

/// gopher-lua `luaModulo` (vm.go), the `%` operator and `math.mod`: Go's `math.Mod` (the
/// remainder with the sign of the dividend, exact) moved to the sign of the divisor, so `5 % inf`
/// is 5 and `-5 % inf` is `+Inf` (LuaJIT's `a - floor(a/b)*b` gives NaN for both).
pub fn lua_modulo(a: f64, b: f64) -> f64 {
    let v = a % b;
    if (b > 0.0 && v < 0.0) || (b < 0.0 && v > 0.0) {
        v + b
    } else {
        v
    }
}

/// gopher-lua `parseNumber`, the coercion of a string operand in arithmetic: Go
/// `ParseInt(s, 0, 64)` (so `010` is octal 8, `0b101` is 5, `1_000` is 1000), else `ParseFloat`.
pub fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim_matches([' ', '\t', '\n']);
    parse_go_int_base0(t)
        .map(|n| n as f64)
        .or_else(|| parse_go_float(t))
}

fn parse_go_int_base0(t: &str) -> Option<i64> {
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits, prefixed) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.to_string(), true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string(), true)
    } else {
        (10, lower.clone(), false)
    };
    // Go allows underscores only between digits when base 0 is used.
    let digits = if digits.contains('_') {
        if digits.starts_with('_') && !prefixed || digits.ends_with('_') || digits.contains("__") {
            return None;
        }
        digits.replace('_', "")
    } else {
        digits
    };
    if digits.is_empty() {
        return None;
    }
    let mag = u64::from_str_radix(&digits, radix).ok()?;
    if neg {
        if mag <= i64::MAX as u64 + 1 {
            Some((mag as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else {
        i64::try_from(mag).ok()
    }
}

/// Go `strconv.ParseFloat(s, 64)` for decimal input: an out-of-range value is an error.
fn parse_go_float(t: &str) -> Option<f64> {
    if t.contains('_') {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    let lower = t.trim_start_matches(['+', '-']).to_ascii_lowercase();
    if v.is_infinite() && !(lower == "inf" || lower == "infinity") {
        return None;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected strings: gopher-lua v1.1.2 `value.go` (`LNumber.String`: a whole float as an int64,
    /// else Go's shortest `%v`), measured on gopher-lua v1.1.2.
    #[test]
    fn numbers_print_as_gopher_lua_prints_them() {
        let cases: [(f64, &str); 16] = [
            (1.0, "1"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (1e15, "1000000000000000"),
            (1e16, "10000000000000000"),
            (2f64.powi(53), "9007199254740992"),
            (2f64.powi(63), "9.223372036854776e+18"),
            (-(2f64.powi(63)), "-9223372036854775808"),
            (1.0 / 3.0, "0.3333333333333333"),
            (100.0 / 3.0, "33.333333333333336"),
            (0.1 + 0.2, "0.30000000000000004"),
            (100.0 * 1.1, "110.00000000000001"),
            (std::f64::consts::PI, "3.141592653589793"),
            (-0.0, "0"),
            (f64::MAX, "1.7976931348623157e+308"),
        ];
        for (v, want) in cases {
            assert_eq!(number_to_string(v), want, "{v:?}");
        }
        assert_eq!(number_to_string(f64::NAN), "NaN");
        assert_eq!(number_to_string(f64::INFINITY), "+Inf");
        assert_eq!(number_to_string(f64::NEG_INFINITY), "-Inf");
        assert_eq!(number_to_string(1e21), "1e+21");
        assert_eq!(number_to_string(1_000_000.5), "1.0000005e+06");
        assert_eq!(number_to_string(123_456.5), "123456.5");
        assert_eq!(number_to_string(123456.789e3), "123456789");
    }

    /// Expected values: gopher-lua v1.1.2 `baselib.go` (`baseToNumber`: Go's ParseInt and
    /// ParseFloat, no exponent without a dot).
    #[test]
    fn tonumber_follows_go_parse_rules() {
        assert_eq!(tonumber("1e2", None), None);
        assert_eq!(tonumber("1E5", None), None);
        assert_eq!(tonumber("inf", None), None);
        assert_eq!(tonumber("nan", None), None);
        assert_eq!(tonumber("-0x10", None), None);
        assert_eq!(tonumber("99999999999999999999", None), None);
        assert_eq!(tonumber("7\r", None), None);
        assert_eq!(tonumber("1.5e3", None), Some(1500.0));
        assert_eq!(tonumber("1.", None), Some(1.0));
        assert_eq!(tonumber(".5", None), Some(0.5));
        assert_eq!(tonumber("+5", None), Some(5.0));
        assert_eq!(tonumber("0x1F", None), Some(31.0));
        assert_eq!(tonumber("ff", Some(16)), Some(255.0));
        assert_eq!(tonumber(" 42\n", None), Some(42.0));
        assert_eq!(tonumber("1e400.0", None), None);
        // Multi-byte first characters are no hex prefix (and no panic).
        assert_eq!(tonumber("€5", None), None);
        assert_eq!(tonumber("日本", None), None);
    }

    /// Expected values: gopher-lua v1.1.2 `utils.go` (`parseNumber` uses Go ParseInt base 0).
    #[test]
    fn arithmetic_coercion_reads_go_literals() {
        assert_eq!(parse_number("010"), Some(8.0));
        assert_eq!(parse_number("0b101"), Some(5.0));
        assert_eq!(parse_number("0o17"), Some(15.0));
        assert_eq!(parse_number("1_000"), Some(1000.0));
        assert_eq!(parse_number("0x10"), Some(16.0));
        assert_eq!(parse_number("1e2"), Some(100.0));
        assert_eq!(parse_number(" 5 "), Some(5.0));
        assert_eq!(parse_number("abc"), None);
    }

    /// gopher-lua v1.1.2 vm.go luaModulo (values gopher-lua gave, tests/fixtures/
    /// lua_gopher_differential.txt).
    #[test]
    fn modulo_takes_the_divisors_sign() {
        assert_eq!(lua_modulo(-10.0, 3.0), 2.0);
        assert_eq!(lua_modulo(10.0, -3.0), -2.0);
        assert_eq!(lua_modulo(5.0, f64::INFINITY), 5.0);
        assert_eq!(lua_modulo(-5.0, f64::INFINITY), f64::INFINITY);
        assert_eq!(lua_modulo(5.0, f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(lua_modulo(1e17, 3.0), 1.0);
        assert!(lua_modulo(f64::INFINITY, 2.0).is_nan());
        assert!(lua_modulo(1.0, 0.0).is_nan());
    }

    /// baselib.go baseToNumber: Go's ParseInt with the given base, base 0 choosing from the
    /// prefix, other bases outside 2..36 reading nothing.
    #[test]
    fn tonumber_bases() {
        assert_eq!(tonumber("0x10", Some(0)), Some(16.0));
        assert_eq!(tonumber("010", Some(0)), Some(8.0));
        assert_eq!(tonumber("0b11", Some(0)), Some(3.0));
        assert_eq!(tonumber("10", Some(-1)), None);
        assert_eq!(tonumber("10", Some(2)), Some(2.0));
        assert_eq!(tonumber("zz", Some(36)), Some(1295.0));
    }
}
