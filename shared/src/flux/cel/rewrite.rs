//! AST rewrites that make cel-rust evaluate a parsed expression the way cel-go evaluates an
//! unchecked one in Flux's environment.
//!
//! Once, at parse time ([`prepare`]):
//! - every comprehension range `r` becomes `@flux_charge(r)` (the iteration budget, `budget.rs`);
//! - every field selection `x.f` becomes `@flux_select(x, 'f')` and every presence test
//!   `has(x.f)` becomes `@flux_has(x, 'f')`, which follow cel-go's qualifier semantics and texts
//!   (`no such key: f`, `unsupported index type 'string' in list`, `has()` false on scalars);
//! - `a && b` and `a || b` become a two-step logical fold that evaluates `b`, then `a`, and the
//!   ranges of `all()`/`exists()` are reversed (`@flux_reverse`): cel-rust's logical folds keep
//!   the *last* error where cel-go's `&&`, `||`, `all()` and `exists()` keep the *first*, and the
//!   result is otherwise the same in any order (false absorbs errors in `&&`, true in `||`);
//! - the no-argument timestamp accessors (`getHours()`, ...) get their receiver moved to UTC
//!   (`@flux_utc(x).getHours()`), cel-go's `DefaultUTCTimeZone(true)`;
//! - each maximal attribute chain rooted at a free identifier (not a comprehension variable, not
//!   a type name, not a function namespace) is recorded with the name cel-go would report if the
//!   identifier is not a variable: the identifier followed by the constant string qualifiers
//!   (`.f`, `['f']`, `.?f`) up to the first other one (`status.conditions[0].type` reports
//!   `status.conditions`), as cel-go's `maybeAttribute` builds it.
//!
//! At each evaluation ([`bind_missing`]), a recorded chain none of whose leading names (`a.b.c`,
//! `a.b`, `a`, most specific first) is a variable is replaced by
//! `@flux_fail('no such attribute(s): <name>')`, in place, so `&&`, `||`, `?:` and the
//! comprehensions still absorb the error as cel-go does; a chain whose longest variable name is
//! dotted (a variable `a.b`) gets that variable in place of its first qualifiers.

use super::env::{
    ADD, CHARGE, COST, ELEM, FAIL, HAS, NAMESPACED_FUNCTIONS, REPLACE, REVERSE, SELECT, TYPE_NAMES,
    UTC,
};
use cel::common::ast::{
    operators, CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue,
    MapExpr, StructExpr,
};
use cel::common::types::CelString;

/// An attribute chain rooted at a free identifier.
#[derive(Debug, Clone)]
pub(super) struct FreeChain {
    /// The id of the chain's outermost node.
    pub id: u64,
    /// The identifier.
    pub root: String,
    /// The name cel-go reports when the identifier is missing.
    pub name: String,
    /// The qualified names the chain may start with, shortest first (`a`, `a.b`, `a.b.c`), and
    /// the ids of the nodes that spell them: a variable named `a.b` is `a.b` (cel-go tries the
    /// longest name first).
    pub prefixes: Vec<(u64, String)>,
}

/// A parsed expression ready for evaluation.
#[derive(Debug, Clone)]
pub(super) struct Prepared {
    pub ast: IdedExpr,
    pub free_chains: Vec<FreeChain>,
    /// Every name the expression may read a variable by: its identifiers and the qualified names
    /// its free chains start with. An object's other top-level fields are never read.
    pub names: std::collections::HashSet<String>,
}

const UTC_ACCESSORS: &[&str] = &[
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
];

pub(super) fn prepare(ast: IdedExpr) -> Prepared {
    let mut next_id = max_id(&ast) + 1;
    let mut r = Rewriter {
        next_id: &mut next_id,
        scope: Vec::new(),
        free_chains: Vec::new(),
    };
    let ast = r.walk(ast, false);
    let free_chains = r.free_chains;
    let mut names: std::collections::HashSet<String> = free_chains
        .iter()
        .flat_map(|c| c.prefixes.iter().map(|(_, n)| n.clone()))
        .collect();
    let mut stack = vec![&ast];
    while let Some(e) = stack.pop() {
        if let Expr::Ident(n) = &e.expr {
            names.insert(n.clone());
        }
        let mut children = Vec::new();
        children_of(e, &mut children);
        stack.extend(children);
    }
    Prepared {
        ast,
        free_chains,
        names,
    }
}

