//! Program-creation checks of cel-go, Flux's `WithCompile()` options, and native conversions.
//!
//! [`program_errors`]: cel-go fails at program creation (`env.Program`), not at evaluation, for a
//! global call with no arguments to an unknown function (`no such overload: f()`); Flux reports it
//! from `NewExpression`, so at parse time.
//!
//! [`check`]: a *partial* checker for `NewExpression(expr, WithCompile(), ...)`, which Flux uses
//! for `dependsOn` readiness expressions, not for `healthCheckExprs`. It types what Flux's own
//! tests exercise and stays silent where it cannot tell: variables declared with
//! `WithStructVariables` are `map(string, dyn)` (cel-go types `google.protobuf.Struct` so), their
//! fields `dyn`; undeclared identifiers are errors (`undeclared reference to 'x' (in container
//! '')`); `==`/`!=` between two known, different types are errors (`found no matching overload for
//! '_==_' applied to '(map(string, dyn), string)'`); the output type is known for literals,
//! comparisons, logical operators, `has()`, `all`/`exists` and a few string functions, and `dyn`
//! otherwise. It is no substitute for cel-go's checker.

use super::env::{NAMESPACED_FUNCTIONS, TYPE_NAMES};
use cel::common::ast::{operators, EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelString, Kind};
use cel::common::value::Val;

/// `NewExpression` options: `WithCompile()`, `WithStructVariables(...)`, `WithOutputType(t)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompileOptions {
    pub compile: bool,
    pub struct_variables: Vec<String>,
    pub output_type: Option<OutputType>,
}

/// A CEL type as the partial checker knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputType {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Null,
    List,
    Map,
    Timestamp,
    Duration,
    Type,
    Optional,
    Dyn,
}

impl OutputType {
    /// The type's name as cel-go prints it (`bool`, `dyn`, ...).
    pub fn name(self) -> &'static str {
        match self {
            OutputType::Bool => "bool",
            OutputType::Int => "int",
            OutputType::Uint => "uint",
            OutputType::Double => "double",
            OutputType::String => "string",
            OutputType::Bytes => "bytes",
            OutputType::Null => "null_type",
            OutputType::List => "list(dyn)",
            OutputType::Map => "map(dyn, dyn)",
            OutputType::Timestamp => "google.protobuf.Timestamp",
            OutputType::Duration => "google.protobuf.Duration",
            OutputType::Type => "type",
            OutputType::Optional => "optional_type(dyn)",
            OutputType::Dyn => "dyn",
        }
    }
}

/// The checker's types: `Struct` is a declared struct variable, `map(string, dyn)`.
#[derive(Debug, Clone, PartialEq)]
enum Ty {
    Dyn,
    Simple(OutputType),
    List(Box<Ty>),
    Struct,
}

impl Ty {
    fn name(&self) -> String {
        match self {
            Ty::Dyn => "dyn".to_string(),
            Ty::Simple(t) => t.name().to_string(),
            Ty::List(t) => format!("list({})", t.name()),
            Ty::Struct => "map(string, dyn)".to_string(),
        }
    }

    fn output(&self) -> OutputType {
        match self {
            Ty::Dyn => OutputType::Dyn,
            Ty::Simple(t) => *t,
            Ty::List(_) => OutputType::List,
            Ty::Struct => OutputType::Map,
        }
    }

    /// Whether cel-go's `_==_(A, A)` accepts the two types.
    fn unifies(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Dyn, _) | (_, Ty::Dyn) => true,
            (Ty::List(a), Ty::List(b)) => a.unifies(b),
            (Ty::Simple(OutputType::List), Ty::List(_))
            | (Ty::List(_), Ty::Simple(OutputType::List)) => true,
            (Ty::Struct, Ty::Simple(OutputType::Map))
            | (Ty::Simple(OutputType::Map), Ty::Struct) => true,
            (a, b) => a == b,
        }
    }
}

/// cel-go's program-creation failure for `src`, if any.
pub(super) fn program_errors(ast: &IdedExpr) -> Result<(), String> {
    let mut err = None;
    visit(ast, &mut |e| {
        if let Expr::Call(call) = &e.expr {
            let qualified = call
                .target
                .as_deref()
                .and_then(qualified_name)
                .map(|q| format!("{q}.{}", call.func_name));
            let is_namespaced = qualified
                .as_deref()
                .is_some_and(|q| NAMESPACED_FUNCTIONS.contains(&q));
            let zero_arg_global = call.args.is_empty() && (call.target.is_none() || is_namespaced);
            let name = if is_namespaced {
                qualified.unwrap_or_default()
            } else {
                call.func_name.clone()
            };
            if zero_arg_global && name != "optional.none" && err.is_none() {
                err = Some(format!("no such overload: {name}()"));
            }
        }
    });
    err.map_or(Ok(()), Err)
}

