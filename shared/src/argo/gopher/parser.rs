//! The parser of the front end, following gopher-lua v1.1.2 `parse/parser.go.y`: the parser state,
//! its error reporting, chunks, blocks and statements (the `chunk`, `block`, `stat`, `laststat`,
//! `funcname` and `funcbody` rules). It accepts exactly the statements gopher-lua's parser accepts
//! and records the statement-level edits (empty statements, parenthesised calls as statements, a
//! `;` before a statement LuaJIT would read as a call). Expressions are in [`super::expr`].

use super::edit::{Edits, Text, CLOSE, OPEN, SEP};
use super::error::{lossy, SyntaxError, TOO_MANY_LEVELS};
use super::expr::{starts_expression, Exp, Kind};
use super::routes::KEEP_FN;
use super::scanner::Scanner;
use super::scope::FuncScope;
use super::token::{Token, T};

/// Deepest nesting of blocks and expressions accepted (LuaJIT's `LJ_MAX_XLEVEL`); deeper input is
/// rejected with [`TOO_MANY_LEVELS`] instead of overflowing the stack.
const MAX_DEPTH: u32 = 200;

pub(super) struct Parser<'a> {
    pub(super) sc: Scanner<'a>,
    pub(super) tok: Token,
    ahead: Option<Token>,
    /// End offset and end line of the previously consumed token.
    pub(super) prev_end: usize,
    pub(super) prev_end_line: usize,
    /// End of the last expression the output closes with an inserted `)` (a rewritten `..` chain
    /// or `#`, a numeral replaced by `(0/0)`): unlike the source, it ends with a prefix expression
    /// there, which a following `(` would call.
    pub(super) closed_at: usize,
    /// Positions of `(` and `)` around parenthesised calls, innermost first.
    pub(super) paren_log: Vec<(usize, usize)>,
    /// Text of the last token read before the end of input (gopher-lua's `Lexer.Token.Str`).
    last_text: Vec<u8>,
    pub(super) depth: u32,
    /// How many routed table constructors enclose the current position (see `Parser::table`).
    pub(super) routed_tables: u32,
    pub(super) edits: Edits,
    /// The functions being parsed, innermost last, with the locals they declare (`scope`).
    pub(super) funcs: Vec<FuncScope>,
    /// The error that stopped the parse (see [`Stop`]).
    pub(super) failure: Option<SyntaxError>,
}

/// The parse stopped; the error is in [`Parser::failure`]. A zero-sized error keeps the
/// recursive functions' frames small (unoptimised builds give every `?` its own stack slots), so
/// [`MAX_DEPTH`] levels fit in a 2 MiB thread stack.
#[derive(Debug)]
pub(super) struct Stop;

