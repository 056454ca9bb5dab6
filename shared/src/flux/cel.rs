//! Flux's CEL health checks (`healthCheckExprs`): fluxcd/pkg `runtime/cel` `Expression` and
//! `StatusEvaluator`, on cel-rust 0.15 with cel-go v0.26.1 semantics and error texts.
//!
//! - [`Expression::parse`] is `NewExpression(expr)`: parsed, never type-checked; the environment
//!   is Flux's (see `cel/env.rs`): standard macros, optional types (library v2 included), the
//!   strings, sets and encoders extensions, UTC as the default time zone, cross-type numeric
//!   comparisons, last-wins duplicate map keys.
//! - Each top-level field of the object is a variable (`apiVersion`, `metadata`, `status`, ...);
//!   there is no `self`. Numbers follow Kubernetes typing: integers are `int`, never `uint`.
//! - Errors read as Flux's: `failed to evaluate the CEL expression '<e>': <cel-go error>`, with
//!   cel-go's `no such attribute(s): status.conditions`, `no such key: conditions`, ...
//! - [`StatusEvaluator`] is `NewStatusEvaluator` + `Evaluate`: the generation guard, then
//!   inProgress, failed, current, the first true wins, none true is InProgress, any error stops.
//! - [`Expression::eval_bool`] (what the status evaluator uses) first tries a fast evaluator over
//!   the borrowed JSON (`cel/fast.rs`), which answers only when its answer is certain; anything
//!   else (errors included) is evaluated by cel-rust, so results and error texts do not depend on
//!   which path answered.
//! - An expression is bounded by [`Limits`]: cel-go's parser limits (100,000 code points, nesting
//!   250) when it is parsed (`cel/bounds.rs`); an iteration budget, a memory budget and a 1 s
//!   deadline when it is evaluated, where cel-go has only its context's cancellation
//!   (`cel/budget.rs`). A bound hit is an evaluation error that names it, so the object is
//!   Unknown with that message.
//!
//! [`Expression::compile`] reproduces the `WithCompile()` options of `NewExpression` as far as
//! Flux's own tests need them; it is not a CEL type checker (see [`CompileOptions`]).

mod bounds;
mod budget;
mod check;
mod convert;
mod env;
mod errors;
mod fast;
pub(crate) use fast::get as small_map_get;
mod rewrite;

pub use budget::{Limits, DEFAULT_MAX_ITERATIONS};
pub use check::{CompileOptions, OutputType};
pub use convert::{json_to_val, type_name, val_to_json};

use super::{KResult, KStatus};
use cel::common::value::Val;
use cel::{Context, Value};
use serde_json::Value as Json;

/// A parsed CEL expression of Flux's environment.
#[derive(Debug, Clone)]
pub struct Expression {
    src: String,
    prepared: rewrite::Prepared,
    /// The fast evaluator's program, when the expression's root is in its subset (`cel/fast.rs`).
    fast: Option<fast::Program>,
    /// The depth of the parsed tree (evaluations get a stack to match, `bounds::with_stack`).
    depth: usize,
    limits: Limits,
}

impl Expression {
    /// Parses `src` as Flux's `NewExpression(src)` does (no type checking). The error is Flux's:
    /// `failed to parse the CEL expression '<src>': ERROR: <input>:1:5: Syntax error: ...`, with
    /// cel-go's source snippet lines.
    pub fn parse(src: &str) -> Result<Expression, String> {
        Expression::parse_with_limits(src, Limits::default())
    }

    /// [`Expression::parse`] under other limits (kept for the evaluations too). Beyond the parse
    /// errors: an expression longer than `max_expression_length` code points fails as cel-go's
    /// parser fails it (`ERROR: <input>:-1:0: expression code point size exceeds limit: size: N,
    /// limit M`), one nested deeper than `max_depth` with kubectl-pacto's text naming the bound;
    /// both before the parser runs.
    pub fn parse_with_limits(src: &str, limits: Limits) -> Result<Expression, String> {
        let nesting = bounds::check_source(src, &limits).map_err(|e| parse_failure(src, &e))?;
        let ast = bounds::with_stack(nesting, || env::env().parser().parse(src))
            .map_err(|e| parse_failure(src, &errors::parse_errors(src, &e)))?;
        let depth = bounds::check_tree(&ast, &limits).map_err(|e| parse_failure(src, &e))?;
        bounds::with_stack(depth, || {
            check::program_errors(&ast)
                .map_err(|e| format!("failed to create CEL program: {e}"))?;
            Ok(Expression::prepared(src, ast, depth).with_limits(limits))
        })
    }

