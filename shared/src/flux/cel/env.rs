//! The CEL environment of Flux's `healthCheckExprs`: fluxcd/pkg `runtime/cel` `NewExpression`
//! (cel-go v0.26.1 with `OptionalTypes()`, `ext.Strings()`, `ext.Sets()`, `ext.Encoders()`,
//! `DefaultUTCTimeZone(true)`, `CrossTypeNumericComparisons(true)`), rebuilt on cel-rust 0.15.
//!
//! cel 0.15 brings the standard library, the standard macros, the optional syntax and functions,
//! the strings and encoders extensions. Hand-written here because cel 0.15 lacks them:
//! - `sets.contains`, `sets.equivalent`, `sets.intersects` (cel-go `ext/sets.go`);
//! - optional library v2: `list.first()`, `list.last()`, `list.unwrapOpt()`,
//!   `optional.unwrap(list)` (cel-go `cel/library.go`);
//! - internal functions the rewritten AST calls (see `rewrite.rs`); their names start with `@`,
//!   which the CEL lexer never produces, so no expression can call them directly.

use super::bounds::val_size;
use super::budget;
use cel::common::types::{self, CelBool, CelList, CelOptional, CelString, CelTimestamp, Kind};
use cel::common::value::{CowVal, Val};
use cel::{Env, ExecutionError};
use std::sync::{Arc, OnceLock};

/// `@flux_fail('msg')`: fails with `msg`, verbatim (a missing attribute, see `rewrite.rs`).
pub(super) const FAIL: &str = "@flux_fail";
/// `@flux_select(x, 'f')`: `x.f` with cel-go's qualifier semantics and error texts.
pub(super) const SELECT: &str = "@flux_select";
/// `@flux_has(x, 'f')`: `has(x.f)` with cel-go's presence-test semantics.
pub(super) const HAS: &str = "@flux_has";
/// `@flux_charge(range)`: charges the size of a comprehension's range to the iteration budget.
pub(super) const CHARGE: &str = "@flux_charge";
/// `@flux_reverse(range)`: a list reversed, a map's keys in reverse iteration order.
pub(super) const REVERSE: &str = "@flux_reverse";
/// `@flux_utc(x)`: a timestamp moved to UTC, anything else unchanged (no-argument accessors).
pub(super) const UTC: &str = "@flux_utc";
/// `@flux_add(a, b)`: `a + b`, the size of a string, bytes or list result charged before it is
/// built.
pub(super) const ADD: &str = "@flux_add";
/// `@flux_replace(s, from, to[, n])`: `s.replace(from, to[, n])`, the result's size charged
/// before it is built.
pub(super) const REPLACE: &str = "@flux_replace";
/// `@flux_cost(x)`: `x`, the size of a string, bytes, list or map charged (a function's result).
pub(super) const COST: &str = "@flux_cost";
/// `@flux_elem(x)`: `x`, charged as an element of a list or map literal (8 bytes and its size).
pub(super) const ELEM: &str = "@flux_elem";

/// Global functions whose name has a namespace (`ns.f(...)`): a call `ns.f(...)` calls them
/// rather than `f` on a variable `ns`, as cel-go's `resolveFunction` decides.
pub(super) const NAMESPACED_FUNCTIONS: &[&str] = &[
    "optional.of",
    "optional.none",
    "optional.ofNonZeroValue",
    "optional.unwrap",
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
    "base64.encode",
    "base64.decode",
    "strings.quote",
];

/// Type names an identifier (or qualified name) resolves to when no variable has that name.
pub(super) const TYPE_NAMES: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "int",
    "list",
    "map",
    "null_type",
    "optional_type",
    "string",
    "type",
    "uint",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
];

/// The shared environment, built once.
pub(super) fn env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| Arc::new(build().expect("the Flux CEL environment declares no duplicate")))
        .clone()
}

