//! Whether a keyless `spec.verify.matchOIDCIdentity` entry names someone ("Delivery reference:
//! setup and gates", "Set up a Stage"): Flux reads the issuer and the subject as regular
//! expressions, so each must be anchored (`^…$`) and must not match an identity nobody has —
//! `.*`, or a subject left open at the end, counts as no identity at all.
//!
//! The patterns are read as Go's `regexp` reads them ([`crate::k8s::goregexp`]): Flux hands them
//! to cosign, which compiles them with `regexp.Compile` and matches with `MatchString`. So
//! `\w`, `\d`, `\s`, `\b` are ASCII, `$` is the end of the text unless `(?m)`, and a pattern
//! Go refuses is refused with Go's error.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::k8s::goregexp;

/// Why an issuer or subject pattern names no one, or None when it is anchored and closed.
///
/// Rules: the pattern starts with `^` and ends with an unescaped `$`, which Go reads as the
/// end of the text (not under `(?m)`, not inside `\Q…\E`); between them it is not only a
/// wildcard (`.*`, `.+`, `.?`, `\S*`, `\S+`, `[^…]*`, `[^…]+`; Go's `\S` is anything but an
/// ASCII space); it does not end in one (a subject open at the end matches every ref and
/// workflow after its prefix); Go's `regexp.Compile` accepts it; and it matches none of a few
/// identities nobody has. Each call compiles the pattern: [`Identities`] remembers verdicts.
pub fn open_pattern(pattern: &str) -> Option<String> {
    if pattern.is_empty() {
        return Some("is empty: it matches every identity".to_string());
    }
    let Some(body) = pattern.strip_prefix('^') else {
        return Some(format!("{pattern:?} is not anchored at the start (^)"));
    };
    let Some(body) = strip_end_anchor(body) else {
        return Some(format!("{pattern:?} is not anchored at the end ($)"));
    };
    if body.is_empty() || wildcard_len(body) == Some(body.len()) {
        return Some(format!("{pattern:?} matches every identity"));
    }
    if let Some(tail) = trailing_wildcard(body) {
        return Some(format!(
            "{pattern:?} is open at the end ({tail}$ matches whatever follows its prefix)"
        ));
    }
    // What the pattern does, not how it is written: `^(.*)$`, `^.*|x$`, `^[\s\S]*$` ... match
    // identities nobody intended. Bounded: hostile patterns fail to compile, not to finish.
    let re = match goregexp::compile(pattern) {
        Ok(re) => re,
        Err(e @ goregexp::Error::Syntax { .. }) => {
            return Some(format!(
                "{pattern:?} is not a regular expression Go's regexp reads ({e})"
            ));
        }
        Err(e @ goregexp::Error::TooLarge(_)) => {
            return Some(format!("{pattern:?} is too large to check ({e})"));
        }
    };
    if !re.ends_at_end_of_text() {
        return Some(format!(
            "{pattern:?} is not anchored at the end ($): Go reads its last $ as the end of a line under (?m), or as a literal inside \\Q…\\E"
        ));
    }
    STRANGERS
        .iter()
        .find(|s| re.is_match(s))
        .map(|s| format!("{pattern:?} matches identities nobody intended (for example {s:?})"))
}

/// The verdicts of [`open_pattern`] for one run, so each distinct pattern is compiled once
/// however many Stages read it. Bounded: past [`MEMO_BYTES`] of patterns and verdicts, new
/// patterns are checked without being remembered.
#[derive(Default)]
pub struct Identities {
    memo: Mutex<Memo>,
}

#[derive(Default, Clone)]
struct Memo {
    verdicts: HashMap<String, Option<String>>,
    bytes: usize,
}

/// How many bytes of patterns and verdicts [`Identities`] keeps.
pub const MEMO_BYTES: usize = 64 << 20;