    /// Parses `src` with Flux's `NewExpression` options (`WithCompile`, `WithStructVariables`,
    /// `WithOutputType`); see [`CompileOptions`] for what the checking covers.
    pub fn compile(src: &str, opts: &CompileOptions) -> Result<Expression, String> {
        if !opts.compile && (opts.output_type.is_some() || !opts.struct_variables.is_empty()) {
            return Err(
                "output type and variables can only be set when compiling the expression"
                    .to_string(),
            );
        }
        let limits = Limits::default();
        let nesting = bounds::check_source(src, &limits).map_err(|e| parse_failure(src, &e))?;
        let program = bounds::with_stack(nesting, || env::env().compile(src))
            .map_err(|e| parse_failure(src, &errors::parse_errors(src, &e)))?;
        let ast = program.expression().clone();
        let depth = bounds::check_tree(&ast, &limits).map_err(|e| parse_failure(src, &e))?;
        bounds::with_stack(depth, || {
            Expression::compiled(src, opts, &program, ast, depth)
        })
    }

    fn compiled(
        src: &str,
        opts: &CompileOptions,
        program: &cel::Program,
        ast: cel::common::ast::IdedExpr,
        depth: usize,
    ) -> Result<Expression, String> {
        if opts.compile {
            let output = check::check(src, program, opts).map_err(|e| parse_failure(src, &e))?;
            if let Some(want) = opts.output_type {
                if want != output {
                    return Err(format!(
                        "CEL expression output type mismatch: expected {}, got {}",
                        want.name(),
                        output.name()
                    ));
                }
            }
        } else {
            check::program_errors(&ast)
                .map_err(|e| format!("failed to create CEL program: {e}"))?;
        }
        Ok(Expression::prepared(src, ast, depth))
    }

    fn prepared(src: &str, ast: cel::common::ast::IdedExpr, depth: usize) -> Expression {
        Expression {
            src: src.to_string(),
            depth,
            fast: fast::Program::compile(&ast),
            prepared: rewrite::prepare(ast),
            limits: Limits::default(),
        }
    }

    /// The same expression with other evaluation limits.
    pub fn with_limits(mut self, limits: Limits) -> Expression {
        self.limits = limits;
        self
    }

