//! A fast evaluator for the subset of CEL that health expressions use, working directly on the
//! object's borrowed JSON (no conversion into CEL values, no AST rewrite, no `Context`).
//!
//! It answers only when it is certain: [`Program::eval`] gives `Some(value)` when the value is
//! exactly what cel-go v0.26.1 (and the cel-rust path of `cel.rs`) gives, and `None` otherwise:
//! on any error, any construct or function it does not model, any value kind it does not model.
//! The caller then evaluates the expression on the cel-rust path, which produces every error text.
//!
//! Inside an evaluation "don't know" is a value of its own (`None`). It is sound because CEL's
//! only non-strict operators absorb *anything* on their other side: `false && x` is false and
//! `true || x` is true whatever `x` is, value or error (cel-go `interpreter/interpretable.go`
//! `evalAnd`/`evalOr`, and the `all()`/`exists()` macros expand to such folds, cel-go
//! `parser/macro.go`). Everywhere else "don't know" propagates to the top.
//!
//! The subset (cel-go semantics, cel-spec `langdef.md`):
//! - literals `null`, `true`/`false`, int, double, string; list literals;
//! - identifiers: the object's top-level fields and comprehension variables; field selection
//!   `x.f` and `x['f']` on maps, `l[i]` on lists; `has(x.f)` (a map tells whether it has the key,
//!   a scalar is false, as cel-go's presence test without `errorOnBadPresenceTest`);
//! - `&&`, `||`, `!`, `?:`; `==`, `!=` with cel-go 0.26's heterogeneous equality (`1 == 1.0`,
//!   `1 == 'a'` false, lists and maps deeply); `<`, `<=`, `>`, `>=` on numbers (int and double
//!   cross-compared, `CrossTypeNumericComparisons`), strings (bytewise) and bools;
//! - `in` on lists and map keys; `size` (strings in code points); `startsWith`, `endsWith`,
//!   `contains` on strings;
//! - `all`, `exists`, `exists_one`, `map` (two and three arguments), `filter` over lists, and
//!   `all`, `exists`, `exists_one` over a map's keys.
//!
//! Numbers follow Kubernetes typing as `convert.rs` does: a JSON whole number fitting int64 is an
//! `int`, any other number a `double`.
//!
//! The iteration budget (`budget.rs`) is charged at the same points as on the cel-rust path (each
//! comprehension's range size, when it starts) and the evaluation order mirrors that path's
//! (`rewrite.rs`: the right side of `&&`/`||` first, `all()`/`exists()` ranges reversed), so the
//! charges of an evaluation that ends with a value are the same on both paths. The memory budget
//! is charged as `@flux_elem` charges it there (list literal elements, `map`/`filter` results). An
//! expression with a comprehension or a list literal gives up as soon as anything was not known,
//! as the charges may then differ.

use super::budget::Limits;
use cel::common::ast::{operators, ComprehensionExpr, Expr, IdedExpr, LiteralValue};
use serde_json::{Map, Value as Json};
use std::rc::Rc;
use std::time::Instant;

mod values;
pub(crate) use values::get;
use values::{contains, equal, json, order, v_size, V};

/// An expression compiled for the fast evaluator.
#[derive(Debug, Clone)]
pub(super) struct Program {
    root: Node,
    has_comprehension: bool,
    /// Whether the expression has a list literal or a comprehension: its evaluation charges the
    /// memory budget.
    charges: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StrFn {
    StartsWith,
    EndsWith,
    Contains,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fold {
    All,
    Exists,
    ExistsOne,
}

#[derive(Debug, Clone)]
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(Box<str>),
    List(Vec<Node>),
    /// A top-level field of the object.
    Var(Box<str>),
    /// A comprehension variable, by nesting level.
    Local(usize),
    Select(Box<Node>, Box<str>),
    Has(Box<Node>, Box<str>),
    Index(Box<Node>, Box<Node>),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Cond(Box<Node>, Box<Node>, Box<Node>),
    Cmp(Cmp, Box<Node>, Box<Node>),
    In(Box<Node>, Box<Node>),
    Size(Box<Node>),
    Str2(StrFn, Box<Node>, Box<Node>),
    /// `all`, `exists`, `exists_one`: range, the variable's level, predicate.
    Fold(Fold, Box<Node>, usize, Box<Node>),
    /// `map` / `filter`: range, the variable's level, optional filter, transform.
    Map(Box<Node>, usize, Option<Box<Node>>, Box<Node>),
    /// Anything else: not known.
    Unsupported,
}

impl Program {
    /// Compiles a parsed (not rewritten) expression; `None` when its root is not in the subset.
    pub(super) fn compile(ast: &IdedExpr) -> Option<Program> {
        let mut c = Compiler {
            scope: Vec::new(),
            has_comprehension: false,
            has_list: false,
        };
        let root = c.node(ast, 0);
        if matches!(root, Node::Unsupported) {
            return None;
        }
        Some(Program {
            root,
            has_comprehension: c.has_comprehension,
            charges: c.has_comprehension || c.has_list,
        })
    }