pub(super) type PResult<T> = Result<T, Stop>;

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a [u8]) -> Result<Self, SyntaxError> {
        let mut sc = Scanner::new(src);
        let tok = sc.scan()?;
        Ok(Parser {
            sc,
            tok,
            ahead: None,
            prev_end: 0,
            prev_end_line: 1,
            closed_at: usize::MAX,
            paren_log: Vec::new(),
            last_text: Vec::new(),
            depth: 0,
            routed_tables: 0,
            edits: Edits::default(),
            funcs: Vec::new(),
            failure: None,
        })
    }

    pub(super) fn advance(&mut self) -> PResult<()> {
        let next = match self.ahead.take() {
            Some(t) => t,
            None => self.scan()?,
        };
        let old = std::mem::replace(&mut self.tok, next);
        self.prev_end = old.end;
        self.prev_end_line = old.end_line;
        if old.nan_fix {
            self.closed_at = old.end;
        }
        if self.tok.t == T::Eof && old.t != T::Eof {
            self.last_text = old.text;
        }
        Ok(())
    }

    fn scan(&mut self) -> PResult<Token> {
        self.sc.scan().map_err(|e| {
            self.failure = Some(e);
            Stop
        })
    }

    pub(super) fn peek(&mut self) -> PResult<T> {
        if self.ahead.is_none() {
            self.ahead = Some(self.scan()?);
        }
        Ok(self.ahead.as_ref().map_or(T::Eof, |t| t.t))
    }

    /// The error gopher-lua reports at the current token.
    pub(super) fn error(&self, message: &str) -> SyntaxError {
        // With a token read ahead, the scanner (and gopher-lua's last token) is past it; errors
        // are only raised once that token is current, so this is the same position.
        let tok = &self.tok;
        if tok.t == T::Eof || tok.err_line == 0 {
            let text = if tok.t == T::Eof {
                &self.last_text
            } else {
                &tok.text
            };
            return SyntaxError {
                line: 0,
                column: 0,
                token: lossy(text),
                message: message.to_string(),
            };
        }
        SyntaxError {
            line: tok.err_line,
            column: tok.err_col,
            token: lossy(&tok.text),
            message: message.to_string(),
        }
    }

    /// Records the error at the current token.
    fn fail(&mut self, message: &str) -> Stop {
        self.failure = Some(self.error(message));
        Stop
    }

    pub(super) fn syntax_error<R>(&mut self) -> PResult<R> {
        Err(self.fail("syntax error"))
    }

    pub(super) fn expect(&mut self, t: T) -> PResult<()> {
        if self.tok.t != t {
            return self.syntax_error();
        }
        self.advance()
    }

    pub(super) fn name(&mut self) -> PResult<()> {
        self.expect(T::Name)
    }

    pub(super) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.fail(TOO_MANY_LEVELS));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Replaces the one-byte token at `pos` (`;`, `,`, `(`, `)`) by a space.
    pub(super) fn blank(&mut self, pos: usize) {
        self.edits.deletes.push((pos, pos + 1));
        self.edits.insert(pos, SEP, 0, Text::Static(" "));
    }

    pub(super) fn chunk(&mut self) -> PResult<()> {
        self.open_function();
        self.block()?;
        self.expect(T::Eof)
    }

    /// A block in a scope of its own.
    fn block(&mut self) -> PResult<()> {
        self.open_block();
        self.statements()?;
        self.close_block();
        Ok(())
    }

    /// `block: chunk1 [laststat [';']]`, `chunk1: {stat | ';'}`. Stops at any token that cannot
    /// continue it; the caller checks that token.
    fn statements(&mut self) -> PResult<()> {
        self.enter()?;
        // A statement just ended and no `;` followed it: LuaJIT accepts one `;` here.
        let mut after_stat = false;
        loop {
            match self.tok.t {
                T::Op(b';') => {
                    if !after_stat {
                        self.blank(self.tok.start);
                    }
                    after_stat = false;
                    self.advance()?;
                }
                T::Return => {
                    self.advance()?;
                    if starts_expression(self.tok.t) {
                        let first = self.expr()?;
                        if self.tok.t == T::Op(b',') {
                            self.advance()?;
                            self.expr_list()?;
                        } else if first.rewritten {
                            // `return f(x)` is a tail call in LuaJIT, and a function called so
                            // cannot report the caller's line (`error(msg, 2)`); `return (f(x))`
                            // is not, and also returns one value.
                            self.edits.insert(first.start, OPEN, 0, Text::Static("("));
                            self.edits.insert(first.end, CLOSE, 0, Text::Static(")"));
                        } else if first.kind == Kind::Call && first.parens == 0 {
                            // gopher-lua checks the callee and calls a Go function in tail
                            // position from the caller's frame (vm.go OP_TAILCALL), so a
                            // non-function callee or a library error carries the caller's line;
                            // LuaJIT's tail call drops that frame first. KEEP passes every value
                            // on, and keeps the frame.
                            self.edits.insert(
                                first.start,
                                OPEN,
                                0,
                                Text::Owned(format!("{KEEP_FN}(")),
                            );
                            self.edits.insert(first.end, CLOSE, 0, Text::Static(")"));
                        }
                    }
                    if self.tok.t == T::Op(b';') {
                        self.advance()?;
                    }
                    break;
                }
                T::Break => {
                    self.advance()?;
                    if self.tok.t == T::Op(b';') {
                        self.advance()?;
                    }
                    break;
                }
                T::Eof | T::End | T::Else | T::ElseIf | T::Until => break,
                _ => {
                    self.statement(after_stat)?;
                    after_stat = true;
                }
            }
        }
        self.leave();
        Ok(())
    }

    fn statement(&mut self, after_stat: bool) -> PResult<()> {
        match self.tok.t {
            T::Do => {
                self.advance()?;
                self.block()?;
                self.expect(T::End)
            }
            T::While => self.while_statement(),
            T::Repeat => {
                // The block's locals are visible in the `until` expression.
                self.advance()?;
                self.open_block();
                self.statements()?;
                self.expect(T::Until)?;
                self.expr()?;
                self.close_block();
                Ok(())
            }
            T::If => self.if_statement(),
            T::For => self.for_statement(),
            T::Function => self.function_statement(),
            T::Local => self.local_statement(),
            T::DColon => {
                self.advance()?;
                self.name()?;
                self.expect(T::DColon)
            }
            T::Goto => {
                self.advance()?;
                self.name()
            }
            T::Name | T::Op(b'(') => self.expr_statement(after_stat),
            _ => self.syntax_error(),
        }
    }

    fn while_statement(&mut self) -> PResult<()> {
        self.advance()?;
        self.expr()?;
        self.expect(T::Do)?;
        self.block()?;
        self.expect(T::End)
    }

    fn if_statement(&mut self) -> PResult<()> {
        self.advance()?;
        self.expr()?;
        self.expect(T::Then)?;
        self.block()?;
        while self.tok.t == T::ElseIf {
            self.advance()?;
            self.expr()?;
            self.expect(T::Then)?;
            self.block()?;
        }
        if self.tok.t == T::Else {
            self.advance()?;
            self.block()?;
        }
        self.expect(T::End)
    }

    fn for_statement(&mut self) -> PResult<()> {
        self.advance()?;
        let mut names = vec![self.tok.text.clone()];
        self.name()?;
        if self.tok.t == T::Op(b'=') {
            self.advance()?;
            let init = self.expr()?;
            self.expect(T::Op(b','))?;
            let limit = self.expr()?;
            let mut step = None;
            if self.tok.t == T::Op(b',') {
                self.advance()?;
                step = Some(self.expr()?);
            }
            self.numeric_for(&init, &limit, step.as_ref());
        } else {
            while self.tok.t == T::Op(b',') {
                self.advance()?;
                names.push(self.tok.text.clone());
                self.name()?;
            }
            self.expect(T::In)?;
            self.expr_list()?;
        }
        self.expect(T::Do)?;
        self.open_block();
        for n in &names {
            self.declare(n);
        }
        self.block()?;
        self.close_block();
        self.expect(T::End)
    }

    /// `function funcname funcbody`, `funcname: Name {'.' Name} [':' Name]`.
    fn function_statement(&mut self) -> PResult<()> {
        self.advance()?;
        self.name()?;
        while self.tok.t == T::Op(b'.') {
            self.advance()?;
            self.name()?;
        }
        let mut method = false;
        if self.tok.t == T::Op(b':') {
            self.advance()?;
            self.name()?;
            method = true;
        }
        self.func_body(method)
    }

    fn local_statement(&mut self) -> PResult<()> {
        self.advance()?;
        if self.tok.t == T::Function {
            self.advance()?;
            let name = self.tok.text.clone();
            self.name()?;
            self.declare(&name);
            return self.func_body(false);
        }
        let mut names = vec![self.tok.text.clone()];
        self.name()?;
        while self.tok.t == T::Op(b',') {
            self.advance()?;
            names.push(self.tok.text.clone());
            self.name()?;
        }
        if self.tok.t == T::Op(b'=') {
            self.advance()?;
            self.expr_list()?;
        }
        for n in &names {
            self.declare(n);
        }
        Ok(())
    }

    /// `stat: varlist '=' exprlist | prefixexp` where the prefix expression must be a call
    /// (otherwise gopher-lua's action raises `parse error`, at the token after it).
    fn expr_statement(&mut self, after_stat: bool) -> PResult<()> {
        // A `(` right after an inserted `)` would call it in LuaJIT.
        let after_close = self.closed_at == self.prev_end && self.tok.t == T::Op(b'(');
        let mark = self.paren_log.len();
        let e = self.suffixed()?;
        // `(` at the start of a statement would continue the previous one in LuaJIT: a `;` goes
        // before it, unless the statement becomes a block of its own (`compat`).
        let needs_semicolon = after_stat && (e.wrapped || after_close);
        if e.kind == Kind::Call && e.parens > 0 {
            // LuaJIT (like Lua 5.1) rejects `(f())` as a statement; gopher-lua accepts it. The
            // parentheses only truncate results, which a statement discards: blank them.
            let n = e.parens as usize;
            let pairs = self.paren_log.len().saturating_sub(n);
            for (open, close) in self.paren_log.split_off(pairs) {
                self.blank(open);
                self.blank(close);
            }
        }
        self.paren_log.truncate(mark);
        let t = self.tok.t;
        if e.kind == Kind::Var && (t == T::Op(b'=') || t == T::Op(b',')) {
            let mut targets: Vec<Exp> = vec![e];
            let mut commas = Vec::new();
            while self.tok.t == T::Op(b',') {
                commas.push(self.tok.start);
                self.advance()?;
                let v = self.suffixed()?;
                if v.kind != Kind::Var {
                    return self.syntax_error();
                }
                targets.push(v);
            }
            let eq = self.tok.start;
            self.expect(T::Op(b'='))?;
            let (exprs, expr_commas) = self.expr_list_spans()?;
            let block = self.assignment(&targets, &commas, eq, &exprs, &expr_commas);
            if needs_semicolon && !block {
                self.edits.insert(e.start, OPEN, 0, Text::Static(";"));
            }
            return Ok(());
        }
        if needs_semicolon {
            self.edits.insert(e.start, OPEN, 0, Text::Static(";"));
        }
        if e.kind != Kind::Call {
            return Err(self.fail("parse error"));
        }
        Ok(())
    }

    /// `funcbody: '(' [parlist] ')' block 'end'`; a method (`function a:m()`) has `self`.
    pub(super) fn func_body(&mut self, method: bool) -> PResult<()> {
        self.expect(T::Op(b'('))?;
        let mut params = Vec::new();
        if method {
            params.push(b"self".to_vec());
        }
        let mut vararg = false;
        if self.tok.t != T::Op(b')') {
            if self.tok.t == T::Dots {
                self.advance()?;
                vararg = true;
            } else {
                params.push(self.tok.text.clone());
                self.name()?;
                while self.tok.t == T::Op(b',') {
                    self.advance()?;
                    if self.tok.t == T::Dots {
                        self.advance()?;
                        vararg = true;
                        break;
                    }
                    params.push(self.tok.text.clone());
                    self.name()?;
                }
            }
        }
        self.expect(T::Op(b')'))?;
        let body = self.prev_end;
        self.open_function();
        for p in &params {
            self.declare(p);
        }
        if vararg {
            // gopher's compat `arg` local (see `vararg_arg`).
            self.declare(b"arg");
        }
        self.block()?;
        let scope = self.close_function();
        if vararg {
            self.vararg_arg(body, scope.dots_used);
        }
        self.expect(T::End)
    }
}

