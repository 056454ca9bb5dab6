//! `os.time` and `os.date` as Argo CD's Lua sees them: argo-cd `util/lua/oslib_safe.go` (the
//! `require("os")` module) and gopher-lua v1.1.2 `oslib.go` / `utils.go` `strftime` (the global
//! `os` of open-libs mode). Pure: the current time is passed in by the caller.
//!
//! Local time is UTC, as in Argo CD's standard controller image; so the safe module's loss of the
//! `!` flag with an explicit time (oslib_safe.go) cannot show.

/// The fields of `os.time{...}`: gopher's defaults are sec 0, min 0, hour 12, day -1, month -1,
/// year -1, and Go's `time.Date` normalises out-of-range values (month 13 is January next year).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateFields {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
}

impl Default for DateFields {
    fn default() -> Self {
        DateFields {
            year: -1,
            month: -1,
            day: -1,
            hour: 12,
            min: 0,
            sec: 0,
        }
    }
}

/// Unix seconds of a date in UTC, normalised as Go's `time.Date` does.
pub fn unix_from_fields(f: DateFields) -> i64 {
    let m0 = f.month - 1;
    let year = f.year + m0.div_euclid(12);
    let month = m0.rem_euclid(12) + 1;
    let days = days_from_civil(year, month, 1) + (f.day - 1);
    days * 86_400 + f.hour * 3_600 + f.min * 60 + f.sec
}

/// Civil date and time of Unix seconds in UTC: (year, month 1-12, day 1-31, hour, min, sec,
/// weekday 0=Sunday).
pub fn civil(unix: i64) -> (i64, i64, i64, i64, i64, i64, i64) {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let wday = (days + 4).rem_euclid(7);
    (y, m, d, secs / 3600, secs % 3600 / 60, secs % 60, wday)
}

/// gopher-lua `strftime`: each `%X` with a mapping to a Go layout is formatted with it (including
/// its quirks: `%a` prints the literal `mon`, `%x` prints the time `15/04/05`, `%c` is
/// `02 Jan 06 15:04 MST`); `%w` is the weekday number; `%%` is `%` (its `flagScanner`); any
/// other `%X` is kept verbatim, as is a `%` that ends the format.
pub fn strftime(unix: i64, fmt: &str) -> String {
    String::from_utf8_lossy(&strftime_bytes(unix, fmt.as_bytes())).into_owned()
}

/// [`strftime`] of a format that need not be UTF-8: its other bytes are copied as they are.
pub fn strftime_bytes(unix: i64, fmt: &[u8]) -> Vec<u8> {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    const DAYS: [&str; 7] = [
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
    ];
    let (y, mo, d, h, mi, s, wd) = civil(unix);
    let month = MONTHS[(mo - 1) as usize];
    let h12 = if h % 12 == 0 { 12 } else { h % 12 };
    let mut out = String::new();
    let mut bytes = fmt.iter().copied();
    let mut raw: Vec<u8> = Vec::new();
    while let Some(c) = bytes.next() {
        if c != b'%' {
            raw.push(c);
            continue;
        }
        let Some(f) = bytes.next() else {
            raw.push(b'%');
            break;
        };
        match f as char {
            'a' => out.push_str("mon"),
            'A' => out.push_str(DAYS[wd as usize]),
            'b' => out.push_str(&month[..3]),
            'B' => out.push_str(month),
            'c' => out.push_str(&format!(
                "{d:02} {} {:02} {h:02}:{mi:02} UTC",
                &month[..3],
                y.rem_euclid(100)
            )),
            'd' => out.push_str(&format!("{d:02}")),
            'F' => out.push_str(&format!("{y:04}-{mo:02}-{d:02}")),
            'H' => out.push_str(&format!("{h:02}")),
            'I' => out.push_str(&format!("{h12:02}")),
            'm' => out.push_str(&format!("{mo:02}")),
            'M' => out.push_str(&format!("{mi:02}")),
            'p' => out.push_str(if h < 12 { "AM" } else { "PM" }),
            'P' => out.push_str(if h < 12 { "am" } else { "pm" }),
            'S' => out.push_str(&format!("{s:02}")),
            'x' => out.push_str(&format!("{h:02}/{mi:02}/{s:02}")),
            'X' => out.push_str(&format!("{h:02}:{mi:02}:{s:02}")),
            'y' => out.push_str(&format!("{:02}", y.rem_euclid(100))),
            'Y' => out.push_str(&format!("{y}")),
            'z' => out.push_str("+0000"),
            'Z' => out.push_str("UTC"),
            'w' => out.push_str(&wd.to_string()),
            '%' => out.push('%'),
            _ => raw.extend_from_slice(&[b'%', f]),
        }
        raw.extend_from_slice(out.as_bytes());
        out.clear();
    }
    raw
}

pub(crate) use crate::k8s::time::{civil_from_days, days_from_civil};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_go_normalisation() {
        // 2024-02-29T12:00:00Z = 1709208000 (a leap day).
        let f = DateFields {
            year: 2024,
            month: 2,
            day: 29,
            hour: 12,
            min: 0,
            sec: 0,
        };
        assert_eq!(unix_from_fields(f), 1_709_208_000);
        assert_eq!(civil(1_709_208_000), (2024, 2, 29, 12, 0, 0, 4));
        // Month 13 of 2023 is January 2024, as time.Date normalises it.
        let f13 = DateFields {
            year: 2023,
            month: 13,
            day: 1,
            hour: 0,
            min: 0,
            sec: 0,
        };
        assert_eq!(unix_from_fields(f13), 1_704_067_200);
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0, 4));
    }

    /// Layouts: gopher-lua utils.go cDateFlagToGo; the `%a` → `mon` and `%x` → time quirks are the
    /// measured behaviour of argo-cd `util/lua/oslib_safe.go` (the same map).
    #[test]
    fn strftime_with_gopher_layouts() {
        let t = 1_709_208_000 + 3_600 + 2 * 60 + 3; // 2024-02-29 13:02:03 UTC, a Thursday
        assert_eq!(strftime(t, "%Y-%m-%d %H:%M:%S"), "2024-02-29 13:02:03");
        assert_eq!(strftime(t, "%a %A %b %B"), "mon Thursday Feb February");
        assert_eq!(strftime(t, "%c"), "29 Feb 24 13:02 UTC");
        assert_eq!(
            strftime(t, "%x|%X|%I %p %P|%y|%z %Z|%w|%F"),
            "13/02/03|13:02:03|01 PM pm|24|+0000 UTC|4|2024-02-29"
        );
        // flagScanner: `%%` is `%`; an unknown flag and a final `%` stay as they are.
        assert_eq!(strftime(t, "%j %% 100%"), "%j % 100%");
    }
}