    /// Whether the expression loops (has a comprehension): only then may it run long.
    pub(super) fn loops(&self) -> bool {
        self.has_comprehension
    }

    /// Evaluates against `obj` (each top-level field a variable) within `limits`, the evaluation
    /// having started at `started`. `Some(true|false)` when the result is certainly that bool.
    pub(super) fn eval_bool(
        &self,
        obj: &Json,
        limits: &Limits,
        started: Option<Instant>,
    ) -> Option<bool> {
        let fields = obj.as_object()?;
        // A dotted top-level name may be a qualified variable (`a.b`): the cel-rust path decides.
        if fields.keys().any(|k| k.contains('.')) {
            return None;
        }
        let mut ev = Eval {
            fields,
            locals: Vec::new(),
            unknown: false,
            used: 0,
            max: limits.max_iterations,
            alloc: 0,
            max_alloc: limits.max_alloc_bytes,
            deadline: limits
                .deadline
                .map(|d| started.unwrap_or_else(Instant::now) + d),
        };
        let v = ev.eval(&self.root);
        // Anything unknown may hide work the cel-rust path charges: it decides then.
        if self.charges && ev.unknown {
            return None;
        }
        match v {
            Some(V::Bool(b)) => Some(b),
            _ => None,
        }
    }
}

struct Compiler {
    scope: Vec<String>,
    has_comprehension: bool,
    has_list: bool,
}

fn boxed(n: Node) -> Box<Node> {
    Box::new(n)
}

impl Compiler {
    fn node(&mut self, e: &IdedExpr, depth: usize) -> Node {
        // Deeper trees are left to the cel-rust path, which runs them on a stack to match.
        if depth > 64 {
            return Node::Unsupported;
        }
        let d = depth + 1;
        match &e.expr {
            Expr::Literal(l) => match l {
                LiteralValue::Null => Node::Null,
                LiteralValue::Boolean(b) => Node::Bool(*b.inner()),
                LiteralValue::Int(i) => Node::Int(*i.inner()),
                LiteralValue::Double(x) => Node::Double(*x.inner()),
                LiteralValue::String(s) => Node::Str(s.inner().into()),
                _ => Node::Unsupported,
            },
            Expr::Ident(name) => match self.scope.iter().rposition(|s| s == name) {
                Some(level) => Node::Local(level),
                None => Node::Var(name.as_str().into()),
            },
            Expr::Select(s) => {
                let operand = self.node(&s.operand, d);
                if s.test {
                    Node::Has(boxed(operand), s.field.as_str().into())
                } else {
                    Node::Select(boxed(operand), s.field.as_str().into())
                }
            }
            Expr::List(l) if l.optional_indices.is_empty() => {
                self.has_list = true;
                Node::List(l.elements.iter().map(|x| self.node(x, d)).collect())
            }
            Expr::Call(call) => self.call(call, d),
            Expr::Comprehension(c) => self.comprehension(c, d),
            _ => Node::Unsupported,
        }
    }

