//! Character classes as flat lists of rune pairs `lo, hi, lo, hi, ...`, with Go's operations on
//! them (`regexp/syntax/parse.go`: `appendRange`, `cleanClass`, `appendClass`,
//! `appendNegatedClass`, `negateClass`) and the ASCII groups of `perl_groups.go`: in Go `\d`,
//! `\s`, `\w` and `[[:alpha:]]` are ASCII only.

/// The largest rune (`unicode.MaxRune`).
pub(super) const MAX_RUNE: i32 = 0x10FFFF;

/// Appends `lo-hi`, widening the last or the next-to-last range instead when it overlaps or
/// abuts (Go looks back two ranges, so interleaved `A-Z` and `a-z` stay two ranges).
pub(super) fn append_range(r: &mut Vec<i32>, lo: i32, hi: i32) {
    let n = r.len();
    for i in [2, 4] {
        if n >= i {
            let (rlo, rhi) = (r[n - i], r[n - i + 1]);
            if lo <= rhi + 1 && rlo <= hi + 1 {
                if lo < rlo {
                    r[n - i] = lo;
                }
                if hi > rhi {
                    r[n - i + 1] = hi;
                }
                return;
            }
        }
    }
    r.push(lo);
    r.push(hi);
}

/// Sorts the ranges (by `lo`, longer first) and merges those that overlap or abut.
pub(super) fn clean(r: &mut Vec<i32>) {
    if is_clean(r) {
        return;
    }
    let mut pairs: Vec<(i32, i32)> = r.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    r.clear();
    for (lo, hi) in pairs {
        if let Some(last) = r.last_mut() {
            if lo <= *last + 1 {
                if hi > *last {
                    *last = hi;
                }
                continue;
            }
        }
        r.push(lo);
        r.push(hi);
    }
}

/// Whether the ranges are sorted and neither overlap nor abut.
fn is_clean(r: &[i32]) -> bool {
    r.chunks_exact(2).all(|p| p[0] <= p[1])
        && r.windows(3)
            .step_by(2)
            .all(|w| i64::from(w[1]) + 1 < i64::from(w[2]))
}

/// Appends the clean class `x`.
pub(super) fn append_class(r: &mut Vec<i32>, x: &[i32]) {
    if r.is_empty() {
        // Nothing to merge with, and x's ranges neither overlap nor abut.
        r.extend_from_slice(x);
        return;
    }
    for p in x.chunks_exact(2) {
        append_range(r, p[0], p[1]);
    }
}

/// Appends the runes the clean class `x` does not hold.
pub(super) fn append_negated_class(r: &mut Vec<i32>, x: &[i32]) {
    let mut next_lo = 0;
    for p in x.chunks_exact(2) {
        if next_lo < p[0] {
            append_range(r, next_lo, p[0] - 1);
        }
        next_lo = p[1] + 1;
    }
    if next_lo <= MAX_RUNE {
        append_range(r, next_lo, MAX_RUNE);
    }
}

/// The runes the clean class `r` does not hold.
pub(super) fn negate(r: &[i32]) -> Vec<i32> {
    let mut out = Vec::with_capacity(r.len() + 2);
    let mut next_lo = 0;
    for p in r.chunks_exact(2) {
        if next_lo < p[0] {
            out.push(next_lo);
            out.push(p[0] - 1);
        }
        next_lo = p[1] + 1;
    }
    if next_lo <= MAX_RUNE {
        out.push(next_lo);
        out.push(MAX_RUNE);
    }
    out
}

/// `\d` (`perl_groups.go`).
const DIGIT: &[i32] = &[0x30, 0x39];
/// `\s`: tab, newline, form feed, carriage return, space (not vertical tab).
const SPACE: &[i32] = &[0x9, 0xa, 0xc, 0xd, 0x20, 0x20];
/// `\w`: `[0-9A-Za-z_]`.
const WORD: &[i32] = &[0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];

/// The Perl class of `\d`, `\D`, `\s`, `\S`, `\w`, `\W`: its sign and ranges.
pub(super) fn perl_group(escape: &str) -> Option<(i32, &'static [i32])> {
    Some(match escape {
        "\\d" => (1, DIGIT),
        "\\D" => (-1, DIGIT),
        "\\s" => (1, SPACE),
        "\\S" => (-1, SPACE),
        "\\w" => (1, WORD),
        "\\W" => (-1, WORD),
        _ => return None,
    })
}

/// The POSIX class `[:name:]` or `[:^name:]`: its sign and ranges (all ASCII).
pub(super) fn posix_group(name: &str) -> Option<(i32, &'static [i32])> {
    let (sign, bare) = match name.strip_prefix("[:^") {
        Some(rest) => (-1, rest),
        None => (1, name.strip_prefix("[:")?),
    };
    let ranges: &'static [i32] = match bare.strip_suffix(":]")? {
        "alnum" => &[0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
        "alpha" => &[0x41, 0x5a, 0x61, 0x7a],
        "ascii" => &[0x0, 0x7f],
        "blank" => &[0x9, 0x9, 0x20, 0x20],
        "cntrl" => &[0x0, 0x1f, 0x7f, 0x7f],
        "digit" => DIGIT,
        "graph" => &[0x21, 0x7e],
        "lower" => &[0x61, 0x7a],
        "print" => &[0x20, 0x7e],
        "punct" => &[0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
        "space" => &[0x9, 0xd, 0x20, 0x20],
        "upper" => &[0x41, 0x5a],
        "word" => WORD,
        "xdigit" => &[0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
        _ => return None,
    };
    Some((sign, ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// regexp/syntax/parse_test.go TestAppendRangeCollapse: interleaved A-Z and a-z collapse
    /// into two ranges.
    #[test]
    fn append_range_collapses_interleaved_alphabets() {
        let mut r = Vec::new();
        for c in 'A' as i32..='Z' as i32 {
            append_range(&mut r, c, c);
            append_range(&mut r, c + 32, c + 32);
        }
        assert_eq!(r, ['A' as i32, 'Z' as i32, 'a' as i32, 'z' as i32]);
    }

    #[test]
    fn clean_sorts_and_merges() {
        let mut r = vec![0x61, 0x63, 0x30, 0x39, 0x62, 0x70, 0x3a, 0x3a, 0x100, 0x100];
        clean(&mut r);
        assert_eq!(r, [0x30, 0x3a, 0x61, 0x70, 0x100, 0x100]);
        assert_eq!(
            negate(&r),
            [0, 0x2f, 0x3b, 0x60, 0x71, 0xff, 0x101, MAX_RUNE]
        );
        assert_eq!(negate(&[0, MAX_RUNE]), Vec::<i32>::new());
    }
}