/// The direct children of `e`.
pub(super) fn children_of<'e>(e: &'e IdedExpr, out: &mut Vec<&'e IdedExpr>) {
    match &e.expr {
        Expr::Call(call) => {
            out.extend(call.target.as_deref());
            out.extend(call.args.iter());
        }
        Expr::Comprehension(c) => {
            out.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ]);
        }
        Expr::List(l) => out.extend(l.elements.iter()),
        Expr::Map(m) => {
            for entry in &m.entries {
                if let EntryExpr::MapEntry(me) = &entry.expr {
                    out.extend([&me.key, &me.value]);
                }
            }
        }
        Expr::Struct(st) => {
            for entry in &st.entries {
                if let EntryExpr::StructField(sf) = &entry.expr {
                    out.push(&sf.value);
                }
            }
        }
        Expr::Select(sel) => out.push(&sel.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// The AST with every free chain whose identifier is not among `variables` replaced by its
/// `no such attribute(s)` failure. Borrows `prepared.ast` when nothing is missing.
pub(super) fn bind_missing<'a>(
    prepared: &'a Prepared,
    variables: &dyn Fn(&str) -> bool,
) -> std::borrow::Cow<'a, IdedExpr> {
    // node id -> what replaces it: a failure, or a dotted variable's identifier
    let mut replacements: Vec<(u64, Expr)> = Vec::new();
    let mut next_id = 0;
    for chain in &prepared.free_chains {
        match chain.prefixes.iter().rev().find(|(_, n)| variables(n)) {
            Some((_, n)) if *n == chain.root => {}
            Some((id, n)) => replacements.push((*id, Expr::Ident(n.clone()))),
            None => {
                if next_id == 0 {
                    next_id = max_id(&prepared.ast) + 1;
                }
                let msg = format!("no such attribute(s): {}", chain.name);
                let arg = literal_string(&mut next_id, &msg);
                replacements.push((
                    chain.id,
                    Expr::Call(CallExpr {
                        func_name: FAIL.to_string(),
                        target: None,
                        args: vec![arg],
                    }),
                ));
            }
        }
    }
    if replacements.is_empty() {
        return std::borrow::Cow::Borrowed(&prepared.ast);
    }
    let mut ast = prepared.ast.clone();
    replace(&mut ast, &replacements);
    std::borrow::Cow::Owned(ast)
}

fn replace(e: &mut IdedExpr, replacements: &[(u64, Expr)]) {
    if let Some((_, r)) = replacements.iter().find(|(id, _)| *id == e.id) {
        e.expr = r.clone();
        return;
    }
    for_each_child(e, &mut |c| replace(c, replacements));
}

fn for_each_child(e: &mut IdedExpr, f: &mut dyn FnMut(&mut IdedExpr)) {
    match &mut e.expr {
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref_mut() {
                f(t);
            }
            call.args.iter_mut().for_each(f);
        }
        Expr::Comprehension(c) => {
            f(&mut c.iter_range);
            f(&mut c.accu_init);
            f(&mut c.loop_cond);
            f(&mut c.loop_step);
            f(&mut c.result);
        }
        Expr::List(l) => l.elements.iter_mut().for_each(f),
        Expr::Map(m) => {
            for entry in &mut m.entries {
                if let EntryExpr::MapEntry(me) = &mut entry.expr {
                    f(&mut me.key);
                    f(&mut me.value);
                }
            }
        }
        Expr::Struct(s) => {
            for entry in &mut s.entries {
                if let EntryExpr::StructField(sf) = &mut entry.expr {
                    f(&mut sf.value);
                }
            }
        }
        Expr::Select(s) => f(&mut s.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn max_id(e: &IdedExpr) -> u64 {
    let mut max = e.id;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        max = max.max(e.id);
        children_of(e, &mut stack);
    }
    max
}

fn literal_string(next_id: &mut u64, s: &str) -> IdedExpr {
    *next_id += 1;
    IdedExpr {
        id: *next_id,
        expr: Expr::Literal(LiteralValue::String(CelString::from(s.to_string()))),
    }
}

/// One qualifier of an attribute chain, outermost last.
enum Qual<'a> {
    /// A constant string qualifier: `.f`, `['f']`, `.?f`, `[?'f']`, `has(x.f)`.
    Name(&'a str),
    /// Any other qualifier.
    Other,
}

/// Whether a comprehension's step is `accu && x` or `accu || x` (`all()`, `exists()`): cel-rust
/// then absorbs an element's error if a later element decides the result.
fn is_logical_fold(step: &IdedExpr, accu: &str) -> bool {
    match &step.expr {
        Expr::Call(call) => {
            call.target.is_none()
                && (call.func_name == operators::LOGICAL_AND
                    || call.func_name == operators::LOGICAL_OR)
                && matches!(call.args.first().map(|a| &a.expr), Some(Expr::Ident(n)) if n == accu)
        }
        _ => false,
    }
}

/// The identifier an attribute chain starts from (and its node id), and its qualifiers with the
/// id of the node each one makes, innermost first; `None` if `e` is not an attribute chain.
#[allow(clippy::type_complexity)]
fn chain_of(e: &IdedExpr) -> Option<(&str, u64, Vec<(Qual<'_>, u64)>)> {
    let mut quals = Vec::new();
    let mut cur = e;
    loop {
        match &cur.expr {
            Expr::Ident(name) => {
                quals.reverse();
                return Some((name.as_str(), cur.id, quals));
            }
            Expr::Select(s) => {
                quals.push((Qual::Name(s.field.as_str()), cur.id));
                cur = &s.operand;
            }
            Expr::Call(call)
                if call.target.is_none()
                    && call.args.len() == 2
                    && [
                        operators::INDEX,
                        operators::OPT_INDEX,
                        operators::OPT_SELECT,
                    ]
                    .contains(&call.func_name.as_str()) =>
            {
                let q = match &call.args[1].expr {
                    Expr::Literal(LiteralValue::String(s)) => Qual::Name(s.inner()),
                    _ => Qual::Other,
                };
                quals.push((q, cur.id));
                cur = &call.args[0];
            }
            _ => return None,
        }
    }
}

/// The qualified name `e` spells when it is only an identifier and field selections.
fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(s) if !s.test => Some(format!("{}.{}", qualified_name(&s.operand)?, s.field)),
        _ => None,
    }
}