    fn call(&mut self, call: &cel::common::ast::CallExpr, d: usize) -> Node {
        let f = call.func_name.as_str();
        let args = &call.args;
        if let Some(t) = call.target.as_deref() {
            let str2 = match f {
                "startsWith" => Some(StrFn::StartsWith),
                "endsWith" => Some(StrFn::EndsWith),
                "contains" => Some(StrFn::Contains),
                _ => None,
            };
            return match (str2, args.len(), f) {
                (Some(which), 1, _) => {
                    Node::Str2(which, boxed(self.node(t, d)), boxed(self.node(&args[0], d)))
                }
                (None, 0, "size") => Node::Size(boxed(self.node(t, d))),
                _ => Node::Unsupported,
            };
        }
        let mut n = |i: usize| boxed(self.node(&args[i], d));
        match (f, args.len()) {
            (operators::LOGICAL_NOT, 1) => Node::Not(n(0)),
            (operators::LOGICAL_AND, 2) => Node::And(n(0), n(1)),
            (operators::LOGICAL_OR, 2) => Node::Or(n(0), n(1)),
            (operators::CONDITIONAL, 3) => Node::Cond(n(0), n(1), n(2)),
            (operators::EQUALS, 2) => Node::Cmp(Cmp::Eq, n(0), n(1)),
            (operators::NOT_EQUALS, 2) => Node::Cmp(Cmp::Ne, n(0), n(1)),
            (operators::LESS, 2) => Node::Cmp(Cmp::Lt, n(0), n(1)),
            (operators::LESS_EQUALS, 2) => Node::Cmp(Cmp::Le, n(0), n(1)),
            (operators::GREATER, 2) => Node::Cmp(Cmp::Gt, n(0), n(1)),
            (operators::GREATER_EQUALS, 2) => Node::Cmp(Cmp::Ge, n(0), n(1)),
            (operators::IN, 2) => Node::In(n(0), n(1)),
            (operators::INDEX, 2) => Node::Index(n(0), n(1)),
            ("size", 1) => Node::Size(n(0)),
            _ => Node::Unsupported,
        }
    }

    /// Recognises the expansions of the standard macros (cel-go `parser/macro.go`, the same
    /// shapes in cel-rust's parser): anything else is not in the subset.
    fn comprehension<'c>(&mut self, c: &'c ComprehensionExpr, d: usize) -> Node {
        self.has_comprehension = true;
        if c.iter_var2.is_some() {
            return Node::Unsupported;
        }
        let accu = c.accu_var.as_str();
        let is_accu = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(n) if n == accu);
        let call = global_call;
        // `accu + [x]`: the appended element
        let append = |e: &'c IdedExpr| -> Option<&'c IdedExpr> {
            let add = call(e).filter(|c| c.func_name == operators::ADD && c.args.len() == 2)?;
            if !is_accu(&add.args[0]) {
                return None;
            }
            match &add.args[1].expr {
                Expr::List(l) if l.elements.len() == 1 && l.optional_indices.is_empty() => {
                    Some(&l.elements[0])
                }
                _ => None,
            }
        };
        let range = self.node(&c.iter_range, d);
        let level = self.scope.len();
        let init = &c.accu_init.expr;
        let step = call(&c.loop_step);
        // the parts of the step, compiled with the iteration variable in scope
        enum Shape<'e> {
            Fold(Fold, &'e IdedExpr),
            Map(Option<&'e IdedExpr>, &'e IdedExpr),
        }
        let shape = match (init, step) {
            (Expr::Literal(LiteralValue::Boolean(b)), Some(s))
                if is_accu(&c.result) && s.args.len() == 2 && is_accu(&s.args[0]) =>
            {
                match (*b.inner(), s.func_name.as_str()) {
                    (true, operators::LOGICAL_AND) => Some(Shape::Fold(Fold::All, &s.args[1])),
                    (false, operators::LOGICAL_OR) => Some(Shape::Fold(Fold::Exists, &s.args[1])),
                    _ => None,
                }
            }
            (Expr::Literal(LiteralValue::Int(zero)), Some(s))
                if *zero.inner() == 0
                    && s.func_name == operators::CONDITIONAL
                    && s.args.len() == 3
                    && is_accu(&s.args[2])
                    && exists_one_result(&c.result, accu) =>
            {
                let add = call(&s.args[1]).filter(|a| {
                    a.func_name == operators::ADD
                        && a.args.len() == 2
                        && is_accu(&a.args[0])
                        && matches!(&a.args[1].expr, Expr::Literal(LiteralValue::Int(one)) if *one.inner() == 1)
                });
                add.map(|_| Shape::Fold(Fold::ExistsOne, &s.args[0]))
            }
            (Expr::List(l), _) if l.elements.is_empty() && is_accu(&c.result) => match step {
                Some(s)
                    if s.func_name == operators::CONDITIONAL
                        && s.args.len() == 3
                        && is_accu(&s.args[2]) =>
                {
                    append(&s.args[1]).map(|f| Shape::Map(Some(&s.args[0]), f))
                }
                _ => append(&c.loop_step).map(|f| Shape::Map(None, f)),
            },
            _ => None,
        };
        let Some(shape) = shape else {
            return Node::Unsupported;
        };
        self.scope.push(c.iter_var.clone());
        let node = match shape {
            Shape::Fold(kind, pred) => {
                Node::Fold(kind, boxed(range), level, boxed(self.node(pred, d)))
            }
            Shape::Map(filter, f) => {
                let filter = filter.map(|p| boxed(self.node(p, d)));
                Node::Map(boxed(range), level, filter, boxed(self.node(f, d)))
            }
        };
        self.scope.pop();
        node
    }
}

