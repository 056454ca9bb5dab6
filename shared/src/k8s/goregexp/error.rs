//! Why a pattern is refused: Go's own error, worded as `regexp/syntax` words it
//! (`regexp/syntax/parse.go`: `Error`, `ErrorCode`), or this tool's size bound on a pattern Go
//! accepts.

/// The failure codes of Go's `regexp/syntax` (`ErrorCode`), each with Go's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// `regexp/syntax: internal error` (Go never returns it for a pattern it could read).
    InternalError,
    /// `invalid character class`.
    InvalidCharClass,
    /// `invalid character class range`: `[z-a]`, `[[:foo:]]`, `\p{Foo}`.
    InvalidCharRange,
    /// `invalid escape sequence`: `\x`, `\C`, `\8`, `\Z`.
    InvalidEscape,
    /// `invalid named capture`: `(?P<>a)`, `(?P<x y>a)`.
    InvalidNamedCapture,
    /// `invalid or unsupported Perl syntax`: `(?=a)`, `(?'n'a)`, `(?P=n)`.
    InvalidPerlOp,
    /// `invalid nested repetition operator`: `a**`, `a{1}*`.
    InvalidRepeatOp,
    /// `invalid repeat count`: `x{1001}`, `x{2,1}`, nested repeats above 1000 copies.
    InvalidRepeatSize,
    /// `invalid UTF-8` (not reachable from a Rust string, kept for the table).
    InvalidUtf8,
    /// `missing closing ]`.
    MissingBracket,
    /// `missing closing )`.
    MissingParen,
    /// `missing argument to repetition operator`: `*`, `\Q\E*`.
    MissingRepeatArgument,
    /// `trailing backslash at end of expression`.
    TrailingBackslash,
    /// `unexpected )`.
    UnexpectedParen,
    /// `expression nests too deeply`: a parse tree more than 1000 levels high.
    NestingDepth,
    /// `expression too large`: more than Go's 3,355,443 instructions or 33,554,432 class runes.
    Large,
}

impl ErrorCode {
    /// Go's text of the code (`ErrorCode.String()`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InternalError => "regexp/syntax: internal error",
            ErrorCode::InvalidCharClass => "invalid character class",
            ErrorCode::InvalidCharRange => "invalid character class range",
            ErrorCode::InvalidEscape => "invalid escape sequence",
            ErrorCode::InvalidNamedCapture => "invalid named capture",
            ErrorCode::InvalidPerlOp => "invalid or unsupported Perl syntax",
            ErrorCode::InvalidRepeatOp => "invalid nested repetition operator",
            ErrorCode::InvalidRepeatSize => "invalid repeat count",
            ErrorCode::InvalidUtf8 => "invalid UTF-8",
            ErrorCode::MissingBracket => "missing closing ]",
            ErrorCode::MissingParen => "missing closing )",
            ErrorCode::MissingRepeatArgument => "missing argument to repetition operator",
            ErrorCode::TrailingBackslash => "trailing backslash at end of expression",
            ErrorCode::UnexpectedParen => "unexpected )",
            ErrorCode::NestingDepth => "expression nests too deeply",
            ErrorCode::Large => "expression too large",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why [`compile`](super::compile) refuses a pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Go's `regexp.Compile` refuses it; the text is Go's, word for word:
    /// ``error parsing regexp: invalid repeat count: `{1001}` `` (`expr` is the part of the
    /// pattern Go names: the whole pattern for `missing closing )`, `unexpected )`,
    /// `expression too large` and `expression nests too deeply`).
    #[error("error parsing regexp: {code}: `{expr}`")]
    Syntax {
        /// The failure.
        code: ErrorCode,
        /// The part of the pattern Go quotes.
        expr: String,
    },
    /// Go accepts it, but it is larger than this tool evaluates: the text names the bound.
    #[error("{0}")]
    TooLarge(String),
}

impl Error {
    pub(super) fn syntax(code: ErrorCode, expr: &str) -> Error {
        Error::Syntax {
            code,
            expr: expr.to_string(),
        }
    }
}
