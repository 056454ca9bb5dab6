//! Whether a keyless `spec.verify.matchOIDCIdentity` entry names someone ("Delivery reference:
//! setup and gates", section "Set up a Stage"): Flux reads the issuer and the subject as regular
//! expressions, so each must be anchored (`^…$`) and must not match an identity nobody has — `.*`,
//! or a subject left open at the end, counts as no identity at all.

/// Why an issuer or subject pattern names no one, or None when it is anchored and closed.
///
/// Rules: the pattern starts with `^` and ends with an unescaped `$`; between them it is not
/// only a wildcard (`.*`, `.+`, `.?`, `\S*`, `\S+`, `[^…]*`, `[^…]+`); and it does not end in
/// one (a subject open at the end matches every ref and workflow after its prefix).
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
    let re = match regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
    {
        Ok(re) => re,
        Err(e) => {
            let first = e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string();
            return Some(format!(
                "{pattern:?} is not a regular expression this tool can read ({first})"
            ));
        }
    };
    STRANGERS
        .iter()
        .find(|s| re.is_match(s))
        .map(|s| format!("{pattern:?} matches identities nobody intended (for example {s:?})"))
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
            // Written otherwise, the same openness (a test of what the pattern matches).
            ("^.*|x$", "matches identities nobody intended"),
            ("^(.*)$", "matches identities nobody intended"),
            ("^(?:.*)$", "matches identities nobody intended"),
            ("^.{0,}$", "matches identities nobody intended"),
            (r"^[\s\S]*$", "matches identities nobody intended"),
            ("^(a|.*)$", "matches identities nobody intended"),
            (r"^\S*\s*$", "matches identities nobody intended"),
            ("^(unclosed$", "not a regular expression"),
        ];
        for (p, why) in open {
            let got = open_pattern(p).unwrap_or_else(|| panic!("{p:?} passed"));
            assert!(got.contains(why), "{p:?}: {got}");
        }
    }
}