/// The call `e` is when it has no receiver.
fn global_call(e: &IdedExpr) -> Option<&cel::common::ast::CallExpr> {
    match &e.expr {
        Expr::Call(call) if call.target.is_none() => Some(call),
        _ => None,
    }
}

/// `accu == 1`, the result of `exists_one`.
fn exists_one_result(e: &IdedExpr, accu: &str) -> bool {
    match &e.expr {
        Expr::Call(c) if c.target.is_none() && c.func_name == operators::EQUALS => {
            matches!(c.args.as_slice(), [a, b]
                if matches!(&a.expr, Expr::Ident(n) if n == accu)
                && matches!(&b.expr, Expr::Literal(LiteralValue::Int(one)) if *one.inner() == 1))
        }
        _ => false,
    }
}

struct Eval<'a> {
    fields: &'a Map<String, Json>,
    locals: Vec<V<'a>>,
    /// Something was not known (an error, an unsupported construct or value).
    unknown: bool,
    used: u64,
    max: u64,
    alloc: u64,
    max_alloc: u64,
    deadline: Option<Instant>,
}

impl<'a> Eval<'a> {
    fn unknown<T>(&mut self) -> Option<T> {
        self.unknown = true;
        None
    }

    fn bool(&mut self, n: &'a Node) -> Option<bool> {
        match self.eval(n) {
            Some(V::Bool(b)) => Some(b),
            Some(_) => self.unknown(),
            None => None,
        }
    }

