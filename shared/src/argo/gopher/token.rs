//! The tokens of the front end: their kinds, the reserved words and the token record the parser
//! reads, following gopher-lua v1.1.2 `parse/lexer.go` (`reservedWords`), the `%token`
//! declarations of `parse/parser.go.y` and `ast.Token`.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum T {
    Eof,
    Name,
    Number,
    Str,
    And,
    Break,
    Do,
    Else,
    ElseIf,
    End,
    False,
    For,
    Function,
    Goto,
    If,
    In,
    Local,
    Nil,
    Not,
    Or,
    Repeat,
    Return,
    Then,
    True,
    Until,
    While,
    /// `==`
    Eq,
    /// `~=`
    Ne,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `..`
    Concat,
    /// `...`
    Dots,
    /// `::`
    DColon,
    /// One-character token: `+ - * / % ^ # ( ) { } [ ] ; , . : = < >`.
    Op(u8),
}

pub(super) fn keyword(word: &[u8]) -> Option<T> {
    Some(match word {
        b"and" => T::And,
        b"break" => T::Break,
        b"do" => T::Do,
        b"else" => T::Else,
        b"elseif" => T::ElseIf,
        b"end" => T::End,
        b"false" => T::False,
        b"for" => T::For,
        b"function" => T::Function,
        b"goto" => T::Goto,
        b"if" => T::If,
        b"in" => T::In,
        b"local" => T::Local,
        b"nil" => T::Nil,
        b"not" => T::Not,
        b"or" => T::Or,
        b"repeat" => T::Repeat,
        b"return" => T::Return,
        b"then" => T::Then,
        b"true" => T::True,
        b"until" => T::Until,
        b"while" => T::While,
        _ => return None,
    })
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) t: T,
    /// gopher-lua's `Token.Str`, as bytes.
    pub(super) text: Vec<u8>,
    /// Byte offset of the first character (the input length for the end of input).
    pub(super) start: usize,
    /// Byte offset after the last character consumed.
    pub(super) end: usize,
    /// Line of the last character consumed (never 0).
    pub(super) end_line: usize,
    /// Scanner position after the token, as errors report it (`line == 0`: at EOF).
    pub(super) err_line: usize,
    pub(super) err_col: usize,
    /// A numeral the output replaces by `(0/0)`.
    pub(super) nan_fix: bool,
}
