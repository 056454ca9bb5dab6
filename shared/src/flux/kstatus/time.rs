//! Time as kstatus reads and writes it: `Unstructured.GetCreationTimestamp` through Go's
//! `time.Parse(time.RFC3339, ..)` (metav1.Time.UnmarshalQueryParameter), and
//! `time.Now().UTC().Format(time.RFC3339)` for the condition times of `status.go` `Augment`.

use serde_json::Value;

use super::unstructured::get_nested_string;

pub(super) const NANOS_PER_SECOND: i128 = 1_000_000_000;

// ---------------------------------------------------------------------------------------------
// Time: metav1.Time.UnmarshalQueryParameter (time.Parse with RFC3339) and RFC 3339 formatting
// ---------------------------------------------------------------------------------------------

/// `Unstructured.GetCreationTimestamp` as nanoseconds since the Unix epoch: a missing, empty,
/// `null` or unparsable value is Go's zero time (0001-01-01T00:00:00Z).
pub(super) fn creation_timestamp_nanos(obj: &Value) -> i128 {
    let text = get_nested_string(obj, &["metadata", "creationTimestamp"]);
    let zero = i128::from(days_from_civil(1, 1, 1)) * 86_400 * NANOS_PER_SECOND;
    if text.is_empty() || text == "null" {
        return zero;
    }
    parse_go_rfc3339(&text).unwrap_or(zero)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

use crate::argo::osdate::{civil_from_days, days_from_civil};

/// `time.Now().UTC().Format(time.RFC3339)` for a given Unix time.
pub(super) fn format_rfc3339_utc(unix_seconds: i64) -> String {
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

/// Go's `time.Parse(time.RFC3339, s)` as an instant in nanoseconds since the Unix epoch, `None`
/// where Go returns an error. Go's general parser is used for the layout
/// `2006-01-02T15:04:05Z07:00`: a 4-digit year, 2-digit month/day/minute/second, a 1- or 2-digit
/// hour, optional fractional seconds after `.` or `,` (digits past the ninth ignored), then `Z` or
/// `±hh:mm` (offset hours up to 24, minutes up to 60), and nothing after.
fn parse_go_rfc3339(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let val = |i: usize| i64::from(b[i] - b'0');
    // getnum: one or two digits; `fixed` requires two.
    let getnum = |i: usize, fixed: bool| -> Option<(i64, usize)> {
        if !digit(i) {
            return None;
        }
        if !digit(i + 1) {
            return if fixed { None } else { Some((val(i), i + 1)) };
        }
        Some((val(i) * 10 + val(i + 1), i + 2))
    };
    let literal = |i: usize, c: u8| -> Option<usize> { (b.get(i) == Some(&c)).then_some(i + 1) };

    if b.len() < 4 || !(0..4).all(digit) {
        return None;
    }
    let year = (0..4).fold(0i64, |acc, i| acc * 10 + val(i));
    let i = literal(4, b'-')?;
    let (month, i) = getnum(i, true)?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let i = literal(i, b'-')?;
    let (day, i) = getnum(i, true)?;
    let i = literal(i, b'T')?;
    let (hour, i) = getnum(i, false)?;
    if hour >= 24 {
        return None;
    }
    let i = literal(i, b':')?;
    let (minute, i) = getnum(i, true)?;
    if minute >= 60 {
        return None;
    }
    let i = literal(i, b':')?;
    let (second, mut i) = getnum(i, true)?;
    if second >= 60 {
        return None;
    }
    let mut nanos: i64 = 0;
    if matches!(b.get(i), Some(b'.') | Some(b',')) && digit(i + 1) {
        let mut n = i + 1;
        while digit(n) {
            n += 1;
        }
        let frac = &b[i + 1..n.min(i + 10)];
        let mut ns = frac
            .iter()
            .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0'));
        for _ in frac.len()..9 {
            ns *= 10;
        }
        nanos = ns;
        i = n;
    }
    let offset_seconds: i64 = if b.get(i) == Some(&b'Z') {
        i += 1;
        0
    } else {
        if b.len() < i + 6 || b[i + 3] != b':' {
            return None;
        }
        let (hh, _) = getnum(i + 1, true).filter(|&(_, end)| end == i + 3)?;
        let (mm, _) = getnum(i + 4, true)?;
        if hh > 24 || mm > 60 {
            return None;
        }
        let magnitude = (hh * 60 + mm) * 60;
        let signed = match b[i] {
            b'+' => magnitude,
            b'-' => -magnitude,
            _ => return None,
        };
        i += 6;
        signed
    };
    if i != b.len() {
        return None;
    }
    if day < 1 || day > days_in_month(month, year) {
        return None;
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_seconds;
    Some(i128::from(seconds) * NANOS_PER_SECOND + i128::from(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kstatus_go_time_parsing() {
        let p = parse_go_rfc3339;
        let base = i128::from(1_714_564_800i64) * NANOS_PER_SECOND;
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