    fn eval(&mut self, n: &'a Node) -> Option<V<'a>> {
        let v = match n {
            Node::Null => V::Null,
            Node::Bool(b) => V::Bool(*b),
            Node::Int(i) => V::Int(*i),
            Node::Double(x) => V::Double(*x),
            Node::Str(s) => V::Str(s),
            Node::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    let v = self.eval(i)?;
                    self.charge_elem(&v)?;
                    out.push(v);
                }
                V::Items(Rc::new(out))
            }
            Node::Var(name) => match get(self.fields, name) {
                Some(v) => json(v),
                None => return self.unknown(),
            },
            Node::Local(level) => match self.locals.get(*level) {
                Some(v) => v.clone(),
                None => return self.unknown(),
            },
            Node::Select(operand, field) => match self.eval(operand)? {
                V::Obj(m) => match get(m, field) {
                    Some(v) => json(v),
                    None => return self.unknown(),
                },
                _ => return self.unknown(),
            },
            Node::Has(operand, field) => match self.eval(operand)? {
                V::Obj(m) => V::Bool(m.contains_key(&**field)),
                V::Json(_) | V::Items(_) => return self.unknown(),
                _ => V::Bool(false),
            },
            Node::Index(operand, index) => {
                let operand = self.eval(operand)?;
                let index = self.eval(index)?;
                match (operand, index) {
                    (V::Obj(m), V::Str(k)) => match get(m, k) {
                        Some(v) => json(v),
                        None => return self.unknown(),
                    },
                    (V::Json(items), V::Int(i)) => {
                        match usize::try_from(i).ok().and_then(|i| items.get(i)) {
                            Some(v) => json(v),
                            None => return self.unknown(),
                        }
                    }
                    (V::Items(items), V::Int(i)) => {
                        match usize::try_from(i).ok().and_then(|i| items.get(i)) {
                            Some(v) => v.clone(),
                            None => return self.unknown(),
                        }
                    }
                    _ => return self.unknown(),
                }
            }
            Node::Not(x) => V::Bool(!self.bool(x)?),
            // The right side first, as the cel-rust path's fold evaluates it (`rewrite.rs`).
            Node::And(a, b) => {
                let rb = self.bool(b);
                if rb == Some(false) {
                    return Some(V::Bool(false));
                }
                let ra = self.bool(a);
                match (ra, rb) {
                    (Some(false), _) => V::Bool(false),
                    (Some(true), Some(true)) => V::Bool(true),
                    _ => return None,
                }
            }
            Node::Or(a, b) => {
                let rb = self.bool(b);
                if rb == Some(true) {
                    return Some(V::Bool(true));
                }
                let ra = self.bool(a);
                match (ra, rb) {
                    (Some(true), _) => V::Bool(true),
                    (Some(false), Some(false)) => V::Bool(false),
                    _ => return None,
                }
            }
            Node::Cond(c, t, f) => {
                if self.bool(c)? {
                    return self.eval(t);
                }
                return self.eval(f);
            }
            Node::Cmp(op, a, b) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                let r = match op {
                    Cmp::Eq => equal(&a, &b, 0),
                    Cmp::Ne => equal(&a, &b, 0).map(|e| !e),
                    _ => order(&a, &b).map(|o| match op {
                        Cmp::Lt => o.is_lt(),
                        Cmp::Le => o.is_le(),
                        Cmp::Gt => o.is_gt(),
                        _ => o.is_ge(),
                    }),
                };
                match r {
                    Some(b) => V::Bool(b),
                    None => return self.unknown(),
                }
            }
            Node::In(x, c) => {
                let x = self.eval(x)?;
                let c = self.eval(c)?;
                let r = match (&x, &c) {
                    (V::Str(k), V::Obj(m)) => Some(m.contains_key(*k)),
                    (_, V::Json(items)) => contains(items.iter().map(json), &x),
                    (_, V::Items(items)) => contains(items.iter().cloned(), &x),
                    _ => None,
                };
                match r {
                    Some(b) => V::Bool(b),
                    None => return self.unknown(),
                }
            }
            Node::Size(x) => match self.eval(x)? {
                V::Str(s) => V::Int(s.chars().count() as i64),
                V::Json(items) => V::Int(items.len() as i64),
                V::Items(items) => V::Int(items.len() as i64),
                V::Obj(m) => V::Int(m.len() as i64),
                _ => return self.unknown(),
            },
            Node::Str2(which, s, arg) => {
                let s = self.eval(s)?;
                let arg = self.eval(arg)?;
                match (s, arg) {
                    (V::Str(s), V::Str(a)) => V::Bool(match which {
                        StrFn::StartsWith => s.starts_with(a),
                        StrFn::EndsWith => s.ends_with(a),
                        StrFn::Contains => s.contains(a),
                    }),
                    _ => return self.unknown(),
                }
            }
            Node::Fold(kind, range, level, pred) => return self.fold(*kind, range, *level, pred),
            Node::Map(range, level, filter, f) => {
                return self.map(range, *level, filter.as_deref(), f)
            }
            Node::Unsupported => return self.unknown(),
        };
        Some(v)
    }

    /// Charges a comprehension's range as `budget::charge` does on the cel-rust path.
    fn charge(&mut self, n: usize) -> Option<()> {
        if let Some(deadline) = self.deadline {
            if Instant::now() >= deadline {
                return self.unknown();
            }
        }
        self.used = self.used.saturating_add(n as u64);
        if self.used > self.max {
            return self.unknown();
        }
        Some(())
    }

    /// Charges a list element as `@flux_elem` does on the cel-rust path (`bounds.rs` sizes).
    fn charge_elem(&mut self, v: &V<'a>) -> Option<()> {
        if let Some(deadline) = self.deadline {
            if Instant::now() >= deadline {
                return self.unknown();
            }
        }
        self.alloc = self.alloc.saturating_add(8u64.saturating_add(v_size(v)));
        if self.alloc > self.max_alloc {
            return self.unknown();
        }
        Some(())
    }

    fn fold(&mut self, kind: Fold, range: &'a Node, level: usize, pred: &'a Node) -> Option<V<'a>> {
        let range = self.eval(range)?;
        let items: Vec<V<'a>> = match &range {
            V::Json(items) => items.iter().map(json).collect(),
            V::Items(items) => items.as_ref().clone(),
            // A map's keys: the cel-rust path visits them in its own order, so a body that
            // could charge the budget differently is left to it.
            V::Obj(m) if !contains_comprehension(pred) => m.keys().map(|k| V::Str(k)).collect(),
            _ => return self.unknown(),
        };
        self.charge(items.len())?;
        self.locals.truncate(level);
        let result = match kind {
            Fold::All | Fold::Exists => {
                // `all()` stops at the first false, `exists()` at the first true; the cel-rust
                // path walks the range backwards (`@flux_reverse`).
                let decisive = kind == Fold::Exists;
                let mut known = true;
                let mut out = None;
                for item in items.into_iter().rev() {
                    self.locals.truncate(level);
                    self.locals.push(item);
                    match self.bool(pred) {
                        Some(b) if b == decisive => {
                            out = Some(V::Bool(decisive));
                            break;
                        }
                        Some(_) => {}
                        None => known = false,
                    }
                }
                match out {
                    Some(v) => Some(v),
                    None if known => Some(V::Bool(!decisive)),
                    None => None,
                }
            }
            Fold::ExistsOne => {
                let mut count = 0;
                let mut known = true;
                for item in items {
                    self.locals.truncate(level);
                    self.locals.push(item);
                    match self.bool(pred) {
                        Some(true) => count += 1,
                        Some(false) => {}
                        None => known = false,
                    }
                }
                known.then_some(V::Bool(count == 1))
            }
        };
        self.locals.truncate(level);
        result
    }

    fn map(
        &mut self,
        range: &'a Node,
        level: usize,
        filter: Option<&'a Node>,
        f: &'a Node,
    ) -> Option<V<'a>> {
        let items: Vec<V<'a>> = match self.eval(range)? {
            V::Json(items) => items.iter().map(json).collect(),
            V::Items(items) => items.as_ref().clone(),
            _ => return self.unknown(),
        };
        self.charge(items.len())?;
        let mut out = Vec::with_capacity(items.len());
        let mut known = true;
        for item in items {
            self.locals.truncate(level);
            self.locals.push(item);
            let keep = match filter {
                Some(p) => self.bool(p),
                None => Some(true),
            };
            match keep {
                Some(true) => match self.eval(f) {
                    Some(v) => {
                        self.charge_elem(&v)?;
                        out.push(v)
                    }
                    None => known = false,
                },
                Some(false) => {}
                None => known = false,
            }
        }
        self.locals.truncate(level);
        known.then(|| V::Items(Rc::new(out)))
    }
}

fn contains_comprehension(n: &Node) -> bool {
    match n {
        Node::Fold(..) | Node::Map(..) => true,
        Node::List(items) => items.iter().any(contains_comprehension),
        Node::Select(a, _) | Node::Has(a, _) | Node::Not(a) | Node::Size(a) => {
            contains_comprehension(a)
        }
        Node::Index(a, b)
        | Node::And(a, b)
        | Node::Or(a, b)
        | Node::Cmp(_, a, b)
        | Node::In(a, b)
        | Node::Str2(_, a, b) => contains_comprehension(a) || contains_comprehension(b),
        Node::Cond(a, b, c) => {
            contains_comprehension(a) || contains_comprehension(b) || contains_comprehension(c)
        }
        _ => false,
    }
}