fn visit(e: &IdedExpr, f: &mut dyn FnMut(&IdedExpr)) {
    f(e);
    match &e.expr {
        Expr::Call(call) => {
            if let Some(t) = &call.target {
                visit(t, f);
            }
            call.args.iter().for_each(|a| visit(a, f));
        }
        Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                visit(x, f);
            }
        }
        Expr::List(l) => l.elements.iter().for_each(|x| visit(x, f)),
        Expr::Map(m) => {
            for entry in &m.entries {
                if let EntryExpr::MapEntry(me) = &entry.expr {
                    visit(&me.key, f);
                    visit(&me.value, f);
                }
            }
        }
        Expr::Struct(s) => {
            for entry in &s.entries {
                if let EntryExpr::StructField(sf) = &entry.expr {
                    visit(&sf.value, f);
                }
            }
        }
        Expr::Select(s) => visit(&s.operand, f),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(s) if !s.test => Some(format!("{}.{}", qualified_name(&s.operand)?, s.field)),
        _ => None,
    }
}

struct Checker<'a> {
    src: &'a str,
    offsets: &'a dyn Fn(u64) -> Option<u32>,
    opts: &'a CompileOptions,
    scope: Vec<(String, Ty)>,
}

/// The partial check of `program`: its output type, or cel-go's issues text.
pub(super) fn check(
    src: &str,
    program: &cel::Program,
    opts: &CompileOptions,
) -> Result<OutputType, String> {
    let info = program.source_info();
    let offsets = |id: u64| info.offset_for(id).map(|(start, _)| start);
    let mut c = Checker {
        src,
        offsets: &offsets,
        opts,
        scope: Vec::new(),
    };
    c.ty(program.expression()).map(|t| t.output())
}

impl Checker<'_> {
    fn error(&self, id: u64, msg: String) -> String {
        let offset = (self.offsets)(id).unwrap_or(0) as usize;
        let before = &self.src[..offset.min(self.src.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let col = self.src[line_start..offset.min(self.src.len())]
            .chars()
            .count()
            + 1;
        let snippet = self.src[line_start..].split('\n').next().unwrap_or("");
        let dots: String = snippet
            .chars()
            .take(col - 1)
            .map(|c| if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' })
            .collect();
        format!("ERROR: <input>:{line}:{col}: {msg}\n | {snippet}\n | {dots}^")
    }

    fn ty(&mut self, e: &IdedExpr) -> Result<Ty, String> {
        match &e.expr {
            Expr::Literal(l) => Ok(Ty::Simple(match l {
                LiteralValue::Boolean(_) => OutputType::Bool,
                LiteralValue::Bytes(_) => OutputType::Bytes,
                LiteralValue::Double(_) => OutputType::Double,
                LiteralValue::Int(_) => OutputType::Int,
                LiteralValue::Null => OutputType::Null,
                LiteralValue::String(_) => OutputType::String,
                LiteralValue::UInt(_) => OutputType::Uint,
            })),
            Expr::Ident(name) => self.ident(e.id, name),
            Expr::Select(s) => {
                if !s.test {
                    if let Some(q) = qualified_name(e) {
                        if TYPE_NAMES.contains(&q.as_str()) {
                            return Ok(Ty::Simple(OutputType::Type));
                        }
                    }
                }
                self.ty(&s.operand)?;
                Ok(if s.test {
                    Ty::Simple(OutputType::Bool)
                } else {
                    Ty::Dyn
                })
            }
            Expr::Call(call) => {
                let namespaced = call
                    .target
                    .as_deref()
                    .and_then(qualified_name)
                    .is_some_and(|q| {
                        NAMESPACED_FUNCTIONS.contains(&format!("{q}.{}", call.func_name).as_str())
                    });
                let target = match (&call.target, namespaced) {
                    (Some(t), false) => Some(self.ty(t)?),
                    _ => None,
                };
                let mut args = Vec::new();
                for a in &call.args {
                    args.push(self.ty(a)?);
                }
                self.call(e.id, &call.func_name, target, args)
            }
            Expr::Comprehension(c) => {
                let range = self.ty(&c.iter_range)?;
                let elem = match range {
                    Ty::List(t) => *t,
                    _ => Ty::Dyn,
                };
                let accu = self.ty(&c.accu_init)?;
                let depth = self.scope.len();
                self.scope.push((c.iter_var.clone(), elem));
                if let Some(v) = &c.iter_var2 {
                    self.scope.push((v.clone(), Ty::Dyn));
                }
                self.scope.push((c.accu_var.clone(), accu));
                let checked = (|| {
                    self.ty(&c.loop_cond)?;
                    self.ty(&c.loop_step)?;
                    self.ty(&c.result)
                })();
                self.scope.truncate(depth);
                checked
            }
            Expr::List(l) => {
                let mut elem: Option<Ty> = None;
                for x in &l.elements {
                    let t = self.ty(x)?;
                    elem = Some(match elem {
                        None => t,
                        Some(prev) if prev == t => prev,
                        Some(_) => Ty::Dyn,
                    });
                }
                Ok(Ty::List(Box::new(elem.unwrap_or(Ty::Dyn))))
            }
            Expr::Map(m) => {
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        self.ty(&me.key)?;
                        self.ty(&me.value)?;
                    }
                }
                Ok(Ty::Simple(OutputType::Map))
            }
            Expr::Struct(_) | Expr::Unspecified => Ok(Ty::Dyn),
        }
    }

    fn ident(&self, id: u64, name: &str) -> Result<Ty, String> {
        if let Some((_, t)) = self.scope.iter().rev().find(|(n, _)| n == name) {
            return Ok(t.clone());
        }
        if self.opts.struct_variables.iter().any(|v| v == name) {
            return Ok(Ty::Struct);
        }
        if TYPE_NAMES.contains(&name) {
            return Ok(Ty::Simple(OutputType::Type));
        }
        Err(self.error(
            id,
            format!("undeclared reference to '{name}' (in container '')"),
        ))
    }

    fn call(&self, id: u64, name: &str, target: Option<Ty>, args: Vec<Ty>) -> Result<Ty, String> {
        let b = Ty::Simple(OutputType::Bool);
        let s = Ty::Simple(OutputType::String);
        match (name, target, args.as_slice()) {
            (operators::EQUALS | operators::NOT_EQUALS, None, [l, r]) => {
                if !l.unifies(r) {
                    return Err(self.error(
                        id,
                        format!(
                            "found no matching overload for '{name}' applied to '({}, {})'",
                            l.name(),
                            r.name()
                        ),
                    ));
                }
                Ok(b)
            }
            (
                operators::LOGICAL_AND
                | operators::LOGICAL_OR
                | operators::LOGICAL_NOT
                | operators::LESS
                | operators::LESS_EQUALS
                | operators::GREATER
                | operators::GREATER_EQUALS
                | operators::IN
                | operators::NOT_STRICTLY_FALSE,
                None,
                _,
            ) => Ok(b),
            (operators::ADD, None, [l, r]) if l == r && *l != Ty::Dyn => Ok(l.clone()),
            (operators::CONDITIONAL, None, [_, t, f]) if t == f => Ok(t.clone()),
            (operators::INDEX, None, [Ty::List(elem), _]) => Ok((**elem).clone()),
            ("size", _, _) => Ok(Ty::Simple(OutputType::Int)),
            ("string", None, [_]) => Ok(s),
            ("int", None, [_]) => Ok(Ty::Simple(OutputType::Int)),
            ("contains" | "startsWith" | "endsWith" | "matches" | "hasValue", Some(_), _) => Ok(b),
            (
                "lowerAscii" | "upperAscii" | "trim" | "replace" | "substring" | "charAt" | "join"
                | "format" | "reverse",
                Some(_),
                _,
            ) => Ok(s),
            ("split", Some(_), _) => Ok(Ty::List(Box::new(s))),
            ("first" | "last", Some(_), []) => Ok(Ty::Simple(OutputType::Optional)),
            _ => Ok(Ty::Dyn),
        }
    }
}