#[cfg(test)]
mod tests {
    use crate::argo::gopher::error::TOO_MANY_LEVELS;
    use crate::argo::gopher::rewrite;
    use crate::argo::gopher::testing::{err, rw};

    #[test]
    fn every_statement_form() {
        let src = r#"local a, b = 1, 2
local c
local function f(x, y, ...) return x, y, ... end
function g() end
function t.a.b:c(d) return self end
a, t.x, t[1] = 1, 2, 3
f(1)(2)
t:m "s" {1} [[z]]
t.m{a = 1; [2] = 3, 4,}
do local z = #a end
while a < b do a = a + 1 break end
repeat a = a - 1 until a == 0 or #t > 1
if a then b = 1 elseif c then b = 2 else b = 3 end
for i = 1, 10, 2 do end
for k, v in pairs(t) do goto continue ::continue:: end
::top:: goto top
x = function(...) local n = select('#', ...) return n end
x = {f(), (f()), ...}
x = a and b or not c
x = -a ^ -b
x = 0x1F + 1e-5 * .5 % 3.
return a .. b;
"#;
        let want = r#"local a, b = 1, 2
local c
local function f(x, y, ...) local arg; return x, y, ... end
function g() end
function t.a.b:c(d) return self end
a, t.x, t[1] = 1, 2, 3
f(1)(2)
t:m "s" (__pacto_tab({1})) [[z]]
t.m(__pacto_tab({a = 1; [__pacto_key((2))] = 3, 4,}, "a", false))
do local z = LEN((a)) end
while a < b do a = __pacto_add((a), (1)) break end
repeat a = __pacto_sub((a), (1)) until a == 0 or LEN((t)) > 1
if a then b = 1 elseif c then b = 2 else b = 3 end
for i = __pacto_for(1, 10, (2)), __pacto_forlimit(), __pacto_forstep() do end
for k, v in pairs(t) do goto continue ::continue:: end
::top:: goto top
x = function(...) local arg; local n = select('#', ...) return n end
x = __pacto_tab({f(), (f()), ...})
x = a and b or not c
x = __pacto_unm((__pacto_pow((a), (__pacto_unm((b))))))
x = __pacto_add((0x1F), (__pacto_mod((1e-5 * .5), (3.))))
return (CONCAT((a), (b)));
"#;
        assert_eq!(rw(src), want);
    }

