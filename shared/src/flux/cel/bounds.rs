//! The size bounds of an expression (checked when it is parsed) and the size estimate of values
//! (charged while it is evaluated, see `budget.rs`).
//!
//! Parsing: cel-go's parser (fluxcd/pkg `runtime/cel` builds it with the defaults) refuses an
//! expression longer than 100,000 code points with `expression code point size exceeds limit:
//! size: N, limit 100000`, reported at no location (`ERROR: <input>:-1:0: ...`, cel-go
//! `parser/parser.go` `Parse`, `common/error.go`), and stops at a recursion depth of 250
//! (`expression recursion limit exceeded: 250`). The length check here is cel-go's, text
//! included. The depth is measured twice, as kubectl-pacto's own approximation of cel-go's rule:
//! before parsing, on the tokens (bracket nesting plus the longest chain of selections, indexes and
//! calls), so that a hostile chain never reaches the parser, whose time and memory grow faster
//! than linearly with it; after parsing, on the tree (a chain of 4,000 `+` is 4,000 deep).

use super::budget::Limits;
use cel::common::ast::IdedExpr;
use cel::common::types::{CelBytes, CelMap, CelString, Kind};
use cel::common::value::Val;
use serde_json::Value as Json;

/// Checks `src` against the length and depth bounds before it is parsed. The error is the issue
/// text (the caller adds Flux's `failed to parse the CEL expression` wrapper).
/// Returns the nesting the tokens show (see `token_depth`).
pub(super) fn check_source(src: &str, limits: &Limits) -> Result<usize, String> {
    let len = src.chars().count();
    if len > limits.max_expression_length {
        return Err(format!(
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: {len}, limit {}",
            limits.max_expression_length
        ));
    }
    let depth = token_depth(src);
    if depth > limits.max_depth {
        return Err(depth_error(depth, limits.max_depth));
    }
    Ok(depth)
}

/// Runs `f`, on a larger stack when what is left of this one may not hold `depth` levels of the
/// recursive tree walks (cel-rust's parser and evaluator, the rewrites): a level takes a few
/// kilobytes in a release build, tens of kilobytes in a debug build. Shallow
/// expressions run on the caller's stack; a new stack is reserved, not committed, so a generous
/// size costs address space only.
pub(super) fn with_stack<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    const PER_LEVEL: usize = if cfg!(debug_assertions) {
        256 << 10
    } else {
        16 << 10
    };
    let need = (128 << 10) + depth.saturating_mul(PER_LEVEL);
    stacker::maybe_grow(need, need.saturating_mul(2), f)
}

fn depth_error(depth: usize, max: usize) -> String {
    format!(
        "ERROR: <input>:-1:0: expression nested {depth} levels deep, over kubectl-pacto's bound \
         of {max} (Limits::max_depth); Flux's parser (cel-go) refuses expressions nested deeper \
         than 250 too"
    )
}

/// Checks the parsed tree's depth; returns it.
pub(super) fn check_tree(ast: &IdedExpr, limits: &Limits) -> Result<usize, String> {
    let mut max = 0;
    let mut stack = vec![(ast, 1usize)];
    while let Some((e, d)) = stack.pop() {
        max = max.max(d);
        if max > limits.max_depth {
            return Err(depth_error(max, limits.max_depth));
        }
        let mut children = Vec::new();
        super::rewrite::children_of(e, &mut children);
        stack.extend(children.into_iter().map(|c| (c, d + 1)));
    }
    Ok(max)
}