impl Identities {
    /// [`open_pattern`] of `pattern`, remembered.
    pub fn open_pattern(&self, pattern: &str) -> Option<String> {
        if let Ok(memo) = self.memo.lock() {
            if let Some(v) = memo.verdicts.get(pattern) {
                return v.clone();
            }
        }
        let verdict = open_pattern(pattern);
        if let Ok(mut memo) = self.memo.lock() {
            let cost = pattern.len() + verdict.as_ref().map_or(0, String::len);
            if memo.bytes + cost <= MEMO_BYTES {
                memo.bytes += cost;
                memo.verdicts.insert(pattern.to_string(), verdict.clone());
            }
        }
        verdict
    }

    /// How many patterns are remembered.
    pub fn len(&self) -> usize {
        self.memo.lock().map_or(0, |m| m.verdicts.len())
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Clone for Identities {
    fn clone(&self) -> Identities {
        let memo = self.memo.lock().map(|m| m.clone()).unwrap_or_default();
        Identities {
            memo: Mutex::new(memo),
        }
    }
}

impl std::fmt::Debug for Identities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identities")
            .field("patterns", &self.len())
            .finish()
    }
}

/// Identities no publisher has: an anchored, closed pattern matches none of them.
const STRANGERS: [&str; 6] = [
    "",
    "x",
    "anyone",
    "https://attacker.example",
    "https://attacker.example/x/.github/workflows/x.yaml@refs/heads/x",
    "repo:attacker/x:ref:refs/heads/x",
];

/// The body without its final `$`, if that `$` is not escaped (an odd number of `\` before it).
fn strip_end_anchor(body: &str) -> Option<&str> {
    let rest = body.strip_suffix('$')?;
    let backslashes = rest.chars().rev().take_while(|c| *c == '\\').count();
    (backslashes % 2 == 0).then_some(rest)
}

/// The length of a whole-wildcard token at the start of `s` (`.*`, `.+`, `.?`, `\S*`, `\S+`,
/// `[^…]*`, `[^…]+`), if `s` starts with one.
fn wildcard_len(s: &str) -> Option<usize> {
    for w in [".*", ".+", ".?", "\\S*", "\\S+", ".*?", ".+?"] {
        if s == w {
            return Some(w.len());
        }
    }
    if let Some(rest) = s.strip_prefix("[^") {
        let close = rest.find(']')?;
        let after = &rest[close + 1..];
        if after == "*" || after == "+" {
            return Some(s.len());
        }
    }
    None
}

