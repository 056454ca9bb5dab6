//! cel-rust errors worded as cel-go v0.26.1 words them.
//!
//! Parse errors: cel-go's `common.Errors.ToDisplayString` (`ERROR: <input>:L:C: msg`, then the
//! source line and a caret line, both indented ` | `). The messages themselves come from the same
//! ANTLR grammar and macro checks in both implementations.
//!
//! Evaluation errors: the texts of cel-go's interpreter and types (`common/types/err.go`,
//! `interpreter/attributes.go`, `common/decls/decls.go`). Missing attributes and field selections
//! never reach this mapping: the rewritten AST raises cel-go's exact texts (see `rewrite.rs`).
//! What is mapped by rule, not reproduced exactly:
//! - a call with no matching overload: `no such overload` when cel-go dispatches through a trait the
//!   receiver has (`1 + 'a'`, `'a' < 1`), `no such overload: f` when it lacks it (`size(1)`),
//!   `no such overload: f(t1, t2)` for a named function (`'a'.contains(1)` is
//!   `no such overload: contains(string, int)`);
//! - an unknown function: `no such overload: f` (cel-go adds the call's node id for three or more
//!   arguments, and fails at program creation for zero arguments);
//! - a standard function's own failure (`int('x')`, `matches` with a bad pattern, `timestamp`
//!   parsing): cel-rust's message, as it has no cel-go counterpart to map to.

use super::env::FAIL;
use cel::{ExecutionError, ParseErrors, Value};

/// `ParseErrors` as cel-go's `Issues.String()` prints them for `src`.
pub fn parse_errors(src: &str, errs: &ParseErrors) -> String {
    let mut items: Vec<(isize, isize, &str)> = errs
        .errors
        .iter()
        .map(|e| (e.pos.0, e.pos.1, e.msg.as_str()))
        .collect();
    items.sort_by_key(|&(line, col, _)| (line, col));
    items
        .iter()
        .map(|&(line, col, msg)| {
            let mut out = format!("ERROR: <input>:{line}:{col}: {msg}");
            let snippet = usize::try_from(line - 1)
                .ok()
                .and_then(|l| src.split('\n').nth(l));
            if let Some(snippet) = snippet {
                let snippet = snippet.replace('\t', " ");
                out.push_str("\n | ");
                out.push_str(&snippet);
                out.push_str("\n | ");
                let mut chars = snippet.chars();
                for _ in 1..col.max(1) {
                    match chars.next() {
                        Some(c) if c.len_utf8() > 1 => out.push('\u{ff0e}'),
                        Some(_) => out.push('.'),
                        None => break,
                    }
                }
                match chars.next() {
                    Some(c) if c.len_utf8() > 1 => out.push('\u{ff3e}'),
                    _ => out.push('^'),
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a cel-go value of this type name has the trait through which cel-go dispatches the
/// operator `function`: a call that fails on such a receiver says `no such overload`, one on a
/// receiver without it `no such overload: <function>`.
fn has_trait(function: &str, type_name: &str) -> bool {
    const NUMBERS: &[&str] = &["int", "uint", "double"];
    let time = ["google.protobuf.Duration", "google.protobuf.Timestamp"];
    match function {
        "_+_" | "add" => {
            NUMBERS.contains(&type_name)
                || ["string", "bytes", "list"].contains(&type_name)
                || time.contains(&type_name)
        }
        "_-_" | "sub" => NUMBERS.contains(&type_name) || time.contains(&type_name),
        "_*_" | "mul" | "_/_" | "div" => NUMBERS.contains(&type_name),
        "_%_" | "rem" => ["int", "uint"].contains(&type_name),
        "-_" => ["int", "double", "google.protobuf.Duration"].contains(&type_name),
        "_<_" | "_<=_" | "_>_" | "_>=_" => {
            NUMBERS.contains(&type_name)
                || ["bool", "string", "bytes"].contains(&type_name)
                || time.contains(&type_name)
        }
        "_[_]" => ["list", "map"].contains(&type_name),
        "size" => ["string", "bytes", "list", "map"].contains(&type_name),
        _ => false,
    }
}

/// Operators that cel-go dispatches through a trait of the first operand.
const TRAIT_OPERATORS: &[&str] = &[
    "_+_", "_-_", "_*_", "_/_", "_%_", "-_", "_<_", "_<=_", "_>_", "_>=_", "_[_]", "size",
];

/// Operators whose failure cel-go reports as a bare `no such overload`.
const PLAIN_OPERATORS: &[&str] = &["!_", "_&&_", "_||_", "_?_:_", "@in", "_==_", "_!=_"];

fn cel_type_of(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Function(_, _) => "function",
        Value::Int(_) => "int",
        Value::UInt(_) => "uint",
        Value::Float(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Bool(_) => "bool",
        Value::Duration(_) => "google.protobuf.Duration",
        Value::Timestamp(_) => "google.protobuf.Timestamp",
        Value::Opaque(_) => "optional_type",
        Value::Struct(_) => "struct",
        Value::Null => "null_type",
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

fn overload_text(function: &str, types: &[String]) -> String {
    if TRAIT_OPERATORS.contains(&function) {
        return match types.first() {
            Some(t) if has_trait(function, t) => "no such overload".to_string(),
            _ => format!("no such overload: {function}"),
        };
    }
    if PLAIN_OPERATORS.contains(&function) {
        return "no such overload".to_string();
    }
    format!("no such overload: {function}({})", types.join(", "))
}

/// An evaluation error as cel-go words it.
pub fn execution_error(e: &ExecutionError) -> String {
    match e {
        ExecutionError::FunctionError { function, message } if function == FAIL => message.clone(),
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::UndeclaredReference(name) => format!("no such overload: {name}"),
        ExecutionError::NoSuchOverload(o) => overload_text(o.function(), o.argument_types()),
        ExecutionError::UnsupportedBinaryOperator(op, l, _) => {
            let function = match *op {
                "add" => "_+_",
                "sub" => "_-_",
                "mul" => "_*_",
                "div" => "_/_",
                "rem" => "_%_",
                other => other,
            };
            overload_text(function, &[cel_type_of(l).to_string()])
        }
        ExecutionError::ValuesNotComparable(l, _) => {
            overload_text("_<_", &[cel_type_of(l).to_string()])
        }
        ExecutionError::DivisionByZero(_) => "division by zero".to_string(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_string(),
        ExecutionError::Overflow(_, l, _) => match l {
            Value::UInt(_) => "unsigned integer overflow",
            Value::Duration(_) => "duration overflow",
            Value::Timestamp(_) => "timestamp overflow",
            _ => "integer overflow",
        }
        .to_string(),
        ExecutionError::IndexOutOfBounds(v) => format!("index out of bounds: {}", value_text(v)),
        ExecutionError::UnexpectedType { got, want } if want == "int|uint|double" => {
            format!("unsupported index type '{got}' in list")
        }
        ExecutionError::UnexpectedType { .. }
        | ExecutionError::InvalidArgumentCount { .. }
        | ExecutionError::UnsupportedTargetType { .. }
        | ExecutionError::NotSupportedAsMethod { .. }
        | ExecutionError::MissingArgumentOrTarget => "no such overload".to_string(),
        ExecutionError::UnsupportedKeyType(v) => {
            format!("unsupported key type: {}", cel_type_of(v))
        }
        ExecutionError::UnsupportedIndex(idx, _) => {
            format!("unsupported index value {}", value_text(idx))
        }
        ExecutionError::FunctionError { message, .. } => message.clone(),
        other => other.to_string(),
    }
}
