//! The syntax error the front end reports, as gopher-lua v1.1.2's parser reports it:
//! `parse.Error` in `parse/lexer.go`, with its message texts and its position rules.

use std::fmt;

/// Message of the error for nesting deeper than 200 levels (LuaJIT's wording; gopher-lua has no
/// such limit).
pub const TOO_MANY_LEVELS: &str = "chunk has too many syntax levels";

/// A syntax error as gopher-lua's parser reports it (`parse.Error` in `parse/lexer.go`).
///
/// * `line`, `column`: gopher-lua's scanner position when the error was raised, which is the
///   position of the *last character consumed*, not of the token's start: for a parser error the
///   last character of the offending token (the `=` of `x = = 1` is `line:1(column:5)`), for an
///   unterminated string the newline that ended it (next line, column 0). Lines count from 1 and
///   `\n`, `\r`, `\r\n` and `\n\r` each end one line; columns count bytes from 1. `line == 0`
///   stands for gopher-lua's `Line == EOF`: the scanner had reached the end of the input, and the
///   message then reads `<string> at EOF:   ...` without position or token (column is 0).
/// * `token`: gopher-lua's token string (`ast.Token.Str`): the text of a name, keyword, operator
///   or numeral, the *decoded* contents of a string literal without quotes, the empty string for
///   `.`; for lexer errors the partial text the scanner had collected. Bytes that are not UTF-8
///   (a decoded `"\255"`, a lone byte of a multi-byte character) are replaced by U+FFFD, where
///   gopher-lua prints the raw byte.
/// * `message`: `syntax error` (goyacc's message), `parse error` (a statement that is an
///   expression but not a call, `parser.go.y` rule `stat: prefixexp`), or a lexer message:
///   `unterminated string`, `unterminated multiline string`, `invalid multiline string`,
///   `invalid multiline comment`, `illegal hexadecimal number`, `Invalid '~' token`,
///   `Invalid token`; or [`TOO_MANY_LEVELS`]. (gopher-lua's `ambiguous syntax (function call x
///   new statement)` check never fires in v1.1.2, which accepts `f()\n(g)` as one call, so it is
///   not produced either.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub token: String,
    pub message: String,
}

impl SyntaxError {
    /// gopher-lua's `(*parse.Error).Error()` for a chunk named `chunk` (`LState.Load`'s name:
    /// `<string>` for Argo CD's script, the name a script gives `loadstring`), including its three
    /// spaces and trailing newline: `CHUNK line:1(column:18) near '=':   syntax error\n`, or
    /// `CHUNK at EOF:   syntax error\n` when `line == 0`.
    pub fn text(&self, chunk: &str) -> String {
        if self.line == 0 {
            format!("{chunk} at EOF:   {}\n", self.message)
        } else {
            format!(
                "{chunk} line:{}(column:{}) near '{}':   {}\n",
                self.line, self.column, self.token, self.message
            )
        }
    }
}

impl fmt::Display for SyntaxError {
    /// [`SyntaxError::text`] with chunk name `<string>` (the name `LState.LoadString` passes):
    /// `<string> line:1(column:18) near '=':   syntax error\n`. Argo CD shows this text as the
    /// script's error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text("<string>"))
    }
}

impl std::error::Error for SyntaxError {}

