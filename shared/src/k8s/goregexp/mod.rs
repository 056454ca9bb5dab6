//! Go's regular expressions, as `regexp.Compile` reads and `Regexp.MatchString` matches them.
//!
//! Flux verifies a keyless signature against `spec.verify.matchOIDCIdentity` by handing the
//! issuer and subject patterns to cosign (fluxcd/source-controller
//! `internal/controller/ocirepository_controller.go`: `cosign.Identity{IssuerRegExp: ...,
//! SubjectRegExp: ...}`), which compiles each with Go's `regexp.Compile` and matches the
//! certificate's issuer and subject alternative names with `MatchString` (sigstore/cosign
//! `pkg/cosign/verify.go`, `CheckCertificatePolicy`; sigstore-go
//! `pkg/verify/certificate_identity.go`). A pattern therefore means what Go's `regexp/syntax`
//! makes of it, which is not what the regex crate makes of the same text: Go's `\w`, `\d`,
//! `\s` and `\b` are ASCII, `$` is only the end of the text, `(?P<n>…)`, `\Q…\E` and `\C`
//! differ, and Go refuses counts above 1000.
//!
//! So a pattern is parsed here as Go parses it (`parse.rs`, `class.rs`, `tree.rs`, `factor.rs`:
//! `regexp/syntax/parse.go` with the flags `syntax.Perl`), refused with Go's error text where
//! Go refuses it ([`Error::Syntax`], `error.rs`), within Go's bounds as Go measures them
//! (`limits.rs`: `expression too large`, `expression nests too deeply`, repeat counts), and the
//! tree Go builds is handed to the regex crate's engine with every class spelled out as Go's
//! ranges (`translate.rs`, `ranges.rs`). A pattern Go accepts but that is too large for this
//! tool to evaluate is [`Error::TooLarge`].
//!
//! Unicode classes (`\pL`, `\p{Greek}`) and case folding follow Go 1.26's package `unicode`
//! (Unicode 15.0.0), names and all (`unicode.rs`).
//!
//! The tests compare with what Go itself answers: `testdata/oracle` is a Go program (no
//! dependencies) that prints, for the patterns of `testdata/cases.txt` and Go's RE2 search
//! table, whether `regexp.Compile` accepts each, its error text, its parse tree and
//! `MatchString` on subjects; `testdata/go.json` is its output.

mod class;
mod error;
mod factor;
mod limits;
mod parse;
mod ranges;
mod translate;
mod tree;
mod unicode;

#[cfg(test)]
mod tests;

pub use error::{Error, ErrorCode};
pub(crate) use unicode::{is_digit, is_letter};

use tree::{Id, Op, Tree};

/// A pattern compiled as Go's `regexp.Compile` compiles it.
#[derive(Debug, Clone)]
pub struct Regexp {
    matcher: regex_automata::meta::Regex,
    ends_at_end_of_text: bool,
}

/// Compiles `pattern` as Go's `regexp.Compile(pattern)` does.
///
/// Errors: [`Error::Syntax`] with Go's text when Go refuses the pattern (``error parsing
/// regexp: invalid repeat count: `{1001}` ``); [`Error::TooLarge`] when Go accepts it but it
/// exceeds this tool's bounds (more than 262,144 runes, class ranges and operators, or an
/// automaton above 4 MiB). Time and memory are linear in the pattern's length within those
/// bounds; no input makes it run long.
pub fn compile(pattern: &str) -> Result<Regexp, Error> {
    let tree = parse::parse(pattern, tree::PERL)?;
    let matcher = translate::compile(&tree)?;
    Ok(Regexp {
        ends_at_end_of_text: ends_at_end_of_text(&tree),
        matcher,
    })
}

impl Regexp {
    /// Whether `text` holds a match anywhere (Go's `MatchString`: not anchored unless the
    /// pattern is).
    pub fn is_match(&self, text: &str) -> bool {
        self.matcher.is_match(text)
    }

    /// Whether the pattern's last element, as Go reads it, is the end of the text (`$` without
    /// `(?m)`, or `\z`), following the last branch of an alternation and the last part of a
    /// group. A final `$` under `(?m)` is the end of a line, and one inside `\Q…\E` a literal.
    pub fn ends_at_end_of_text(&self) -> bool {
        self.ends_at_end_of_text
    }
}

fn ends_at_end_of_text(tree: &Tree) -> bool {
    let mut id: Id = tree.root;
    loop {
        let node = &tree.nodes[id];
        match node.op {
            Op::EndText => return true,
            Op::Concat | Op::Alternate | Op::Capture => match node.sub.last() {
                Some(&last) => id = last,
                None => return false,
            },
            _ => return false,
        }
    }
}
