//! Expressions of the parser, following gopher-lua v1.1.2 `parse/parser.go.y` (the `expr`,
//! `prefixexp`, `args`, `tableconstructor` and `field` rules and the precedence table): where the
//! binary `..` chains and unary `#` the sandbox routes through its own functions begin and end,
//! and the expression-level edits (a call whose `(` starts on a later line, repeated table
//! separators).

use super::constructor::Route;
use super::edit::{Text, CLOSE, OPEN, SEP};
use super::parser::{PResult, Parser};
use super::routes::ARITH_FNS;
use super::token::T;

/// What an expression is, as far as statements care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Assignable: a name, `e.name` or `e[k]`.
    Var,
    /// A function call, possibly parenthesised (gopher-lua keeps `(f())` a call expression).
    Call,
    Other,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Exp {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: Kind,
    /// A callee was parenthesised at `start` (see [`Parser::suffixed`]).
    pub(super) wrapped: bool,
    /// For a call in parentheses, `(f())`, the number of parenthesis pairs around it; their
    /// positions are the last entries of [`Parser::paren_log`].
    pub(super) parens: u32,
    /// The expression is a rewritten `..` chain, `#` or arithmetic (a call in the output).
    pub(super) rewritten: bool,
    /// The expression is a numeral, possibly negated: arithmetic on numerals alone is kept.
    pub(super) numeral: bool,
    /// The expression is one literal token: `nil`, `true`, `false`, a numeral or a string.
    pub(super) constant: bool,
    /// The expression is one name token.
    pub(super) name: bool,
    /// The expression is `...`.
    pub(super) dots: bool,
    /// For `e.name` and `e[k]`, the last index (see [`Index`]).
    pub(super) index: Option<Index>,
}

/// The last index of an assignable expression `p.name` or `p[k]`: where the object `p` ends (the
/// `.` or `[`), the key's span (the name, or the expression `k`), the `]`, and whether `p` is one
/// name token.
#[derive(Debug, Clone, Copy)]
pub(super) struct Index {
    pub(super) at: usize,
    pub(super) dot: bool,
    pub(super) key_start: usize,
    pub(super) key_end: usize,
    /// The `]` of `p[k]`.
    pub(super) close: usize,
    pub(super) object_is_name: bool,
}

impl Exp {
    /// An expression with nothing but its span and kind known.
    pub(super) fn plain(start: usize, end: usize, kind: Kind) -> Exp {
        Exp {
            start,
            end,
            kind,
            wrapped: false,
            parens: 0,
            rewritten: false,
            numeral: false,
            constant: false,
            name: false,
            dots: false,
            index: None,
        }
    }

    /// A call or `...` whose every value a list of expressions takes when it comes last.
    pub(super) fn multi_valued(&self) -> bool {
        (self.kind == Kind::Call && self.parens == 0) || self.dots
    }
}

/// A run of one arithmetic operator being parsed: the operator, the operands' `(start, end,
/// numeral)`, and the operators' positions.
type ArithRun = (u8, Vec<(usize, usize, bool)>, Vec<usize>);

fn arith_fn(op: u8) -> &'static str {
    ARITH_FNS
        .iter()
        .find(|(o, _)| *o == op)
        .map(|(_, n)| *n)
        .unwrap_or("__pacto_unm")
}

/// Binary operator priorities `(left, right)` as Lua 5.1's `lparser.c` numbers them; they give
/// the same trees as the precedence declarations of `parser.go.y`.
fn binary_priority(t: T) -> Option<(u8, u8)> {
    Some(match t {
        T::Or => (1, 1),
        T::And => (2, 2),
        T::Eq | T::Ne | T::Le | T::Ge | T::Op(b'<') | T::Op(b'>') => (3, 3),
        T::Concat => (5, 4),
        T::Op(b'+') | T::Op(b'-') => (6, 6),
        T::Op(b'*') | T::Op(b'/') | T::Op(b'%') => (7, 7),
        T::Op(b'^') => (10, 9),
        _ => return None,
    })
}

const UNARY_PRIORITY: u8 = 8;
const CONCAT_LEFT: u8 = 5;

pub(super) fn starts_expression(t: T) -> bool {
    matches!(
        t,
        T::Nil
            | T::False
            | T::True
            | T::Number
            | T::Str
            | T::Dots
            | T::Function
            | T::Name
            | T::Not
            | T::Op(b'(' | b'{' | b'-' | b'#')
    )
}

