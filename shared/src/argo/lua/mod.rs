//! The Lua sandbox that runs Argo CD health scripts the way argo-cd `util/lua/lua.go`
//! (`runLuaWithResourceActionParameters`, `ExecuteHealthLua`, `decodeValue`) runs them on
//! gopher-lua v1.1.2, built on LuaJIT (through mlua) with the gopher-visible behaviour supplied:
//!
//! * one fresh state per evaluation; restricted mode has base, table and package only (no
//!   `string`, `math`, global `os`; strings have no methods), `require("os")` gives `time` and
//!   `date`; open mode (`useOpenLibs`) has every library;
//! * `obj` converted as `decodeValue` does: numbers as floats, nulls in arrays dropped, null map
//!   values absent, `{}`/`[]` both empty tables;
//! * the result decoded as `ExecuteHealthLua` does (see [`decode_result`]);
//! * gopher's number formatting in `tostring` and `..`, its `#` on tables with holes, its
//!   arithmetic on numeric strings (`"010" + 0` is 8), `tonumber`, and its runtime error texts
//!   (`<string>:LINE: attempt to index a non-table object(nil) with key 'x'`, `bad argument #1
//!   to ipairs (table expected, got nil)`, ...), through the source rewriter
//!   ([`super::gopher::rewrite`]) and the prelude (`prelude/vm.lua`);
//! * gopher's base library checks and texts (`prelude/baselib.lua`), its `table` library
//!   (`prelude/tablelib.lua`; its `sort` is Go's pdqsort, in `sortlib`), `require` and
//!   `loadstring` (chunks compiled at run time go through the same rewrite, `prelude/env.lua`),
//!   `os.time`/`os.date` (`oslib`) and, in open mode, its `math` and `coroutine` libraries
//!   (`prelude/mathlib.lua`, `prelude/coroutinelib.lua`), its string functions that differ from
//!   LuaJIT's (`strlib` and `strbyte`, on gopher's pattern engine in `pattern`), its
//!   `string.format` (Go's `fmt.Sprintf`, in `fmtlib`), its `channel` library (`channel`), and
//!   Go's panics in library functions with gopher's traceback (`gopanic`);
//! * limits: 1 s of wall-clock time (Argo's `context.WithTimeout`), 256 call frames (gopher's
//!   `CallStackSize`), enforced by the instruction hook (`hook`), and beyond Argo a memory cap
//!   and bounds on object nesting and run-time chunk size; every library call that could run
//!   long checks the deadline or the memory cap itself, so evaluations run on the calling
//!   thread; and beyond Argo, no script can run a process, touch files, read the environment or
//!   exit, even with open libraries (`prelude/refused.lua` holds everything a script is refused).
//!
//! The sandbox is split by concept: `script` compiles a script once, `evaluate` runs an
//! evaluation under its limits (error texts), `sandbox` prepares the LuaJIT state with the
//! host functions and the prelude, whose Lua files `prelude` loads in their order, `hook`
//! enforces the time and depth limits, `order` and `libs` describe and test gopher's key order
//! and its table, math and coroutine libraries, `oslib`/`strlib`/`strbyte`/
//! `pattern`/`fmtlib`/`sortlib`/`channel` hold the library functions written in Rust, `convert`
//! moves values between JSON and Lua, and `result` decodes the script's result into a health
//! status.

mod channel;
mod convert;
mod evaluate;
mod fmtlib;
mod gofmt;
mod gopanic;
mod hook;
mod libs;
mod order;
mod oslib;
mod pattern;
mod prelude;
mod result;
mod sandbox;
mod script;
mod sortlib;
mod strbyte;
mod strlib;

pub use evaluate::{execute_health, Evaluation, Limits};
pub use result::{decode_result, LuaResult};
pub use script::{oversized, set_max_script_bytes, Script, DEFAULT_MAX_SCRIPT_BYTES};

/// Go's `strconv.Quote` of a byte string (its `%q`), for the built-in checks' messages.
pub(crate) fn go_quote(s: &[u8]) -> Vec<u8> {
    gofmt::quote(s, false)
}

/// Helpers of the sandbox's tests.
#[cfg(test)]
mod testing {
    use super::{execute_health, Limits, Script};
    use crate::argo::HealthStatus;
    use serde_json::{json, Value};

    pub(super) fn eval_with(src: &str, obj: &Value, open: bool) -> Result<HealthStatus, String> {
        let script = Script::compile(src)?;
        execute_health(&script, obj, open, 1_709_208_000, &Limits::default()).result
    }
    pub(super) fn eval(src: &str) -> Result<HealthStatus, String> {
        eval_with(src, &json!({"metadata": {"name": "a"}}), false)
    }
    /// The message of `return {status="Healthy", message=<expr>}`.
    pub(super) fn msg(expr: &str, open: bool) -> String {
        let src = format!("return {{status = \"Healthy\", message = {expr}}}");
        eval_with(&src, &json!({"metadata": {"name": "a"}}), open)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
            .message
    }
}
