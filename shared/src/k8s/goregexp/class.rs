//! Character classes in a pattern (`regexp/syntax/parse.go`: `parseClass`, `parseClassChar`,
//! `parseNamedClass`, `parsePerlClassEscape`, `parseUnicodeClass`, `appendGroup`): `[a-z]`,
//! `[^\n]`, `[[:alpha:]]`, `\d`, `\pL`, `\p{Greek}`, `\P{^Lu}`, with `(?i)` folding each.

use super::error::{Error, ErrorCode};
use super::parse::next_rune;
use super::ranges;
use super::tree::{Op, Parser, CLASS_NL, FOLD_CASE, PERL_X, UNICODE_GROUPS};
use super::unicode;

impl<'a> Parser<'a> {
    /// Go's `parseClass`: the class at the start of `s` (which begins with `[`) is pushed;
    /// returns what follows it.
    pub(super) fn parse_class(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let mut t = &s[1..];
        let re = self.new_node(Op::CharClass);
        self.nodes[re].flags = self.flags;
        let mut class = Vec::new();
        let mut negated = false;
        if let Some(rest) = t.strip_prefix('^') {
            negated = true;
            t = rest;
            // A class that does not match \n says so here, so negation gets it right.
            if self.flags & CLASS_NL == 0 {
                class.extend(['\n' as i32, '\n' as i32]);
            }
        }
        let mut first = true; // ] and - may come first
        while t.is_empty() || !t.starts_with(']') || first {
            // POSIX: - only first or last; Perl: anywhere.
            if t.starts_with('-') && self.flags & PERL_X == 0 && !first && !t[1..].starts_with(']')
            {
                let size = t[1..].chars().next().map_or(0, char::len_utf8);
                return Err(Error::syntax(ErrorCode::InvalidCharRange, &t[..1 + size]));
            }
            first = false;
            if t.len() > 2 && t.starts_with("[:") {
                if let Some(rest) = self.parse_named_class(t, &mut class)? {
                    t = rest;
                    continue;
                }
            }
            if let Some(rest) = self.parse_unicode_class(t, &mut class)? {
                t = rest;
                continue;
            }
            if let Some(rest) = self.parse_perl_class_escape(t, &mut class)? {
                t = rest;
                continue;
            }
            // One character or a range.
            let range = t;
            let (lo, rest) = self.parse_class_char(t, s)?;
            t = rest;
            let mut hi = lo;
            // [a-] is a or -.
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (h, rest) = self.parse_class_char(&t[1..], s)?;
                t = rest;
                hi = h;
                if hi < lo {
                    let text = &range[..range.len() - t.len()];
                    return Err(Error::syntax(ErrorCode::InvalidCharRange, text));
                }
            }
            if self.flags & FOLD_CASE == 0 {
                ranges::append_range(&mut class, lo, hi);
            } else {
                self.append_folded_range(&mut class, lo, hi)?;
            }
        }
        t = &t[1..]; // the ]
        ranges::clean(&mut class);
        if negated {
            class = ranges::negate(&class);
        }
        self.nodes[re].runes = class;
        self.push(re)?;
        Ok(t)
    }

    /// Go's `parseClassChar`: one character of a class (escapes allowed).
    fn parse_class_char(&self, s: &'a str, whole: &'a str) -> Result<(i32, &'a str), Error> {
        if s.is_empty() {
            return Err(Error::syntax(ErrorCode::MissingBracket, whole));
        }
        if s.starts_with('\\') {
            return self.parse_escape(s);
        }
        Ok(next_rune(s))
    }

    /// Go's `parseNamedClass`: `[:alpha:]` at the start of `s` is appended to `class`; None when
    /// `s` does not start with one. An unknown name is an error.
    fn parse_named_class(
        &mut self,
        s: &'a str,
        class: &mut Vec<i32>,
    ) -> Result<Option<&'a str>, Error> {
        if !s.starts_with("[:") {
            return Ok(None);
        }
        let Some(i) = s[2..].find(":]") else {
            return Ok(None);
        };
        let (name, rest) = s.split_at(i + 4);
        let Some((sign, group)) = ranges::posix_group(name) else {
            return Err(Error::syntax(ErrorCode::InvalidCharRange, name));
        };
        self.append_group(class, sign, group)?;
        Ok(Some(rest))
    }

    /// Go's `parsePerlClassEscape`: `\d`, `\D`, `\s`, `\S`, `\w` or `\W` at the start of `s`
    /// (ASCII classes) is appended to `class`.
    pub(super) fn parse_perl_class_escape(
        &mut self,
        s: &'a str,
        class: &mut Vec<i32>,
    ) -> Result<Option<&'a str>, Error> {
        if self.flags & PERL_X == 0 || s.len() < 2 || !s.is_char_boundary(2) {
            return Ok(None);
        }
        let Some((sign, group)) = ranges::perl_group(&s[..2]) else {
            return Ok(None);
        };
        self.append_group(class, sign, group)?;
        Ok(Some(&s[2..]))
    }

    /// Go's `appendGroup`: a Perl or POSIX group (case-folded under `(?i)`), or its negation.
    fn append_group(
        &mut self,
        class: &mut Vec<i32>,
        sign: i32,
        group: &[i32],
    ) -> Result<(), Error> {
        if self.flags & FOLD_CASE == 0 {
            if sign < 0 {
                ranges::append_negated_class(class, group);
            } else {
                ranges::append_class(class, group);
            }
            return Ok(());
        }
        let mut tmp = Vec::new();
        self.append_folded_class(&mut tmp, group)?;
        ranges::clean(&mut tmp);
        if sign < 0 {
            ranges::append_negated_class(class, &tmp);
        } else {
            ranges::append_class(class, &tmp);
        }
        Ok(())
    }

    /// Go's `parseUnicodeClass`: `\pL`, `\p{Greek}`, `\PL`, `\p{^Greek}` at the start of `s` is
    /// appended to `class`. An unknown name is an error.
    pub(super) fn parse_unicode_class(
        &mut self,
        s: &'a str,
        class: &mut Vec<i32>,
    ) -> Result<Option<&'a str>, Error> {
        if self.flags & UNICODE_GROUPS == 0 || !(s.starts_with("\\p") || s.starts_with("\\P")) {
            return Ok(None);
        }
        let mut negated = s.starts_with("\\P");
        let (c, after) = next_rune(&s[2..]);
        let (seq, mut name, rest) = if c != '{' as i32 {
            // One-letter name.
            let seq = &s[..s.len() - after.len()];
            (seq, &seq[2..], after)
        } else {
            let Some(end) = s.find('}') else {
                return Err(Error::syntax(ErrorCode::InvalidCharRange, s));
            };
            (&s[..end + 1], &s[3..end], &s[end + 1..])
        };
        // \p{^Han} is \P{Han}.
        if let Some(n) = name.strip_prefix('^') {
            negated = !negated;
            name = n;
        }
        let Some(found) = unicode::lookup(name) else {
            return Err(Error::syntax(ErrorCode::InvalidCharRange, seq));
        };
        if found.negated {
            negated = !negated;
        }
        let folded = self.flags & FOLD_CASE != 0 && found.folds;
        let table = self.table(found.table, folded);
        if negated {
            ranges::append_negated_class(class, &table);
        } else {
            ranges::append_class(class, &table);
        }
        Ok(Some(rest))
    }
}