fn build() -> Result<Env, cel::DeclarationError> {
    let mut env = Env::stdlib();
    env.add_extension(cel::extensions::strings)?;
    env.add_extension(cel::extensions::encoders)?;
    // cel-go keeps the last entry of a map literal that repeats a key.
    env.set_error_on_duplicate_map_keys(false);

    env.add_overload(
        "sets.contains",
        "list_sets_contains_list",
        vec![types::LIST_TYPE, types::LIST_TYPE],
        sets_contains,
    )?;
    env.add_overload(
        "sets.equivalent",
        "list_sets_equivalent_list",
        vec![types::LIST_TYPE, types::LIST_TYPE],
        sets_equivalent,
    )?;
    env.add_overload(
        "sets.intersects",
        "list_sets_intersects_list",
        vec![types::LIST_TYPE, types::LIST_TYPE],
        sets_intersects,
    )?;
    env.add_member_overload("first", "list_first", types::LIST_TYPE, vec![], list_first)?;
    env.add_member_overload("last", "list_last", types::LIST_TYPE, vec![], list_last)?;
    env.add_member_overload(
        "unwrapOpt",
        "optional_unwrapOpt",
        types::LIST_TYPE,
        vec![],
        unwrap_opt,
    )?;
    env.add_overload(
        "optional.unwrap",
        "optional_unwrap",
        vec![types::LIST_TYPE],
        unwrap_opt,
    )?;

    env.add_overload(FAIL, "flux_fail", vec![types::STRING_TYPE], fail)?;
    env.add_overload(
        SELECT,
        "flux_select",
        vec![types::DYN_TYPE, types::STRING_TYPE],
        select,
    )?;
    env.add_overload(
        HAS,
        "flux_has",
        vec![types::DYN_TYPE, types::STRING_TYPE],
        has,
    )?;
    env.add_overload(CHARGE, "flux_charge", vec![types::DYN_TYPE], charge)?;
    env.add_overload(UTC, "flux_utc", vec![types::DYN_TYPE], utc)?;
    env.add_overload(REVERSE, "flux_reverse", vec![types::DYN_TYPE], reverse)?;
    env.add_overload(
        ADD,
        "flux_add",
        vec![types::DYN_TYPE, types::DYN_TYPE],
        charged_add,
    )?;
    env.add_overload(
        REPLACE,
        "flux_replace",
        vec![types::DYN_TYPE, types::DYN_TYPE, types::DYN_TYPE],
        charged_replace,
    )?;
    env.add_overload(
        REPLACE,
        "flux_replace_n",
        vec![
            types::DYN_TYPE,
            types::DYN_TYPE,
            types::DYN_TYPE,
            types::DYN_TYPE,
        ],
        charged_replace,
    )?;
    env.add_overload(COST, "flux_cost", vec![types::DYN_TYPE], cost)?;
    env.add_overload(ELEM, "flux_elem", vec![types::DYN_TYPE], elem)?;
    Ok(env)
}

/// An error whose text the error mapper passes through verbatim.
pub(super) fn verbatim(message: impl Into<String>) -> ExecutionError {
    ExecutionError::FunctionError {
        function: FAIL.to_string(),
        message: message.into(),
    }
}

fn bool_val<'b, 'v>(b: bool) -> CowVal<'b, 'v> {
    CowVal::owned(CelBool::from(b))
}

fn elements<'b, 'v>(list: &'b (dyn Val + 'v)) -> Result<Vec<&'b (dyn Val + 'v)>, ExecutionError> {
    let iterable = list
        .as_iterable()
        .ok_or_else(|| ExecutionError::UnexpectedType {
            got: list.get_type().name().to_owned(),
            want: "list".to_owned(),
        })?;
    let mut it = iterable.iter();
    let mut out = Vec::new();
    while let Some(v) = it.next() {
        out.push(v);
    }
    Ok(out)
}

fn list_contains(list: &dyn Val, value: &dyn Val) -> Result<bool, ExecutionError> {
    match list.as_container() {
        Some(c) => c.contains(value),
        None => Ok(elements(list)?.iter().any(|e| e.equals(value))),
    }
}

/// cel-go `setsContains`: every element of the second list is in the first.
fn contains_all(list: &dyn Val, sublist: &dyn Val) -> Result<bool, ExecutionError> {
    for e in elements(sublist)? {
        if !list_contains(list, e)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn sets_contains<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    Ok(bool_val(contains_all(args[0].as_ref(), args[1].as_ref())?))
}

fn sets_equivalent<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = (args[0].as_ref(), args[1].as_ref());
    Ok(bool_val(contains_all(a, b)? && contains_all(b, a)?))
}