    /// A lone returned call is wrapped so that LuaJIT makes no tail call of it (gopher-lua
    /// vm.go OP_TAILCALL checks the callee, and calls Go functions, from the caller's frame).
    #[test]
    fn returned_calls_keep_the_frame() {
        for (src, want) in [
            ("return f(x)", "return __pacto_keep(f(x))"),
            (
                "return string.find(s, p)",
                "return __pacto_keep(string.find(s, p))",
            ),
            (
                "return t:m{1}",
                "return __pacto_keep(t:m(__pacto_tab({1})))",
            ),
            ("return (f(x))", "return (f(x))"),
            ("return f(x), g(y)", "return f(x), g(y)"),
            ("return f", "return f"),
            (
                "local function h() return h() end",
                "local function h() return __pacto_keep(h()) end",
            ),
        ] {
            assert_eq!(rw(src), want, "{src}");
        }
    }

    #[test]
    fn goto_and_labels() {
        let src = "for _, c in ipairs(cs) do\n  if c.x == nil then goto continue end\n  n = n .. c.x\n  ::continue::\nend\n";
        assert_eq!(
            rw(src),
            "for _, c in ipairs(cs) do\n  if c.x == nil then goto continue end\n  n = CONCAT((n), (c.x))\n  ::continue::\nend\n"
        );
        assert_eq!(rw(":: a ::"), ":: a ::");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("x = {}1{}", "(".repeat(300), ")".repeat(300));
        assert_eq!(
            err(&deep),
            "<string> line:1(column:204) near '(':   chunk has too many syntax levels\n"
        );
        let blocks = format!("{}{}", "do ".repeat(300), "end ".repeat(300));
        assert!(err(&blocks).ends_with(":   chunk has too many syntax levels\n"));
        for prefix in [
            "- ",
            "not ",
            "#",
            "2^",
            "{",
            "f(",
            "a[",
            "function() return ",
        ] {
            let src = format!("x = {}1", prefix.repeat(300));
            assert!(err(&src).contains(TOO_MANY_LEVELS), "{prefix}");
        }
        // Long flat chains are loops, not recursion.
        let chain = format!("x = a{}", " .. a".repeat(5000));
        assert!(rw(&chain).starts_with("x = CONCAT((a), (a), (a)"));
        let sum = format!("x = a{}", " + a".repeat(5000));
        assert!(rw(&sum).starts_with("x = __pacto_add((__pacto_add(("));
        // Nesting within the limit works.
        let ok = format!("x = {}1{}", "(".repeat(150), ")".repeat(150));
        assert_eq!(rw(&ok), ok);
    }

    #[test]
    fn arbitrary_input_does_not_panic() {
        let sample = "local a = {x = \"s\\\"\", [1] = [==[ ]] ]==]} --[[ c ]] \nfor i = 1, #a do a[i] = a[i] .. 0x1F .. 1e-3 end\nreturn (f(...)):m{}:n\"\" , 'q' ~= nil, ::l:: goto l";
        for end in 0..=sample.len() {
            if sample.is_char_boundary(end) {
                let _ = rewrite(&sample[..end], "C", "L");
                let _ = rewrite(&sample[end..], "C", "L");
            }
        }
        for junk in [
            "\0", "\u{e9}", "\u{a0}x", "\\", "]]", "[[", "'", "\"\\", "0x", "1e", "..", "...",
            "::", "~", "\u{feff}", "\r", "\n\r",
        ] {
            let _ = rewrite(junk, "C", "L");
            let _ = rewrite(&format!("x = {junk}"), "C", "L");
        }
    }
}