/// The wildcard the body ends with, if any.
fn trailing_wildcard(body: &str) -> Option<&str> {
    for w in [".*", ".+", "\\S*", "\\S+", ".*?", ".+?"] {
        if let Some(prefix) = body.strip_suffix(w) {
            // `\.*` is a literal dot repeated, not a wildcard.
            let escapes = prefix.chars().rev().take_while(|c| *c == '\\').count();
            if w.starts_with('.') && escapes % 2 == 1 {
                continue;
            }
            return Some(w);
        }
    }
    if body.ends_with(']') || body.ends_with("]*") || body.ends_with("]+") {
        if let Some(open) = body.rfind("[^") {
            let tail = &body[open..];
            if tail.ends_with("]*") || tail.ends_with("]+") {
                return Some(tail);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Delivery reference: setup and gates", "Set up a Stage": anchored and closed identities
    /// pass; `.*`, unanchored patterns and a subject open at the end name no one.
    #[test]
    fn anchoring_table() {
        let closed = [
            "^https://token.actions.githubusercontent.com$",
            r"^https://github\.com/acme/payments/\.github/workflows/publish\.yaml@refs/heads/main$",
            r"^https://github\.com/acme/(payments|orders)/\.github/workflows/publish\.yaml@refs/tags/v[0-9]+$",
            r"^price\$$",
            // Go's ASCII classes keep this small (with Unicode classes it was too large).
            r"^\w{1,30}\w{1,30}x$",
            r"^https://github\.com/acme/[\w-]+/\.github/workflows/publish\.yaml@refs/tags/v\d+\.\d+\.\d+$",
            r"^https://github\.com/(?P<org>acme)/(?<repo>payments)/\.github/workflows/publish\.yaml@refs/heads/main$",
            r"^\Qhttps://token.actions.githubusercontent.com\E$",
            r"^(?i)https://TOKEN\.actions\.githubusercontent\.com$",
        ];
        for p in closed {
            assert_eq!(open_pattern(p), None, "{p}");
        }
        let open = [
            ("", "is empty"),
            (".*", "not anchored at the start"),
            ("^.*$", "matches every identity"),
            ("^.+$", "matches every identity"),
            ("^[^/]+$", "matches every identity"),
            (
                "https://token.actions.githubusercontent.com",
                "not anchored at the start",
            ),
            (
                "^https://token.actions.githubusercontent.com",
                "not anchored at the end",
            ),
            (r"^https://x\$", "not anchored at the end"),
            ("^https://github.com/acme/.*$", "open at the end"),
            (
                "^https://github.com/acme/payments@refs/heads/.+$",
                "open at the end",
            ),
            ("^repo:acme/payments:[^/]*$", "open at the end"),
            // Go's \S (anything but an ASCII space) repeated at the end opens it as well.
            (
                r"^repo:acme/payments:ref:refs/heads/\S+$",
                r"open at the end (\S+$ matches",
            ),
            (r"^https://github.com/acme/\S*$", r"open at the end (\S*$ matches"),
            (r"^\S+$", "matches every identity"),
            (r"^\S*$", "matches every identity"),
            // Written otherwise, the same openness (a test of what the pattern matches).
            ("^.*|x$", "matches identities nobody intended"),
            ("^(.*)$", "matches identities nobody intended"),
            ("^(?:.*)$", "matches identities nobody intended"),
            ("^.{0,}$", "matches identities nobody intended"),
            (r"^[\s\S]*$", "matches identities nobody intended"),
            ("^(a|.*)$", "matches identities nobody intended"),
            (r"^\S*\s*$", "matches identities nobody intended"),
            ("^(unclosed$", "not a regular expression"),
            // As Go reads them: the last $ is a line's end under (?m), a literal in \Q…\E.
            (r"^(?m)https://x$", "not anchored at the end"),
            (r"^\Qhttps://x$", "not anchored at the end"),
            // What Go refuses, with Go's error.
            (
                r"^https://x{1001}$",
                "not a regular expression Go's regexp reads (error parsing regexp: invalid repeat count: `{1001}`)",
            ),
            (
                r"^https://(?=x)y$",
                "(error parsing regexp: invalid or unsupported Perl syntax: `(?=`)",
            ),
            (r"^(x)\1$", r"(error parsing regexp: invalid escape sequence: `\1`)"),
            (r"^x\Z$", r"(error parsing regexp: invalid escape sequence: `\Z`)"),
            (r"^(?'n'x)$", "invalid or unsupported Perl syntax: `(?'`"),
        ];
        for (p, why) in open {
            let got = open_pattern(p).unwrap_or_else(|| panic!("{p:?} passed"));
            assert!(got.contains(why), "{p:?}: {got}");
        }
        let huge = format!("^{}$", "a".repeat(1 << 20));
        let got = open_pattern(&huge).expect("refused");
        assert!(got.contains("is too large to check"), "{got:.200}");
    }

    /// Each distinct pattern is compiled once: the verdict is remembered.
    #[test]
    fn identities_remember_verdicts() {
        let ids = Identities::default();
        let open = "^https://github.com/acme/.*$";
        let closed = "^https://token.actions.githubusercontent.com$";
        assert_eq!(ids.open_pattern(closed), None);
        let first = ids.open_pattern(open);
        assert!(first
            .as_deref()
            .is_some_and(|w| w.contains("open at the end")));
        assert_eq!(ids.open_pattern(open), first);
        assert_eq!(ids.open_pattern(closed), None);
        assert_eq!(ids.len(), 2);
        assert_eq!(ids.clone().len(), 2);
    }
}