/// The nesting of `src` as its tokens show it: at each point, the open brackets, plus the length
/// of the chain of `.f`, `[..]` and `(..)` postfixes the current operand has so far, plus the
/// arithmetic and relational operators since the last `&&`, `||`, `?`, `:` or `,` of its bracket
/// (cel-go's parser recurses once per such operator; it balances `&&` and `||` chains). String
/// literals (quoted, triple-quoted, raw) are skipped; numbers and identifiers are single tokens.
fn token_depth(src: &str) -> usize {
    let b = src.as_bytes();
    // per open bracket: (postfix chain, operators)
    let mut levels: Vec<(usize, usize)> = vec![(0, 0)];
    let mut max = 0;
    // whether the previous token ends an operand (so `(` and `[` are postfix)
    let mut after_operand = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let top = levels.len() - 1;
        match c {
            b'\'' | b'"' => {
                let raw = i > 0
                    && matches!(b[i - 1], b'r' | b'R')
                    && (i < 2 || !is_ident(b[i - 2]) || matches!(b[i - 2], b'b' | b'B'));
                i = skip_string(b, i, raw);
                after_operand = true;
                continue;
            }
            b'(' | b'[' | b'{' => {
                if after_operand {
                    levels[top].0 += 1;
                }
                levels.push((0, 0));
                after_operand = false;
            }
            b')' | b']' | b'}' => {
                if levels.len() > 1 {
                    levels.pop();
                }
                after_operand = true;
            }
            b'.' => {
                levels[top].0 += 1;
                after_operand = false;
            }
            b'?' if i > 0 && b[i - 1] == b'.' => {}
            b'?' if b.get(i + 1) == Some(&b'.') => {}
            c if c.is_ascii_whitespace() => {}
            c if is_ident(c) => {
                while i < b.len() && (is_ident(b[i]) || (c.is_ascii_digit() && number_part(b, i))) {
                    i += 1;
                }
                after_operand = true;
                max = max.max(top + levels[top].0 + levels[top].1);
                continue;
            }
            b'&' | b'|' | b'?' | b':' | b',' => {
                levels[top] = (0, 0);
                after_operand = false;
            }
            _ => {
                // `+ - * / % < > == != <= >=`: one operator each (the `=` of a two-character
                // operator is not counted again)
                let second = c == b'=' && i > 0 && matches!(b[i - 1], b'=' | b'!' | b'<' | b'>');
                let unary_not = c == b'!' && b.get(i + 1) != Some(&b'=');
                if !second && !unary_not {
                    levels[top].1 += 1;
                }
                levels[top].0 = 0;
                after_operand = false;
            }
        }
        let top = levels.len() - 1;
        max = max.max(top + levels[top].0 + levels[top].1);
        i += 1;
    }
    max
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Whether `b[i]` continues a number literal (`1.5`, `1e-3`).
fn number_part(b: &[u8], i: usize) -> bool {
    match b[i] {
        b'.' => b.get(i + 1).is_some_and(|c| c.is_ascii_digit()),
        b'+' | b'-' => i > 0 && matches!(b[i - 1], b'e' | b'E'),
        _ => false,
    }
}

/// The index after the string literal starting at `b[i]` (a quote).
fn skip_string(b: &[u8], i: usize, raw: bool) -> usize {
    let q = b[i];
    let triple = b.len() >= i + 3 && b[i + 1] == q && b[i + 2] == q;
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < b.len() {
        if !raw && b[j] == b'\\' {
            j += 2;
            continue;
        }
        if triple {
            if b[j] == q && b.len() >= j + 3 && b[j + 1] == q && b[j + 2] == q {
                return j + 3;
            }
        } else if b[j] == q || b[j] == b'\n' {
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

/// Estimated bytes of a CEL value: strings and bytes their length, a list 8 bytes an element
/// plus its elements, a map 16 bytes an entry plus its keys and values, anything else 8.
pub(super) fn val_size(v: &dyn Val) -> u64 {
    match v.get_type().kind() {
        Kind::String => v
            .downcast_ref::<CelString>()
            .map(|s| s.inner().len() as u64)
            .unwrap_or(8),
        Kind::Bytes => v
            .downcast_ref::<CelBytes>()
            .map(|b| b.inner().len() as u64)
            .unwrap_or(8),
        Kind::List => {
            let mut total = 0u64;
            if let Some(it) = v.as_iterable() {
                let mut it = it.iter();
                while let Some(e) = it.next() {
                    total = total.saturating_add(8 + val_size(e));
                }
            }
            total
        }
        Kind::Map => match v.downcast_ref::<CelMap>() {
            Some(m) => m.inner().iter().fold(0u64, |acc, (k, v)| {
                acc.saturating_add(16 + val_size(k.inner()) + val_size(v.as_ref()))
            }),
            None => 8,
        },
        _ => 8,
    }
}

/// [`val_size`] of a JSON value as `convert.rs` makes it a CEL value.
pub(super) fn json_size(v: &Json) -> u64 {
    match v {
        Json::String(s) => s.len() as u64,
        Json::Array(items) => items
            .iter()
            .fold(0u64, |acc, e| acc.saturating_add(8 + json_size(e))),
        Json::Object(m) => m.iter().fold(0u64, |acc, (k, v)| {
            acc.saturating_add(16 + k.len() as u64 + json_size(v))
        }),
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::token_depth;

    #[test]
    fn token_depth_counts_nesting_chains_and_operators_not_strings() {
        assert_eq!(token_depth("a"), 0);
        assert_eq!(token_depth("status.a.b"), 2);
        assert_eq!(token_depth("f(g(x))"), 2);
        assert_eq!(token_depth("a + b + c"), 2);
        // `&&`, `||`, `?:` and `,` start a new operand (cel-go balances `&&` and `||` chains)
        assert_eq!(token_depth("a.b == 1 || c.d == 2 || e.f == 3"), 1);
        assert_eq!(token_depth("x > 1 ? y.z : w"), 1);
        // brackets inside strings, raw strings and triple-quoted strings are text
        assert_eq!(token_depth("s == '(((((('"), 1);
        assert_eq!(token_depth(r#"s == r'\' && t == """((("""'"#), 1);
        assert_eq!(token_depth("x == 1.5e-3"), 1);
    }
}