struct Rewriter<'a> {
    next_id: &'a mut u64,
    scope: Vec<String>,
    free_chains: Vec<FreeChain>,
}

impl Rewriter<'_> {
    fn fresh(&mut self, expr: Expr) -> IdedExpr {
        *self.next_id += 1;
        IdedExpr {
            id: *self.next_id,
            expr,
        }
    }

    fn bound(&self, name: &str) -> bool {
        name.starts_with('@') || name.starts_with('#') || self.scope.iter().any(|s| s == name)
    }

    /// Rewrites `e`; `in_chain` tells that `e` is the operand of an attribute chain's qualifier,
    /// so not the outermost node of a chain.
    fn walk(&mut self, e: IdedExpr, in_chain: bool) -> IdedExpr {
        if !in_chain {
            if let Some((root, root_id, quals)) = chain_of(&e) {
                if !self.bound(root) {
                    let mut name = root.to_string();
                    let mut prefixes = vec![(root_id, name.clone())];
                    let mut all_names = true;
                    for (q, id) in &quals {
                        match q {
                            Qual::Name(f) => {
                                name = format!("{name}.{f}");
                                prefixes.push((*id, name.clone()));
                            }
                            Qual::Other => {
                                all_names = false;
                                break;
                            }
                        }
                    }
                    // `has(a.b)` tests `b` on `a`: `a.b` is no variable name there.
                    if matches!(&e.expr, Expr::Select(sel) if sel.test) && all_names {
                        prefixes.pop();
                    }
                    // A type name (`int`, `google.protobuf.Timestamp`) resolves as such when
                    // nothing qualifies it: leave it to cel-rust, selections included.
                    if all_names
                        && TYPE_NAMES.contains(&name.as_str())
                        && qualified_name(&e).as_deref() == Some(name.as_str())
                    {
                        return e;
                    }
                    self.free_chains.push(FreeChain {
                        id: e.id,
                        root: root.to_string(),
                        name,
                        prefixes,
                    });
                }
            }
        }
        let id = e.id;
        match e.expr {
            Expr::Select(s) => {
                let operand = self.walk(*s.operand, true);
                let field = self.fresh(Expr::Literal(LiteralValue::String(CelString::from(
                    s.field.clone(),
                ))));
                IdedExpr {
                    id,
                    expr: Expr::Call(CallExpr {
                        func_name: if s.test { HAS } else { SELECT }.to_string(),
                        target: None,
                        args: vec![operand, field],
                    }),
                }
            }
            Expr::Call(call) => self.walk_call(id, call),
            Expr::Comprehension(c) => {
                let c = *c;
                let mut range = self.walk(c.iter_range, false);
                let fold = is_logical_fold(&c.loop_step, &c.accu_var);
                if c.iter_var2.is_none() && fold {
                    range = self.fresh(Expr::Call(CallExpr {
                        func_name: REVERSE.to_string(),
                        target: None,
                        args: vec![range],
                    }));
                }
                let iter_range = self.fresh(Expr::Call(CallExpr {
                    func_name: CHARGE.to_string(),
                    target: None,
                    args: vec![range],
                }));
                let accu_init = self.walk(c.accu_init, false);
                let depth = self.scope.len();
                self.scope.push(c.iter_var.clone());
                if let Some(v) = &c.iter_var2 {
                    self.scope.push(v.clone());
                }
                self.scope.push(c.accu_var.clone());
                let loop_cond = self.walk(c.loop_cond, false);
                let loop_step = if fold {
                    // keep `accu && x` as is: cel-rust absorbs errors only for that shape
                    self.walk_fold_step(c.loop_step)
                } else {
                    self.walk(c.loop_step, false)
                };
                let result = self.walk(c.result, false);
                self.scope.truncate(depth);
                IdedExpr {
                    id,
                    expr: Expr::Comprehension(Box::new(ComprehensionExpr {
                        iter_range,
                        iter_var: c.iter_var,
                        iter_var2: c.iter_var2,
                        accu_var: c.accu_var,
                        accu_init,
                        loop_cond,
                        loop_step,
                        result,
                    })),
                }
            }
            Expr::List(l) => IdedExpr {
                id,
                expr: Expr::List(ListExpr {
                    elements: l
                        .elements
                        .into_iter()
                        .map(|x| {
                            let x = self.walk(x, false);
                            self.call(ELEM, vec![x])
                        })
                        .collect(),
                    optional_indices: l.optional_indices,
                }),
            },
            Expr::Map(m) => IdedExpr {
                id,
                expr: Expr::Map(MapExpr {
                    entries: m
                        .entries
                        .into_iter()
                        .map(|mut entry| {
                            if let EntryExpr::MapEntry(me) = &mut entry.expr {
                                let key = self.walk(std::mem::take(&mut me.key), false);
                                me.key = self.call(ELEM, vec![key]);
                                let value = self.walk(std::mem::take(&mut me.value), false);
                                me.value = self.call(ELEM, vec![value]);
                            }
                            entry
                        })
                        .collect(),
                }),
            },
            Expr::Struct(s) => IdedExpr {
                id,
                expr: Expr::Struct(StructExpr {
                    type_name: s.type_name,
                    entries: s
                        .entries
                        .into_iter()
                        .map(|mut entry| {
                            if let EntryExpr::StructField(sf) = &mut entry.expr {
                                sf.value = self.walk(std::mem::take(&mut sf.value), false);
                            }
                            entry
                        })
                        .collect(),
                }),
            },
            other => IdedExpr { id, expr: other },
        }
    }

    fn ident(&mut self, name: &str) -> IdedExpr {
        self.fresh(Expr::Ident(name.to_string()))
    }

    fn call(&mut self, func: &str, args: Vec<IdedExpr>) -> IdedExpr {
        self.fresh(Expr::Call(CallExpr {
            func_name: func.to_string(),
            target: None,
            args,
        }))
    }

    /// `a && b` (`and`) or `a || b` as a logical fold over the steps `b` then `a`:
    /// `[1, 0].all(@i, @i == 0 ? a : b)` (`exists` for `||`), which cel-rust evaluates with
    /// cel-go's result *and* error: the decisive value of either side wins, else `a`'s error,
    /// else `b`'s.
    fn first_error_fold(&mut self, id: u64, and: bool, a: IdedExpr, b: IdedExpr) -> IdedExpr {
        const ACCU: &str = "@flux_accu";
        const STEP: &str = "@flux_step";
        let one = self.fresh(Expr::Literal(LiteralValue::Int(1.into())));
        let zero = self.fresh(Expr::Literal(LiteralValue::Int(0.into())));
        let iter_range = self.fresh(Expr::List(ListExpr::new(vec![one, zero])));
        let accu_init = self.fresh(Expr::Literal(LiteralValue::Boolean(and.into())));
        let accu = self.ident(ACCU);
        let loop_cond = if and {
            self.call(operators::NOT_STRICTLY_FALSE, vec![accu])
        } else {
            let not = self.call(operators::LOGICAL_NOT, vec![accu]);
            self.call(operators::NOT_STRICTLY_FALSE, vec![not])
        };
        let step_var = self.ident(STEP);
        let zero = self.fresh(Expr::Literal(LiteralValue::Int(0.into())));
        let is_first = self.call(operators::EQUALS, vec![step_var, zero]);
        let pick = self.call(operators::CONDITIONAL, vec![is_first, a, b]);
        let accu = self.ident(ACCU);
        let op = if and {
            operators::LOGICAL_AND
        } else {
            operators::LOGICAL_OR
        };
        let loop_step = self.call(op, vec![accu, pick]);
        let result = self.ident(ACCU);
        IdedExpr {
            id,
            expr: Expr::Comprehension(Box::new(ComprehensionExpr {
                iter_range,
                iter_var: STEP.to_string(),
                iter_var2: None,
                accu_var: ACCU.to_string(),
                accu_init,
                loop_cond,
                loop_step,
                result,
            })),
        }
    }

    /// A logical fold's step `accu && x` (or `||`), with `x` rewritten and the call kept.
    fn walk_fold_step(&mut self, step: IdedExpr) -> IdedExpr {
        let IdedExpr { id, expr } = step;
        let Expr::Call(call) = expr else {
            return self.walk(IdedExpr { id, expr }, false);
        };
        let args = call.args.into_iter().map(|a| self.walk(a, false)).collect();
        IdedExpr {
            id,
            expr: Expr::Call(CallExpr {
                func_name: call.func_name,
                target: None,
                args,
            }),
        }
    }

    fn walk_call(&mut self, id: u64, call: CallExpr) -> IdedExpr {
        let CallExpr {
            func_name,
            target,
            args,
        } = call;
        let is_qualifier = target.is_none()
            && args.len() == 2
            && [
                operators::INDEX,
                operators::OPT_INDEX,
                operators::OPT_SELECT,
            ]
            .contains(&func_name.as_str());
        if is_qualifier {
            let mut args = args.into_iter();
            let operand = self.walk(args.next().expect("two arguments"), true);
            let index = self.walk(args.next().expect("two arguments"), false);
            return IdedExpr {
                id,
                expr: Expr::Call(CallExpr {
                    func_name,
                    target: None,
                    args: vec![operand, index],
                }),
            };
        }
        let mut args: Vec<IdedExpr> = args.into_iter().map(|a| self.walk(a, false)).collect();
        // A user's `a + b` (not a macro's `@result + [x]`) charges its result's size first.
        let macro_step =
            matches!(args.first().map(|a| &a.expr), Some(Expr::Ident(n)) if n.starts_with('@'));
        if target.is_none() && func_name == operators::ADD && args.len() == 2 && !macro_step {
            return IdedExpr {
                id,
                expr: Expr::Call(CallExpr {
                    func_name: ADD.to_string(),
                    target: None,
                    args,
                }),
            };
        }
        let logical = func_name == operators::LOGICAL_AND || func_name == operators::LOGICAL_OR;
        if target.is_none() && logical && args.len() == 2 {
            let mut args = args.into_iter();
            let a = args.next().expect("two arguments");
            let b = args.next().expect("two arguments");
            return self.first_error_fold(id, func_name == operators::LOGICAL_AND, a, b);
        }
        let target = target.map(|t| {
            // `ns.f(...)` naming a namespaced function is a call to it, not `f` on `ns`.
            let namespaced = qualified_name(&t)
                .map(|q| NAMESPACED_FUNCTIONS.contains(&format!("{q}.{func_name}").as_str()))
                .unwrap_or(false);
            if namespaced {
                return t;
            }
            let walked = self.walk(*t, false);
            if args.is_empty() && UTC_ACCESSORS.contains(&func_name.as_str()) {
                Box::new(self.fresh(Expr::Call(CallExpr {
                    func_name: UTC.to_string(),
                    target: None,
                    args: vec![walked],
                })))
            } else {
                Box::new(walked)
            }
        });
        // `s.replace(from, to[, n])` computes and charges its result's size before building it.
        if func_name == "replace" && (2..=3).contains(&args.len()) {
            if let Some(t) = target {
                args.insert(0, *t);
                return IdedExpr {
                    id,
                    expr: Expr::Call(CallExpr {
                        func_name: REPLACE.to_string(),
                        target: None,
                        args,
                    }),
                };
            }
        }
        let call = IdedExpr {
            id,
            expr: Expr::Call(CallExpr {
                func_name: func_name.clone(),
                target,
                args,
            }),
        };
        // A function's result (not an operator's, not an internal function's) is charged.
        if func_name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return self.call(COST, vec![call]);
        }
        call
    }
}