/// cel-go's `ConvertToNative(reflect.TypeOf([]string{}))` of a result, with its error texts.
pub(super) fn to_string_slice(v: &dyn Val) -> Result<Vec<String>, String> {
    if v.get_type().kind() != Kind::List {
        return Err(native_error(v, "[]string"));
    }
    let mut out = Vec::new();
    if let Some(it) = v.as_iterable() {
        let mut it = it.iter();
        while let Some(e) = it.next() {
            match e.downcast_ref::<CelString>() {
                Some(s) => out.push(s.inner().to_string()),
                None => return Err(native_error(e, "string")),
            }
        }
    }
    Ok(out)
}

/// The error of cel-go's `ConvertToNative` of `v` to the Go type `go_type`.
fn native_error(v: &dyn Val, go_type: &str) -> String {
    match v.get_type().kind() {
        Kind::String => format!("unsupported native conversion from string to '{go_type}'"),
        Kind::Int => format!("unsupported type conversion from 'int' to {go_type}"),
        Kind::UInt => format!("unsupported type conversion from 'uint' to {go_type}"),
        Kind::Double => format!("type conversion error from Double to '{go_type}'"),
        Kind::Boolean => format!("type conversion error from bool to '{go_type}'"),
        Kind::Bytes => format!("type conversion error from Bytes to '{go_type}'"),
        Kind::NullType => format!("type conversion error from 'null_type' to '{go_type}'"),
        Kind::List => format!("type conversion error from list to '{go_type}'"),
        Kind::Map => format!("type conversion error from map to '{go_type}'"),
        Kind::Timestamp => format!("type conversion error from 'Timestamp' to '{go_type}'"),
        Kind::Duration => format!("type conversion error from 'Duration' to '{go_type}'"),
        _ => format!(
            "type conversion error from '{}' to '{go_type}'",
            v.get_type().name()
        ),
    }
}