impl Parser<'_> {
    pub(super) fn expr_list(&mut self) -> PResult<()> {
        self.expr_list_spans().map(|_| ())
    }

    /// `exprlist`, with each expression and the position of each `,` between them.
    pub(super) fn expr_list_spans(&mut self) -> PResult<(Vec<Exp>, Vec<usize>)> {
        let mut exps = vec![self.expr()?];
        let mut commas = Vec::new();
        while self.tok.t == T::Op(b',') {
            commas.push(self.tok.start);
            self.advance()?;
            exps.push(self.expr()?);
        }
        Ok((exps, commas))
    }

    pub(super) fn expr(&mut self) -> PResult<Exp> {
        self.subexpr(0)
    }

    /// An expression whose binary operators all have a left priority above `limit`.
    fn subexpr(&mut self, limit: u8) -> PResult<Exp> {
        self.enter()?;
        let key = self.depth * 4;
        let start = self.tok.start;
        let mut e = match self.tok.t {
            T::Not | T::Op(b'-') | T::Op(b'#') => {
                let op = self.tok.t;
                self.advance()?;
                let operand = self.subexpr(UNARY_PRIORITY)?;
                let negated_numeral = op == T::Op(b'-') && operand.numeral;
                let unm = op == T::Op(b'-') && !operand.numeral;
                if op == T::Op(b'#') || unm {
                    self.edits.deletes.push((start, start + 1));
                    let open = if unm {
                        Text::Owned(format!("{}((", arith_fn(b'u')))
                    } else {
                        Text::LenOpen
                    };
                    self.edits.insert(start, OPEN, key + 1, open);
                    self.edits
                        .insert(operand.end, CLOSE, key + 1, Text::Static("))"));
                    self.closed_at = operand.end;
                }
                Exp {
                    rewritten: op == T::Op(b'#') || unm,
                    numeral: negated_numeral,
                    ..Exp::plain(start, operand.end, Kind::Other)
                }
            }
            _ => self.simple()?,
        };
        // A run of one arithmetic operator (`a + b + c`) is routed as one call, `F((a), (b),
        // (c))`, folded left to right as gopher evaluates it: no nesting LuaJIT could find too
        // deep. `(op, operand spans, operator positions)`.
        let mut chain: Option<ArithRun> = None;
        while let Some((left, right)) = binary_priority(self.tok.t) {
            if left <= limit {
                break;
            }
            let op = match self.tok.t {
                T::Op(c @ (b'+' | b'-' | b'*' | b'/' | b'%' | b'^')) => Some(c),
                _ => None,
            };
            if chain.as_ref().is_some_and(|(c, _, _)| Some(*c) != op) {
                self.flush_arith(chain.take(), key);
            }
            if self.tok.t == T::Concat {
                e.end = self.concat_chain(e.start, e.end, key)?;
                e.rewritten = true;
            } else if let Some(op) = op {
                let op_at = self.tok.start;
                self.advance()?;
                let rhs = self.subexpr(right)?;
                let c =
                    chain.get_or_insert_with(|| (op, vec![(e.start, e.end, e.numeral)], vec![]));
                c.1.push((rhs.start, rhs.end, rhs.numeral));
                c.2.push(op_at);
                e.end = rhs.end;
                // gopher folds `%` on numerals with its luaModulo, which LuaJIT's folding does
                // not match (`1e17 % 3`): a `%` is always routed.
                e.numeral = e.numeral && rhs.numeral && op != b'%';
                e.rewritten = !e.numeral;
            } else {
                self.advance()?;
                e.end = self.subexpr(right)?.end;
                e.rewritten = false;
            }
            if op.is_none() {
                e.numeral = false;
            }
            e.kind = Kind::Other;
            e.wrapped = false;
            e.parens = 0;
            e.constant = false;
            e.name = false;
            e.dots = false;
            e.index = None;
        }
        self.flush_arith(chain, key);
        self.leave();
        Ok(e)
    }

    /// Records the rewrite of a run of one arithmetic operator, unless every operand is a
    /// numeral and the operator is not `%`: `a + b + c` becomes `F((a), (b), (c))`.
    fn flush_arith(&mut self, chain: Option<ArithRun>, key: u32) {
        let Some((op, operands, ops)) = chain else {
            return;
        };
        if op != b'%' && operands.iter().all(|&(_, _, numeral)| numeral) {
            return;
        }
        // LuaJIT takes at most about 250 values in a call: longer runs nest in groups.
        const GROUP: usize = 100;
        let (first_start, mut prev_end, _) = operands[0];
        let groups = (operands.len() - 2) / (GROUP - 1) + 1;
        for _ in 0..groups {
            let open = Text::Owned(format!("{}((", arith_fn(op)));
            self.edits.insert(first_start, OPEN, key, open);
        }
        for (i, (&(start, end, _), &op_at)) in operands[1..].iter().zip(&ops).enumerate() {
            if i > 0 && i % (GROUP - 1) == 0 {
                self.edits.insert(prev_end, CLOSE, key, Text::Static("))"));
            }
            self.edits.insert(prev_end, CLOSE, key, Text::Static(")"));
            let gap = &self.sc.src[prev_end..op_at];
            if gap.iter().all(|&b| b == b' ' || b == b'\t') {
                self.edits.deletes.push((prev_end, op_at));
            }
            self.edits.deletes.push((op_at, op_at + 1));
            self.edits.insert(op_at, SEP, 0, Text::Static(","));
            self.edits.insert(start, OPEN, key, Text::Static("("));
            prev_end = end;
        }
        self.edits.insert(prev_end, CLOSE, key, Text::Static("))"));
        self.closed_at = prev_end;
    }

    /// Parses `.. e2 .. e3 ...` after a first operand spanning `start..end` and records the
    /// rewrite of the whole chain; returns the chain's end.
    fn concat_chain(&mut self, start: usize, end: usize, key: u32) -> PResult<usize> {
        self.edits.insert(start, OPEN, key, Text::ConcatOpen);
        let mut prev_end = end;
        while self.tok.t == T::Concat {
            let dots = self.tok.start;
            self.advance()?;
            let operand = self.subexpr(CONCAT_LEFT)?;
            self.edits.insert(prev_end, CLOSE, key, Text::Static(")"));
            let gap = &self.sc.src[prev_end..dots];
            if gap.iter().all(|&b| b == b' ' || b == b'\t') {
                self.edits.deletes.push((prev_end, dots));
            }
            self.edits.deletes.push((dots, dots + 2));
            self.edits.insert(dots, SEP, 0, Text::Static(","));
            self.edits
                .insert(operand.start, OPEN, key, Text::Static("("));
            prev_end = operand.end;
        }
        self.edits.insert(prev_end, CLOSE, key, Text::Static("))"));
        self.closed_at = prev_end;
        Ok(prev_end)
    }

    fn simple(&mut self) -> PResult<Exp> {
        let start = self.tok.start;
        let numeral = self.tok.t == T::Number;
        let constant = matches!(self.tok.t, T::Nil | T::False | T::True | T::Number | T::Str);
        let dots = self.tok.t == T::Dots;
        if dots {
            self.dots_used();
        }
        match self.tok.t {
            T::Nil | T::False | T::True | T::Number | T::Str | T::Dots => self.advance()?,
            T::Op(b'{') => self.table(Route::Value)?,
            T::Function => {
                self.advance()?;
                self.func_body(false)?;
            }
            _ => return self.suffixed(),
        }
        Ok(Exp {
            numeral,
            constant,
            dots,
            ..Exp::plain(start, self.prev_end, Kind::Other)
        })
    }

    /// `prefixexp` with its suffixes: `Name` or `( expr )`, then any of `.Name`, `[expr]`,
    /// `:Name args`, `args`.
    pub(super) fn suffixed(&mut self) -> PResult<Exp> {
        let start = self.tok.start;
        let key = self.depth * 4 + 2;
        let mut parens = 0;
        let starts_with_name = self.tok.t == T::Name;
        let mut suffixes = 0u32;
        let mut index = None;
        let mut kind = match self.tok.t {
            T::Name => {
                self.advance()?;
                Kind::Var
            }
            T::Op(b'(') => {
                let open = self.tok.start;
                self.advance()?;
                let inner = self.expr()?;
                let close = self.tok.start;
                self.expect(T::Op(b')'))?;
                if inner.kind == Kind::Call {
                    parens = inner.parens + 1;
                    self.paren_log.push((open, close));
                    Kind::Call
                } else {
                    Kind::Other
                }
            }
            _ => return self.syntax_error(),
        };
        let mut wrapped = false;
        loop {
            let at = self.tok.start;
            let object_is_name = starts_with_name && suffixes == 0;
            suffixes += 1;
            let last = index.take();
            match self.tok.t {
                T::Op(b'.') => {
                    self.advance()?;
                    let key_start = self.tok.start;
                    self.name()?;
                    kind = Kind::Var;
                    index = Some(Index {
                        at,
                        dot: true,
                        key_start,
                        key_end: self.prev_end,
                        close: self.prev_end,
                        object_is_name,
                    });
                }
                T::Op(b'[') => {
                    self.advance()?;
                    let k = self.expr()?;
                    let close = self.tok.start;
                    self.expect(T::Op(b']'))?;
                    kind = Kind::Var;
                    index = Some(Index {
                        at,
                        dot: false,
                        key_start: k.start,
                        key_end: k.end,
                        close,
                        object_is_name,
                    });
                }
                T::Op(b':') => {
                    self.advance()?;
                    self.name()?;
                    self.args(true)?;
                    kind = Kind::Call;
                }
                T::Op(b'(') | T::Op(b'{') | T::Str => {
                    if matches!(self.tok.t, T::Op(b'(' | b'{'))
                        && self.tok.end_line != self.prev_end_line
                    {
                        // LuaJIT rejects a `(` on a later line than the callee as ambiguous (a
                        // `{` argument gets one when its constructor is routed, see `table`).
                        self.edits.insert(start, OPEN, key, Text::Static("("));
                        self.edits
                            .insert(self.tok.start, CLOSE, key, Text::Static(")"));
                        wrapped = true;
                    }
                    self.args(false)?;
                    kind = Kind::Call;
                }
                _ => {
                    suffixes -= 1;
                    index = last;
                    break;
                }
            }
            parens = 0;
        }
        Ok(Exp {
            wrapped,
            parens,
            name: starts_with_name && suffixes == 0,
            index,
            ..Exp::plain(start, self.prev_end, kind)
        })
    }

    /// `args: '(' [exprlist] ')' | tableconstructor | String`. A constructor argument of a method
    /// call on a later line than the method's name (`a:m\n{...}`) is left as it is: routing it
    /// would need a `(` there, which LuaJIT rejects and no parentheses can fix.
    fn args(&mut self, method: bool) -> PResult<()> {
        match self.tok.t {
            T::Op(b'(') => {
                self.advance()?;
                if self.tok.t != T::Op(b')') {
                    self.expr_list()?;
                }
                self.expect(T::Op(b')'))
            }
            T::Op(b'{') if method && self.tok.end_line != self.prev_end_line => {
                self.table(Route::No)
            }
            T::Op(b'{') => self.table(Route::CallArgs),
            T::Str => self.advance(),
            _ => self.syntax_error(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::argo::gopher::testing::rw;

    #[test]
    fn concat_chains() {
        let cases = [
            ("return a .. b", "return (CONCAT((a), (b)))"),
            ("return a..b..c", "return (CONCAT((a),(b),(c)))"),
            (
                "x = a .. b + c .. d",
                "x = CONCAT((a), (__pacto_add((b), (c))), (d))",
            ),
            (
                "x = a .. b == c .. d",
                "x = CONCAT((a), (b)) == CONCAT((c), (d))",
            ),
            ("x = a or b .. c and d", "x = a or CONCAT((b), (c)) and d"),
            ("x = not a .. b", "x = CONCAT((not a), (b))"),
            (
                "x = -a .. b ^ c",
                "x = CONCAT((__pacto_unm((a))), (__pacto_pow((b), (c))))",
            ),
            (
                "x = a * b .. c / d",
                "x = CONCAT((__pacto_mul((a), (b))), (__pacto_div((c), (d))))",
            ),
            ("x = (a .. b) .. c", "x = CONCAT(((CONCAT((a), (b)))), (c))"),
            (
                "x = a .. f(b .. c) .. d",
                "x = CONCAT((a), (f(CONCAT((b), (c)))), (d))",
            ),
            ("f(a .. b, c)", "f(CONCAT((a), (b)), c)"),
            ("x = a .. b < c", "x = CONCAT((a), (b)) < c"),
            (
                "local function f(...) return ... .. 's' end",
                "local function f(...) local arg; return (CONCAT((...), ('s'))) end",
            ),
            (
                "t = {a .. b, k = c .. d, [e .. f] = g}",
                "t = __pacto_tab({CONCAT((a), (b)), k = CONCAT((c), (d)), [__pacto_key((CONCAT((e), (f))))] = g}, \"k\", false)",
            ),
            ("x = 1 .. 2", "x = CONCAT((1), (2))"),
            ("x = 1.5..y", "x = CONCAT((1.5),(y))"),
            ("x = a:m() .. b.c[d]", "x = CONCAT((a:m()), (b.c[d]))"),
            ("return{}..''", "return(CONCAT((__pacto_tab({})),('')))"),
            ("return(x)..y", "return(CONCAT(((x)),(y)))"),
        ];
        for (src, want) in cases {
            assert_eq!(rw(src), want, "{src}");
        }
    }

    #[test]
    fn arithmetic_operators() {
        let cases = [
            ("x = a + 1", "x = __pacto_add((a), (1))"),
            ("x = a + b + c", "x = __pacto_add((a), (b), (c))"),
            (
                "x = a - b * c",
                "x = __pacto_sub((a), (__pacto_mul((b), (c))))",
            ),
            (
                "x = a * b - c",
                "x = __pacto_sub((__pacto_mul((a), (b))), (c))",
            ),
            (
                "x = a ^ b ^ c",
                "x = __pacto_pow((a), (__pacto_pow((b), (c))))",
            ),
            ("x = a % 2 == 0", "x = __pacto_mod((a), (2)) == 0"),
            ("x = -a", "x = __pacto_unm((a))"),
            // Numerals alone are left to LuaJIT: gopher computes them the same way.
            ("x = 2 ^ 53 + 1", "x = 2 ^ 53 + 1"),
            ("x = -1", "x = -1"),
            ("x = 1 / 3", "x = 1 / 3"),
            ("x = a+-1", "x = __pacto_add((a),(-1))"),
        ];
        for (src, want) in cases {
            assert_eq!(rw(src), want, "{src}");
        }
        // A long run nests in groups of a hundred operands, within LuaJIT's call limits.
        let sum = format!("x = a{}", " + a".repeat(250));
        let out = rw(&sum);
        assert!(
            out.starts_with("x = __pacto_add((__pacto_add((__pacto_add((a), (a)"),
            "{out}"
        );
        assert_eq!(out.matches("__pacto_add").count(), 3);
    }

    /// Every constructor is routed through the table function, its keyed fields named in
    /// source order (the sandbox's `prelude/order.lua` records gopher's key order from them).
    #[test]
    fn length_operator() {
        let cases = [
            ("return #t", "return (LEN((t)))"),
            ("return#t", "return(LEN((t)))"),
            ("x = #t + 1", "x = __pacto_add((LEN((t))), (1))"),
            ("x = #t ^ 2", "x = LEN((__pacto_pow((t), (2))))"),
            ("x = 2 ^ #t", "x = __pacto_pow((2), (LEN((t))))"),
            ("x = -#t", "x = __pacto_unm((LEN((t))))"),
            ("x = not #t", "x = not LEN((t))"),
            ("x = #t.x[1]", "x = LEN((t.x[1]))"),
            ("x = #a:m()", "x = LEN((a:m()))"),
            ("x = # #t", "x = LEN(( LEN((t))))"),
            ("x = #t == 0", "x = LEN((t)) == 0"),
            ("x = not#t", "x = not LEN((t))"),
            ("x = #a .. b", "x = CONCAT((LEN((a))), (b))"),
            ("x = a .. #b", "x = CONCAT((a), (LEN((b))))"),
            ("x = #(a .. b)", "x = LEN(((CONCAT((a), (b)))))"),
            ("x = #t * 2", "x = __pacto_mul((LEN((t))), (2))"),
            // A lone rewritten return value is parenthesised: no tail call.
            ("return #t, #u", "return LEN((t)), LEN((u))"),
            ("return #t + 1", "return (__pacto_add((LEN((t))), (1)))"),
            ("return (#t)", "return (LEN((t)))"),
            ("return #t;", "return (LEN((t)));"),
            (
                "if #obj.items > 0 then end",
                "if LEN((obj.items)) > 0 then end",
            ),
            ("x = t[#t]", "x = t[LEN((t))]"),
        ];
        for (src, want) in cases {
            assert_eq!(rw(src), want, "{src}");
        }
    }
}