fn sets_intersects<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = (args[0].as_ref(), args[1].as_ref());
    for e in elements(a)? {
        if list_contains(b, e)? {
            return Ok(bool_val(true));
        }
    }
    Ok(bool_val(false))
}

fn list_first<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let items = elements(args[0].as_ref())?;
    Ok(CowVal::owned(match items.first() {
        Some(v) => CelOptional::of(v.clone_as_boxed()),
        None => CelOptional::none(),
    }))
}

fn list_last<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let items = elements(args[0].as_ref())?;
    Ok(CowVal::owned(match items.last() {
        Some(v) => CelOptional::of(v.clone_as_boxed()),
        None => CelOptional::none(),
    }))
}

/// cel-go `optUnwrap`: the values of the optionals that have one; a non-optional element is an
/// error (`value <v> is not optional`).
fn unwrap_opt<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut out: Vec<Box<dyn Val + 'v>> = Vec::new();
    for e in elements(args[0].as_ref())? {
        match e.downcast_ref::<CelOptional>() {
            Some(opt) => {
                if let Some(v) = opt.option() {
                    out.push(v.clone_as_boxed());
                }
            }
            None => {
                return Err(verbatim(format!(
                    "value {} is not optional",
                    super::convert::go_format(e)
                )))
            }
        }
    }
    Ok(CowVal::owned(CelList::from(out)))
}

fn fail<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let msg = args[0]
        .downcast_ref::<CelString>()
        .map(|s| s.inner().to_string())
        .unwrap_or_default();
    Err(verbatim(msg))
}

fn field_name<'a>(v: &'a CowVal<'_, '_>) -> &'a str {
    v.downcast_ref::<CelString>()
        .map(|s| s.inner())
        .unwrap_or("")
}

/// cel-go's qualification of a value by a string (`interpreter/attributes.go` `refQualify`):
/// a map gives the entry or `no such key: f`; a list `unsupported index type 'string' in list`;
/// anything else `no such key: f`.
fn qualify<'b, 'v>(operand: CowVal<'b, 'v>, field: &str) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let missing = || verbatim(format!("no such key: {field}"));
    let key = CelString::from(field.to_string());
    match operand.get_type().kind() {
        Kind::Map => match operand {
            CowVal::Borrowed(m) => m
                .as_indexer()
                .ok_or_else(missing)?
                .get(&key)
                .map_err(|_| missing()),
            CowVal::Owned(m) => m
                .as_indexer()
                .ok_or_else(missing)?
                .get(&key)
                .map(|v| CowVal::Owned(v.into_owned()))
                .map_err(|_| missing()),
        },
        Kind::List => Err(verbatim("unsupported index type 'string' in list")),
        _ => Err(missing()),
    }
}

/// `x.f`, as cel-go evaluates a field selection on JSON-like data.
fn select<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let field = field_name(&args[1]).to_string();
    let operand = args.swap_remove(0);
    // A selection on an optional is optional too (cel-go `applyQualifiers`): none stays none,
    // a present container gives `optional.of(v)` or none when the key is missing, and a present
    // non-container is an error.
    if let Some(opt) = operand.downcast_ref::<CelOptional>() {
        let Some(inner) = opt.option() else {
            return Ok(CowVal::owned(CelOptional::none()));
        };
        return match inner.get_type().kind() {
            Kind::Map => {
                let key = CelString::from(field.clone());
                let found = inner.as_indexer().and_then(|i| i.get(&key).ok());
                Ok(CowVal::owned(match found {
                    Some(v) => CelOptional::of(v.into_owned()),
                    None => CelOptional::none(),
                }))
            }
            Kind::List => Err(verbatim("unsupported index type 'string' in list")),
            _ => Err(verbatim(format!("no such key: {field}"))),
        };
    }
    qualify(operand, &field)
}

