//! gopher-lua emulation: what Argo CD's gopher-lua v1.1.2 (the version argo-cd pins) does
//! differently from LuaJIT in ways a health script can see, supplied to the sandbox
//! ([`super::lua`]), which runs scripts on LuaJIT.
//!
//! * Value semantics (`number`): how a number becomes a string, how `tonumber` and arithmetic
//!   coercion read a string, gopher's `%` ([`number_to_string`], [`tonumber`], [`parse_number`],
//!   [`lua_modulo`]).
//! * The front end ([`rewrite`]): Argo CD runs health scripts on gopher-lua (Lua 5.1 plus the Lua
//!   5.2 `goto` statement). Some operators behave differently on the two VMs in ways a user can
//!   see (`..` formats numbers differently, `#` picks a different border of a table with holes,
//!   arithmetic reads strings differently), so before LuaJIT compiles a script [`rewrite`] routes
//!   every binary `..` chain, every unary `#` and arithmetic through functions the sandbox
//!   supplies, routes table constructors through the function that keeps gopher's key order
//!   (`constructor`), rewrites the statements gopher's compiler treats differently (`compat`:
//!   multiple assignment to locals, numeric `for`, the `arg` of vararg functions, knowing what
//!   each name refers to from `scope`), and makes the few token-level edits listed in `edit` so
//!   that LuaJIT reads the script the way gopher-lua does. Chunks a script compiles at run time
//!   (`loadstring`) go through the same rewrite ([`rewrite_bytes`]).
//!
//! The front end's lexer and parser follow gopher-lua v1.1.2 `parse/lexer.go` (`token`,
//! `scanner`) and `parse/parser.go.y` (`parser` for statements, `expr` for expressions and the
//! precedence table, `constructor` for table constructors); `edit` holds the edits and applies
//! them, `error` the syntax error. They accept exactly the language gopher-lua's parser accepts
//! and report the first syntax error at the same token with the same message (see
//! [`SyntaxError`]). They were written from those facts, not translated, and checked
//! differentially against gopher-lua.
//!
//! Not reproduced: errors gopher-lua raises in its compiler rather than its parser (see
//! [`rewrite`]; the sandbox words the one LuaJIT reports on the same line, `...` outside a vararg
//! function, as gopher does); numerals whose value gopher-lua gets wrong in ways not listed in
//! `edit`; and the runtime behaviour of everything else, which is the sandbox's business.

mod compat;
mod constructor;
mod edit;
mod error;
mod expr;
mod number;
mod parser;
mod routes;
mod scanner;
mod scope;
mod token;

pub use edit::{rewrite, rewrite_bytes};
pub use error::{SyntaxError, TOO_MANY_LEVELS};
pub use number::{lua_modulo, number_to_string, parse_number, tonumber};
pub use routes::{check_routes, CONCAT_FN, KEEP_FN, LEN_FN, ROUTED};

/// Helpers of the front end's tests.
#[cfg(test)]
mod testing {
    use super::rewrite;

    /// The rewrite of `src` with `CONCAT` and `LEN` as the function names; panics on an error.
    pub(super) fn rw(src: &str) -> String {
        match rewrite(src, "CONCAT", "LEN") {
            Ok(s) => s,
            Err(e) => panic!("rewrite failed for {src:?}: {e}"),
        }
    }

    /// The error text of `src`, which must not parse.
    pub(super) fn err(src: &str) -> String {
        match rewrite(src, "CONCAT", "LEN") {
            Ok(s) => panic!("expected an error for {src:?}, got {s:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// Every newline byte of `a` is at the same line (counting `\n`) in `b`.
    pub(super) fn same_lines(a: &str, b: &str) {
        assert_eq!(
            a.matches('\n').count(),
            b.matches('\n').count(),
            "{a:?} vs {b:?}"
        );
        assert_eq!(
            a.matches('\r').count(),
            b.matches('\r').count(),
            "{a:?} vs {b:?}"
        );
    }
}