    /// The limits evaluations run with.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        &self.src
    }

    /// Evaluates against `obj` (each top-level field a variable) and hands the raw CEL result,
    /// or the cel-go error text, to `f`.
    pub fn eval_raw<R>(
        &self,
        obj: &Json,
        f: impl FnOnce(Result<&(dyn Val + 'static), String>) -> R,
    ) -> R {
        self.eval_raw_from(obj, None, f)
    }

    /// [`Expression::eval_raw`] for an evaluation that began at `started` (its deadline counts
    /// from there). Only the top-level fields the expression names are converted: an expression
    /// reaches a variable only through an identifier.
    fn eval_raw_from<R>(
        &self,
        obj: &Json,
        started: Option<std::time::Instant>,
        f: impl FnOnce(Result<&(dyn Val + 'static), String>) -> R,
    ) -> R {
        let bindings: Vec<(String, Box<dyn Val>)> = match obj {
            Json::Object(m) => m
                .iter()
                .filter(|(k, _)| self.prepared.names.contains(k.as_str()))
                .map(|(k, v)| (k.clone(), convert::json_to_val(v)))
                .collect(),
            _ => Vec::new(),
        };
        self.eval_bindings_from(bindings, started, f)
    }

    /// Evaluates with the given variables (the conformance runner's entry point) and hands the
    /// raw CEL result, or the cel-go error text, to `f`.
    pub fn eval_bindings<R>(
        &self,
        bindings: Vec<(String, Box<dyn Val>)>,
        f: impl FnOnce(Result<&(dyn Val + 'static), String>) -> R,
    ) -> R {
        self.eval_bindings_from(bindings, None, f)
    }

    fn eval_bindings_from<R>(
        &self,
        bindings: Vec<(String, Box<dyn Val>)>,
        started: Option<std::time::Instant>,
        f: impl FnOnce(Result<&(dyn Val + 'static), String>) -> R,
    ) -> R {
        let ast = rewrite::bind_missing(&self.prepared, &|n| {
            bindings.iter().any(|(name, _)| name == n)
        });
        let mut ctx = Context::with_env(env::env());
        for (name, value) in bindings {
            ctx.add_variable_as_val(name, value);
        }
        let _guard = budget::start(&self.limits, started);
        // the rewrites add a few levels to the parsed tree
        bounds::with_stack(self.depth.saturating_mul(3), || {
            match Value::resolve_val(&ast, &ctx) {
                Ok(v) => f(Ok(v.as_ref())),
                Err(e) => f(Err(errors::execution_error(&e))),
            }
        })
    }

    fn eval_failure(&self, err: String) -> String {
        format!(
            "failed to evaluate the CEL expression '{}': {err}",
            self.src
        )
    }

    /// Flux's `EvaluateBoolean`. The fast evaluator answers when it is certain (`cel/fast.rs`);
    /// otherwise the cel-rust path evaluates, within the same deadline.
    pub fn eval_bool(&self, obj: &Json) -> Result<bool, String> {
        // An evaluation without comprehensions is bounded by the expression's size: the fast
        // path needs no clock then.
        let timed = self.fast.as_ref().is_none_or(|p| p.loops());
        let started = match (self.limits.deadline, timed) {
            (Some(_), true) => Some(std::time::Instant::now()),
            _ => None,
        };
        if let Some(program) = &self.fast {
            if let Some(b) = program.eval_bool(obj, &self.limits, started) {
                return Ok(b);
            }
        }
        let started = started.or_else(|| self.limits.deadline.map(|_| std::time::Instant::now()));
        self.eval_bool_slow(obj, started)
    }

    /// `eval_bool` on the cel-rust path alone.
    fn eval_bool_slow(
        &self,
        obj: &Json,
        started: Option<std::time::Instant>,
    ) -> Result<bool, String> {
        self.eval_raw_from(obj, started, |r| match r {
            Err(e) => Err(self.eval_failure(e)),
            Ok(v) => match v.downcast_ref::<cel::common::types::CelBool>() {
                Some(b) => Ok(*b.inner()),
                None => Err(format!(
                    "failed to evaluate CEL expression as boolean: '{}'",
                    self.src
                )),
            },
        })
    }

    /// Flux's `EvaluateString`.
    pub fn eval_string(&self, obj: &Json) -> Result<String, String> {
        self.eval_raw(obj, |r| match r {
            Err(e) => Err(self.eval_failure(e)),
            Ok(v) => match v.downcast_ref::<cel::common::types::CelString>() {
                Some(s) => Ok(s.inner().to_string()),
                None => Err(format!(
                    "failed to evaluate CEL expression as string: '{}'",
                    self.src
                )),
            },
        })
    }

    /// Flux's `EvaluateStringSlice`: a list of strings; cel-go's `ConvertToNative([]string)`
    /// errors otherwise.
    pub fn eval_string_slice(&self, obj: &Json) -> Result<Vec<String>, String> {
        self.eval_raw(obj, |r| match r {
            Err(e) => Err(self.eval_failure(e)),
            Ok(v) => check::to_string_slice(v).map_err(|e| {
                format!(
                    "failed to evaluate CEL expression '{}' as []string: {e}",
                    self.src
                )
            }),
        })
    }

    /// Flux's `Evaluate`: the result as JSON.
    pub fn evaluate(&self, obj: &Json) -> Result<Json, String> {
        self.eval_raw(obj, |r| match r {
            Err(e) => Err(self.eval_failure(e)),
            Ok(v) => Ok(convert::val_to_json(v)),
        })
    }
}

fn parse_failure(src: &str, issues: &str) -> String {
    format!("failed to parse the CEL expression '{src}': {issues}")
}

/// fluxcd/pkg `runtime/cel` `StatusEvaluator`: the three health expressions of one
/// `healthCheckExprs` entry.
#[derive(Debug, Clone)]
pub struct StatusEvaluator {
    pub current: Expression,
    pub failed: Option<Expression>,
    pub in_progress: Option<Expression>,
}

impl StatusEvaluator {
    /// `NewStatusEvaluator`: the three expressions of a `healthCheckExprs` entry, as strings; an
    /// empty one is not specified. `current` is required (`expression Current not specified`).
    /// A parse error reads
    /// `failed to parse the expression Current: failed to parse the CEL expression '<e>': ...`.
    pub fn new(current: &str, failed: &str, in_progress: &str) -> Result<StatusEvaluator, String> {
        StatusEvaluator::new_with_limits(current, failed, in_progress, Limits::default())
    }

    /// [`StatusEvaluator::new`] with the expressions parsed and evaluated under `limits`.
    pub fn new_with_limits(
        current: &str,
        failed: &str,
        in_progress: &str,
        limits: Limits,
    ) -> Result<StatusEvaluator, String> {
        if current.is_empty() {
            return Err("expression Current not specified".to_string());
        }
        let parse = |which: &str, src: &str| {
            Expression::parse_with_limits(src, limits)
                .map_err(|e| format!("failed to parse the expression {which}: {e}"))
        };
        let current = parse("Current", current)?;
        let failed = match failed {
            "" => None,
            src => Some(parse("Failed", src)?),
        };
        let in_progress = match in_progress {
            "" => None,
            src => Some(parse("InProgress", src)?),
        };
        Ok(StatusEvaluator {
            current,
            failed,
            in_progress,
        })
    }

    /// The same evaluator with other evaluation limits for its three expressions.
    pub fn with_limits(mut self, limits: Limits) -> StatusEvaluator {
        self.current = self.current.with_limits(limits);
        self.failed = self.failed.map(|e| e.with_limits(limits));
        self.in_progress = self.in_progress.map(|e| e.with_limits(limits));
        self
    }

    /// `Evaluate`. First the generation guard: an int64 `status.observedGeneration` different
    /// from an int64 `metadata.generation` is InProgress, and a value of another type (a string,
    /// a float) skips the guard. Then inProgress, failed, current in that order: the first true
    /// gives InProgress, Failed, Current; none true gives InProgress. The result has no message
    /// and no conditions. An error (including a non-bool result) is returned at once: the
    /// caller reports the object Unknown with it and the later expressions are not evaluated.
    pub fn evaluate(&self, obj: &Json) -> Result<KResult, String> {
        self.evaluate_why(obj).map(|(r, _)| r)
    }

    /// [`StatusEvaluator::evaluate`], and what decided: the generation guard, the first true
    /// expression, or none true.
    pub fn evaluate_why(&self, obj: &Json) -> Result<(KResult, Decided), String> {
        let result = |status| KResult {
            status,
            message: String::new(),
            conditions: Vec::new(),
        };
        let (observed, generation) =
            if crate::flux::release::emulated().tolerates_string_generation() {
                (
                    nested_int64(obj, &["status", "observedGeneration"]),
                    nested_int64(obj, &["metadata", "generation"]),
                )
            } else {
                // Before Flux v2.9 the guard read both with apimachinery's NestedInt64 and returned
                // its error: the object is then Unknown with it.
                match strict_nested_int64(obj, &["status", "observedGeneration"])? {
                    None => (None, None),
                    Some(o) => (
                        Some(o),
                        strict_nested_int64(obj, &["metadata", "generation"])?,
                    ),
                }
            };
        if let (Some(o), Some(g)) = (observed, generation) {
            if o != g {
                return Ok((
                    result(KStatus::InProgress),
                    Decided::GenerationGuard {
                        observed: o,
                        generation: g,
                    },
                ));
            }
        }
        let order = [
            (
                self.in_progress.as_ref(),
                KStatus::InProgress,
                Decided::InProgress,
            ),
            (self.failed.as_ref(), KStatus::Failed, Decided::Failed),
            (Some(&self.current), KStatus::Current, Decided::Current),
        ];
        for (expr, status, decided) in order {
            let Some(expr) = expr else { continue };
            if expr.eval_bool(obj)? {
                return Ok((result(status), decided));
            }
        }
        Ok((result(KStatus::InProgress), Decided::NoneTrue))
    }
}

/// What decided a [`StatusEvaluator`] verdict (Flux itself reports none of this: its result has
/// no message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decided {
    /// `status.observedGeneration` differs from `metadata.generation`: InProgress before any
    /// expression.
    GenerationGuard { observed: i64, generation: i64 },
    /// The `inProgress` expression is true.
    InProgress,
    /// The `failed` expression is true.
    Failed,
    /// The `current` expression is true.
    Current,
    /// No expression is true: InProgress, Flux keeps waiting.
    NoneTrue,
}

impl Decided {
    /// The words users read: `the failed expression is true`, ...
    pub fn describe(&self) -> String {
        match self {
            Decided::GenerationGuard {
                observed,
                generation,
            } => format!(
                "status.observedGeneration {observed} differs from metadata.generation {generation}"
            ),
            Decided::InProgress => "the inProgress expression is true".into(),
            Decided::Failed => "the failed expression is true".into(),
            Decided::Current => "the current expression is true".into(),
            Decided::NoneTrue => "no expression is true: Flux keeps waiting".into(),
        }
    }
}

/// apimachinery `unstructured.NestedInt64`: the value at `path` when every step is a map and the
/// value an int64 (a JSON whole number fitting int64).
/// apimachinery `unstructured.NestedInt64` as fluxcd/pkg `runtime/cel` before v0.105.0 (Flux
/// before v2.9) used it: absent is None; a value that is not an integer, or a step through
/// something that is not a mapping, is its error (`.status.observedGeneration accessor error: 2
/// is of the type string, expected int64`). A value Go would print in a way not reproduced here
/// (a list, a mapping, a number with an exponent) is refused as not emulated.
fn strict_nested_int64(obj: &Json, path: &[&str]) -> Result<Option<i64>, String> {
    let json_path = format!(".{}", path.join("."));
    let go_value = |v: &Json| -> Result<(String, &'static str), String> {
        match v {
            Json::String(t) => Ok((t.clone(), "string")),
            Json::Bool(b) => Ok((b.to_string(), "bool")),
            Json::Number(n) => match n.as_f64() {
                // Go prints these as Rust does (%v: shortest digits, no exponent below 1e6).
                Some(f) if f == 0.0 || (f.abs() >= 1e-4 && f.abs() < 1e6) => Ok((format!("{f}"), "float64")),
                _ => Err(format!("{json_path}: the value {n} of Flux before v2.9's generation check is not emulated (--flux-version)")),
            },
            _ => Err(format!("{json_path}: {} where Flux before v2.9 reads an integer is not emulated (--flux-version)", crate::object::json_type(v))),
        }
    };
    // NestedFieldNoCopy: a null on the way is absent; a step into what is not a mapping is an
    // error naming the path up to the field looked up.
    let mut cur = obj;
    for (i, key) in path.iter().enumerate() {
        let m = match cur {
            Json::Null => return Ok(None),
            Json::Object(m) => m,
            _ => {
                let (v, t) = go_value(cur)?;
                let at = format!(".{}", path[..=i].join("."));
                return Err(format!(
                    "{at} accessor error: {v} is of the type {t}, expected map[string]interface{{}}"
                ));
            }
        };
        match fast::get(m, key) {
            None => return Ok(None),
            Some(next) => cur = next,
        }
    }
    match cur {
        Json::Number(n) if !n.is_f64() && n.as_i64().is_some() => Ok(n.as_i64()),
        // Found, but nil: the int64 assertion fails on it.
        Json::Null => Err(format!(
            "{json_path} accessor error: <nil> is of the type <nil>, expected int64"
        )),
        other => {
            let (v, t) = go_value(other)?;
            Err(format!(
                "{json_path} accessor error: {v} is of the type {t}, expected int64"
            ))
        }
    }
}

fn nested_int64(obj: &Json, path: &[&str]) -> Option<i64> {
    let mut cur = obj;
    for key in path {
        cur = fast::get(cur.as_object()?, key)?;
    }
    match cur {
        Json::Number(n) if !n.is_f64() => n.as_i64(),
        _ => None,
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fast_tests;