/// A token's bytes as text, with U+FFFD for bytes that are not UTF-8.
pub(super) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::argo::gopher::rewrite;
    use crate::argo::gopher::testing::err;

    // Expected texts follow gopher-lua v1.1.2 `parse/lexer.go`: `Error()` (lines 26-31) prints
    // `<string> line:L(column:C) near 'TOKEN':   MESSAGE\n`, or `<string> at EOF:   MESSAGE\n` once
    // `Next()` has hit the end (line 93 sets `Pos.Line = EOF`); `Lexer.Error` (line 460) reports the
    // scanner position, i.e. the column of the last character read (`Column++`, line 96), and
    // goyacc's message is `syntax error` (`parser.go` line 421). Each was also checked against
    // gopher-lua v1.1.2's `LState.LoadString`.
    #[test]
    fn gopher_syntax_errors() {
        let cases = [
            // Argo CD's example: the second `=` ends at column 18.
            (
                "return {status = = 1}",
                "<string> line:1(column:18) near '=':   syntax error\n",
            ),
            // `stat: prefixexp` action, parser.go.y line 116, raised at the lookahead (EOF).
            ("x", "<string> at EOF:   parse error\n"),
            (
                "(a) = 1",
                "<string> line:1(column:5) near '=':   parse error\n",
            ),
            (
                "x + 1",
                "<string> line:1(column:3) near '+':   parse error\n",
            ),
            (
                "f() + 1",
                "<string> line:1(column:5) near '+':   syntax error\n",
            ),
            // scanString, lexer.go line 190: the newline was read, so line 2, column 0; the token
            // is the text collected so far.
            (
                "x = \"abc\ny\"",
                "<string> line:2(column:0) near 'abc':   unterminated string\n",
            ),
            ("x = \"\\", "<string> at EOF:   unterminated string\n"),
            // lexer.go line 372.
            (
                "x = 1 ~ 2",
                "<string> line:1(column:7) near '~':   Invalid '~' token\n",
            ),
            // lexer.go line 164.
            (
                "x = 0x",
                "<string> line:1(column:6) near '0x':   illegal hexadecimal number\n",
            ),
            // lexer.go line 426.
            (
                "x = @",
                "<string> line:1(column:5) near '@':   Invalid token\n",
            ),
            // `goto` is reserved (reservedWords, lexer.go), so it cannot follow `.`.
            (
                "a.goto = 1",
                "<string> line:1(column:6) near 'goto':   syntax error\n",
            ),
            // scanNumber reads `1.` then `.2`; two numerals in a row.
            (
                "x = 1..2",
                "<string> line:1(column:8) near '.2':   syntax error\n",
            ),
            // `.` has an empty token text.
            (
                "x = 1..y",
                "<string> line:1(column:7) near '':   syntax error\n",
            ),
            // lexer.go line 123 (the comment's long bracket never closes).
            ("--[[ abc", "<string> at EOF:   invalid multiline comment\n"),
            (
                "--[=x",
                "<string> line:1(column:5) near '':   invalid multiline comment\n",
            ),
            // lexer.go line 259: the character that is not `[`.
            (
                "x = [=x",
                "<string> line:1(column:7) near 'x':   invalid multiline string\n",
            ),
            // lexer.go line 267.
            (
                "x = [==[ abc",
                "<string> at EOF:   unterminated multiline string\n",
            ),
            // LoadString does not skip a shebang line.
            (
                "#!/usr/bin/lua",
                "<string> line:1(column:1) near '#':   syntax error\n",
            ),
            // `break` is a `laststat` in parser.go.y: nothing may follow it in its block.
            (
                "while true do break print(1) end",
                "<string> line:1(column:25) near 'print':   syntax error\n",
            ),
            // A string token's text is its decoded contents; the column is its closing quote.
            (
                "x = 1 \"a\\\"b\"",
                "<string> line:1(column:12) near 'a\"b':   syntax error\n",
            ),
            // `\r\n` is one line break.
            (
                "x = 1\r\ny = = 2",
                "<string> line:2(column:5) near '=':   syntax error\n",
            ),
            (
                "return 1 2",
                "<string> line:1(column:10) near '2':   syntax error\n",
            ),
            (
                "return 1;;",
                "<string> line:1(column:10) near ';':   syntax error\n",
            ),
            (
                "x = {,}",
                "<string> line:1(column:6) near ',':   syntax error\n",
            ),
            (
                "function a:b.c() end",
                "<string> line:1(column:13) near '':   syntax error\n",
            ),
            (
                "for a = 1 do end",
                "<string> line:1(column:12) near 'do':   syntax error\n",
            ),
            (
                "x = function(a, ) end",
                "<string> line:1(column:17) near ')':   syntax error\n",
            ),
            (
                "if a then else elseif b then end",
                "<string> line:1(column:21) near 'elseif':   syntax error\n",
            ),
            (
                "local x <const> = 1",
                "<string> line:1(column:9) near '<':   syntax error\n",
            ),
            ("f(\n", "<string> at EOF:   syntax error\n"),
            (
                "local t = {}\nif #t > 0 then\n  return t[1] .. \nend",
                "<string> line:4(column:3) near 'end':   syntax error\n",
            ),
        ];
        for (src, want) in cases {
            assert_eq!(err(src), want, "{src:?}");
        }
    }

    #[test]
    fn syntax_error_fields() {
        let e = rewrite("x = = 1", "C", "L").unwrap_err();
        assert_eq!(
            e,
            SyntaxError {
                line: 1,
                column: 5,
                token: "=".into(),
                message: "syntax error".into()
            }
        );
        let e = rewrite("x = (", "C", "L").unwrap_err();
        assert_eq!(
            (e.line, e.column, e.message.as_str()),
            (0, 0, "syntax error")
        );
    }
}
