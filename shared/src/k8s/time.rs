//! Times as Kubernetes objects carry them (`metav1.Time`, RFC 3339 in UTC) and as Go reads them:
//! Go's `time.Parse(time.RFC3339, s)` with its quirks and error texts (Go `time/format.go`),
//! which Argo CD's typed conversions and kstatus both go through; formatting through jiff; and
//! the proleptic Gregorian day arithmetic gopher-lua's `os.time`/`os.date` need.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days-from-civil
/// arithmetic); month and day may be out of range only as `os.time` normalises them.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

/// `time.Now().UTC().Format(time.RFC3339)` for a Unix time in seconds:
/// `2026-11-29T12:00:00Z`. Outside jiff's range (years -9999..=9999) the civil arithmetic
/// answers instead, as Go would.
pub fn format_rfc3339_utc(unix_seconds: i64) -> String {
    if let Ok(t) = jiff::Timestamp::from_second(unix_seconds) {
        return t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    }
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

const NANOS_PER_SECOND: i128 = 1_000_000_000;
const RFC3339: &str = "2006-01-02T15:04:05Z07:00";

/// Go's `time.quote`: bytes outside printable ASCII become `\xNN`; `"` and `\` are escaped.
fn time_quote(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for &c in b {
        if !(0x20..0x80).contains(&c) {
            out.push_str(&format!("\\x{c:02x}"));
        } else {
            if c == b'"' || c == b'\\' {
                out.push('\\');
            }
            out.push(c as char);
        }
    }
    out.push('"');
    out
}

/// Go's `getnum`: one or two digits; `fixed` requires two.
fn getnum(s: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    let digit = |i: usize| s.get(i).is_some_and(u8::is_ascii_digit);
    if !digit(0) {
        return None;
    }
    if !digit(1) {
        if fixed {
            return None;
        }
        return Some((i64::from(s[0] - b'0'), &s[1..]));
    }
    Some((
        i64::from(s[0] - b'0') * 10 + i64::from(s[1] - b'0'),
        &s[2..],
    ))
}

#[derive(Clone, Copy)]
enum Std {
    LongYear,
    ZeroMonth,
    ZeroDay,
    Hour,
    ZeroMinute,
    ZeroSecond,
    IsoColonTz,
}

/// Go's `time.Parse(time.RFC3339, value)`: the instant in nanoseconds since the Unix epoch, or
/// Go's `*time.ParseError` text. It follows Go's general parse loop for the layout
/// `2006-01-02T15:04:05Z07:00`: a 4-digit year; 2-digit month, day, minute and second; a 1- or
/// 2-digit hour; fractional seconds after `.` or `,` that the layout does not mention (digits past
/// the ninth ignored); `Z` or `±hh:mm` (offset hours up to 24, minutes up to 60); nothing after;
/// then the range and day-of-month checks. Errors read like Go's: `parsing time "x" as
/// "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`, `parsing time "…": month out of
/// range`, `parsing time "…": extra text: "…"`.
pub fn parse_go_rfc3339(value: &str) -> Result<i128, String> {
    let whole = value.as_bytes();
    let bad = |rest: &[u8], elem: &str| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            time_quote(whole),
            time_quote(RFC3339.as_bytes()),
            time_quote(rest),
            time_quote(elem.as_bytes())
        )
    };
    let out_of_range =
        |what: &str| format!("parsing time {}: {what} out of range", time_quote(whole));
    let chunks = [
        ("", Std::LongYear, "2006"),
        ("-", Std::ZeroMonth, "01"),
        ("-", Std::ZeroDay, "02"),
        ("T", Std::Hour, "15"),
        (":", Std::ZeroMinute, "04"),
        (":", Std::ZeroSecond, "05"),
        ("", Std::IsoColonTz, "Z07:00"),
    ];
    let (mut year, mut month, mut day) = (0i64, 0i64, 0i64);
    let (mut hour, mut minute, mut second, mut nanos) = (0i64, 0i64, 0i64, 0i64);
    let mut offset_seconds = 0i64;
    let mut rest = whole;
    for (prefix, std, stdstr) in chunks {
        if let Some(&p) = prefix.as_bytes().first() {
            if rest.first() != Some(&p) {
                return Err(bad(rest, prefix));
            }
            rest = &rest[1..];
        }
        let hold = rest;
        let mut range: Option<&str> = None;
        let ok = match std {
            Std::LongYear => {
                if rest.len() < 4 || !rest[..4].iter().all(u8::is_ascii_digit) {
                    false
                } else {
                    year = rest[..4]
                        .iter()
                        .fold(0, |acc, d| acc * 10 + i64::from(d - b'0'));
                    rest = &rest[4..];
                    true
                }
            }
            Std::ZeroMonth | Std::ZeroDay | Std::Hour | Std::ZeroMinute | Std::ZeroSecond => {
                match getnum(rest, !matches!(std, Std::Hour)) {
                    None => false,
                    Some((n, r)) => {
                        rest = r;
                        match std {
                            Std::ZeroMonth => {
                                month = n;
                                if !(1..=12).contains(&n) {
                                    range = Some("month");
                                }
                            }
                            Std::ZeroDay => day = n,
                            Std::Hour if n >= 24 => range = Some("hour"),
                            Std::Hour => hour = n,
                            Std::ZeroMinute if n >= 60 => range = Some("minute"),
                            Std::ZeroMinute => minute = n,
                            Std::ZeroSecond if n >= 60 => range = Some("second"),
                            Std::ZeroSecond => {
                                second = n;
                                // A fractional second the layout does not mention is accepted.
                                if rest.len() >= 2
                                    && (rest[0] == b'.' || rest[0] == b',')
                                    && rest[1].is_ascii_digit()
                                {
                                    let digits =
                                        rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                                    let frac = &rest[1..1 + digits.min(9)];
                                    nanos = frac
                                        .iter()
                                        .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0'))
                                        * 10i64.pow(9 - frac.len() as u32);
                                    rest = &rest[1 + digits..];
                                }
                            }
                            _ => {}
                        }
                        true
                    }
                }
            }
            Std::IsoColonTz => {
                if rest.first() == Some(&b'Z') {
                    rest = &rest[1..];
                    true
                } else if rest.len() < 6 || rest[3] != b':' {
                    false
                } else {
                    let (sign, hh, mm) = (rest[0], &rest[1..3], &rest[4..6]);
                    rest = &rest[6..];
                    match (getnum(hh, true), getnum(mm, true)) {
                        (Some((h, _)), Some((m, _))) => {
                            if h > 24 {
                                range = Some("time zone offset hour");
                            }
                            if m > 60 {
                                range = Some("time zone offset minute");
                            }
                            let magnitude = (h * 60 + m) * 60;
                            offset_seconds = if sign == b'-' { -magnitude } else { magnitude };
                            sign == b'+' || sign == b'-'
                        }
                        _ => false,
                    }
                }
            }
        };
        if let Some(what) = range {
            return Err(out_of_range(what));
        }
        if !ok {
            return Err(bad(hold, stdstr));
        }
    }
    if !rest.is_empty() {
        return Err(format!(
            "parsing time {}: extra text: {}",
            time_quote(whole),
            time_quote(rest)
        ));
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if day < 1 || day > days {
        return Err(out_of_range("day"));
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_seconds;
    Ok(i128::from(seconds) * NANOS_PER_SECOND + i128::from(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: i128 = NANOS_PER_SECOND;

    /// Instants and error texts as Go's `time.Parse(time.RFC3339, s)` gives them
    /// (`time/format.go`: one-digit hours and unmentioned fractions accepted, `,` as the
    /// decimal mark, offsets applied, range checks after the layout).
    #[test]
    fn go_rfc3339_instants() {
        assert_eq!(parse_go_rfc3339("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(
            parse_go_rfc3339("2018-07-18T04:48:48Z"),
            Ok(1_531_889_328 * NS)
        );
        assert_eq!(
            parse_go_rfc3339("2018-07-18T4:48:48Z"),
            Ok(1_531_889_328 * NS)
        );
        assert_eq!(
            parse_go_rfc3339("2018-07-18T06:48:48.123+02:00"),
            Ok(1_531_889_328 * NS + 123_000_000)
        );
        assert_eq!(
            parse_go_rfc3339("1970-01-01T00:00:00,1234567891Z"),
            Ok(123_456_789)
        );
        assert_eq!(parse_go_rfc3339("1970-01-01T00:00:00-01:30"), Ok(5400 * NS));
    }

    #[test]
    fn go_rfc3339_errors() {
        assert_eq!(
            parse_go_rfc3339("").unwrap_err(),
            r#"parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006""#
        );
        assert_eq!(
            parse_go_rfc3339("2018-07-18 04:48:48Z").unwrap_err(),
            r#"parsing time "2018-07-18 04:48:48Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 04:48:48Z" as "T""#
        );
        assert_eq!(
            parse_go_rfc3339("2018-13-18T04:48:48Z").unwrap_err(),
            r#"parsing time "2018-13-18T04:48:48Z": month out of range"#
        );
        assert_eq!(
            parse_go_rfc3339("2019-02-29T04:48:48Z").unwrap_err(),
            r#"parsing time "2019-02-29T04:48:48Z": day out of range"#
        );
        assert_eq!(
            parse_go_rfc3339("2018-07-18T04:48:48Zx").unwrap_err(),
            r#"parsing time "2018-07-18T04:48:48Zx": extra text: "x""#
        );
        assert_eq!(
            parse_go_rfc3339("2018-07-18T04:48:48+0200").unwrap_err(),
            r#"parsing time "2018-07-18T04:48:48+0200" as "2006-01-02T15:04:05Z07:00": cannot parse "+0200" as "Z07:00""#
        );
    }

    #[test]
    fn civil_round_trip_and_formatting() {
        // 2024-02-29 is day 19782 since the epoch (a leap day).
        assert_eq!(days_from_civil(2024, 2, 29), 19_782);
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(format_rfc3339_utc(1_709_208_000), "2024-02-29T12:00:00Z");
        assert_eq!(format_rfc3339_utc(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn kstatus_go_time_parsing() {
        let p = |s: &str| parse_go_rfc3339(s).ok();
        let base = i128::from(1_714_564_800i64) * NS;
        assert_eq!(p("2024-05-01T12:00:00Z"), Some(base));
        assert_eq!(p("2024-05-01T9:00:00-03:00"), Some(base));
        assert_eq!(p("2024-05-01T12:00:00,25Z"), Some(base + 250_000_000));
        assert_eq!(
            p("2024-05-01T12:00:00.1234567891Z"),
            Some(base + 123_456_789)
        );
        assert_eq!(p("2024-02-30T12:00:00Z"), None);
        assert_eq!(p("2024-05-01T12:00:00"), None);
        assert_eq!(p("2024-05-01T12:00:00z"), None);
        assert_eq!(p("2024-05-01t12:00:00Z"), None);
        assert_eq!(p("2024-05-01T12:00:60Z"), None);
        assert_eq!(p("2024-5-01T12:00:00Z"), None);
        assert_eq!(p("2024-05-01T12:00:00Z "), None);
        assert_eq!(p("2024-05-01T12:00:00+0100"), None);
    }
}