/// `has(x.f)` with cel-go's presence test: a map tells whether it has the key, a list is an
/// error, anything else is `false` (Flux does not enable `errorOnBadPresenceTest`).
fn has<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let field = field_name(&args[1]).to_string();
    let operand: &dyn Val = match args[0].downcast_ref::<CelOptional>() {
        Some(opt) => match opt.option() {
            Some(inner) => inner,
            None => return Ok(bool_val(false)),
        },
        None => args[0].as_ref(),
    };
    match operand.get_type().kind() {
        Kind::Map => {
            let key = CelString::from(field);
            let present = operand
                .as_indexer()
                .map(|i| i.get(&key).is_ok())
                .unwrap_or(false);
            Ok(bool_val(present))
        }
        Kind::List => Err(verbatim("unsupported index type 'string' in list")),
        _ => Ok(bool_val(false)),
    }
}

fn charge<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let range = args.swap_remove(0);
    let size = range
        .as_sizer()
        .map(|s| (*s.size().inner()).max(0) as u64)
        .unwrap_or(0);
    budget::charge(size)?;
    Ok(range)
}

fn utc<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let v = args.swap_remove(0);
    if let Some(ts) = v.downcast_ref::<CelTimestamp>() {
        let utc = ts.inner().to_utc().fixed_offset();
        return Ok(CowVal::owned(CelTimestamp::from(utc)));
    }
    Ok(v)
}

fn reverse<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let v = args.swap_remove(0);
    if !matches!(v.get_type().kind(), Kind::List | Kind::Map) {
        return Ok(v);
    }
    let mut items: Vec<Box<dyn Val + 'v>> = elements(v.as_ref())?
        .into_iter()
        .map(|e| e.clone_as_boxed())
        .collect();
    items.reverse();
    Ok(CowVal::owned(CelList::from(items)))
}

/// `a + b` as cel-rust's interpreter evaluates `_+_`, with the estimated size of a string, bytes
/// or list sum charged first (`budget::charge_alloc`).
fn charged_add<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = (args[0].as_ref(), args[1].as_ref());
    if matches!(a.get_type().kind(), Kind::String | Kind::Bytes | Kind::List) {
        budget::charge_alloc(val_size(a).saturating_add(val_size(b)))?;
    }
    let adder = a.as_adder().ok_or_else(|| {
        ExecutionError::UnsupportedBinaryOperator(
            "add",
            cel::Value::try_from(a).unwrap_or(cel::Value::Null),
            cel::Value::try_from(b).unwrap_or(cel::Value::Null),
        )
    })?;
    Ok(CowVal::Owned(adder.add(b)?.into_owned()))
}

/// The strings extension's `replace` (all occurrences, or the first `n` when `n` is not
/// negative, as Go's `strings.Replace`), with the result's length computed and charged before
/// it is built. Other argument types fail as a call with no matching overload.
fn charged_replace<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let s = |i: usize| args.get(i).and_then(|a| a.downcast_ref::<CelString>());
    let n = match args.get(3) {
        None => Some(-1),
        Some(a) => a.downcast_ref::<types::CelInt>().map(|n| *n.inner()),
    };
    let (Some(this), Some(from), Some(to), Some(n)) = (s(0), s(1), s(2), n) else {
        let types = args
            .iter()
            .map(|a| a.get_type().name().to_string())
            .collect();
        return Err(ExecutionError::no_such_member_overload("replace", types));
    };
    let (this, from, to) = (this.inner(), from.inner(), to.inner());
    let found = if from.is_empty() {
        this.chars().count() + 1
    } else {
        this.matches(from).count()
    };
    let count = match usize::try_from(n) {
        Ok(n) => found.min(n),
        Err(_) => found,
    };
    let len = (this.len() as u64)
        .saturating_add((count as u64).saturating_mul(to.len() as u64))
        .saturating_sub((count as u64).saturating_mul(from.len() as u64));
    budget::charge_alloc(len)?;
    let out = match usize::try_from(n) {
        Ok(n) => this.replacen(from, to, n),
        Err(_) => this.replace(from, to),
    };
    Ok(CowVal::owned(CelString::from(out)))
}

fn cost<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let v = args.swap_remove(0);
    if matches!(
        v.get_type().kind(),
        Kind::String | Kind::Bytes | Kind::List | Kind::Map
    ) {
        budget::charge_alloc(val_size(v.as_ref()))?;
    }
    Ok(v)
}

fn elem<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let v = args.swap_remove(0);
    budget::charge_alloc(8u64.saturating_add(val_size(v.as_ref())))?;
    Ok(v)
}
