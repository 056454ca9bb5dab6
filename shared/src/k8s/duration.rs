//! Go's `time.Duration` as Kubernetes objects and Flux write it (`metav1.Duration`: `5m0s`,
//! `1h30m`): Go's `time.ParseDuration` for non-negative values and `Duration.String()`.

use std::time::Duration;

/// The longest Go duration, in seconds (`math.MaxInt64` nanoseconds, 2562047h47m16.854775807s).
pub const MAX_GO_DURATION_SECONDS: f64 = 9_223_372_036.854_775;

/// Go's `time.ParseDuration` for non-negative durations: decimal numbers with optional fractions,
/// each followed by a unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), e.g. `1h30m`, `1.5s`.
pub fn parse_go_duration(s: &str) -> Option<Duration> {
    let s = s.strip_prefix('+').unwrap_or(s);
    if s == "0" {
        return Some(Duration::ZERO);
    }
    if s.is_empty() {
        return None;
    }
    let mut total = 0f64;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let value: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += value * scale;
    }
    // Go's Duration is int64 nanoseconds: longer is "invalid duration" there too.
    if !total.is_finite() || total > MAX_GO_DURATION_SECONDS {
        return None;
    }
    Some(Duration::from_secs_f64(total))
}

/// Go's `time.Duration.String()`: `1h2m3s`, `5m0s`, `30s`, `1.5s`, `500ms`, `0s`.
pub fn go_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        return "0s".into();
    }
    if ns < 1_000_000_000 {
        let (unit, div) = if ns < 1_000 {
            ("ns", 1u128)
        } else if ns < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        return format!("{}{unit}", fraction(ns, div));
    }
    let h = ns / 3_600_000_000_000;
    let m = ns / 60_000_000_000 % 60;
    let s = fraction(ns % 60_000_000_000, 1_000_000_000);
    if h > 0 {
        format!("{h}h{m}m{s}s")
    } else if m > 0 {
        format!("{m}m{s}s")
    } else {
        format!("{s}s")
    }
}

fn fraction(n: u128, div: u128) -> String {
    let whole = n / div;
    let frac = n % div;
    if frac == 0 {
        return whole.to_string();
    }
    let width = (div as f64).log10().round() as usize;
    let digits = format!("{frac:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go time.Duration.String() outputs.
    #[test]
    fn durations() {
        assert_eq!(go_duration(Duration::from_secs(300)), "5m0s");
        assert_eq!(go_duration(Duration::from_secs(30)), "30s");
        assert_eq!(go_duration(Duration::from_secs(3600)), "1h0m0s");
        assert_eq!(go_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(go_duration(Duration::from_millis(500)), "500ms");
        assert_eq!(go_duration(Duration::ZERO), "0s");
        assert_eq!(parse_go_duration("1h30m"), Some(Duration::from_secs(5400)));
        assert_eq!(parse_go_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_go_duration("5x"), None);
    }
}
