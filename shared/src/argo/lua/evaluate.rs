//! One evaluation under its limits, as argo-cd `util/lua/lua.go`
//! (`runLuaWithResourceActionParameters`, `ExecuteHealthLua`) runs a script: the limits (1 s of
//! wall-clock time as Argo's `context.WithTimeout`, gopher-lua's 256 call frames, and beyond Argo
//! a memory cap), the choice of LuaJIT state, and the error texts in gopher-lua's wording.

use super::sandbox::Vm;
use super::script::Script;
use crate::argo::HealthStatus;
use serde_json::Value;
use std::cell::RefCell;
use std::time::Duration;

/// Resource limits of one evaluation.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock limit; Argo CD uses 1 s (`util/lua/lua.go`).
    pub timeout: Duration,
    /// Bytes the Lua state may allocate; Argo has no such cap, we use 64 MiB by default.
    pub memory_bytes: usize,
    /// Call frames; gopher-lua's `CallStackSize` is 256.
    pub max_call_depth: usize,
    /// Nesting levels of the object a script is given; beyond Argo, which has no such bound. The
    /// conversion recurses on the calling thread: each level takes a few hundred bytes of stack.
    pub max_object_depth: usize,
    /// Bytes of source a script may compile at run time with `loadstring`/`load`; beyond Argo.
    pub max_chunk_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(1),
            memory_bytes: 64 << 20,
            max_call_depth: 256,
            max_object_depth: 1000,
            max_chunk_bytes: 1 << 20,
        }
    }
}

/// What one evaluation produced: the health (or the error text Argo would show as an `Unknown`
/// health message), and whatever the script printed, one entry per `print` call (gopher-lua's
/// basePrint writes it to the process's stdout: the controller's log, or the CLI's output before
/// `STATUS:`).
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub result: Result<HealthStatus, String>,
    pub printed: Vec<String>,
}

/// Runs a health script on an object. `open_libs` is the `useOpenLibs` of the override (built-in
/// scripts always run open); `now_unix` is what `os.time()` returns.
///
/// The evaluation runs on the calling thread. The instruction hook stops a script at the time
/// limit; the library calls that could run long without executing Lua instructions are bounded
/// themselves: the pattern functions check the deadline as they search (`pattern`), `string.rep`,
/// `gsub` and the matches kept are held to the memory cap (`strlib`), `table.sort` compares
/// through the hook-covered comparator or checks the deadline itself (`sortlib`), chunks loaded at
/// run time are limited in size (`prelude/env.lua`), and the object conversion is limited in depth
/// (`convert`).
pub fn execute_health(
    script: &Script,
    obj: &Value,
    open_libs: bool,
    now_unix: i64,
    limits: &Limits,
) -> Evaluation {
    evaluate_here(script, obj, open_libs, now_unix, limits)
}

/// Runs an evaluation on the calling thread.
///
/// Every evaluation gets fresh globals and fresh library tables. Restricted evaluations share one
/// prepared LuaJIT state per thread (what a restricted script can reach is rebuilt per
/// evaluation, see `prelude/env.lua`); open-libs evaluations, which can reach the `debug` library,
/// get a new state each time. A state that hit a limit is never reused.
fn evaluate_here(
    script: &Script,
    obj: &Value,
    open_libs: bool,
    now_unix: i64,
    limits: &Limits,
) -> Evaluation {
    thread_local! {
        static RESTRICTED: RefCell<Option<Vm>> = const { RefCell::new(None) };
    }
    if open_libs {
        return match Vm::new(true) {
            Ok(vm) => vm.evaluate(script, obj, now_unix, limits).0,
            Err(e) => failed(lua_error_text(&e, limits)),
        };
    }
    RESTRICTED.with(|slot| {
        let mut slot = slot.borrow_mut();
        let vm = match slot.take() {
            Some(vm) => vm,
            None => match Vm::new(false) {
                Ok(vm) => vm,
                Err(e) => return failed(lua_error_text(&e, limits)),
            },
        };
        let (evaluation, reusable) = vm.evaluate(script, obj, now_unix, limits);
        if let Some(vm) = reusable {
            *slot = Some(vm);
        }
        evaluation
    })
}

fn failed(message: String) -> Evaluation {
    Evaluation {
        result: Err(message),
        printed: Vec::new(),
    }
}

/// The text of a Lua failure as Argo would show it: the Lua error value, with LuaJIT's wording
/// turned into gopher-lua's where they differ and a memory-limit failure named as such.
pub(super) fn lua_error_text(e: &mlua::Error, limits: &Limits) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => lua_error_text(cause, limits),
        mlua::Error::WithContext { cause, .. } => lua_error_text(cause, limits),
        mlua::Error::MemoryError(_) => format!(
            "memory limit exceeded: the script allocated more than {} (kubectl-pacto's sandbox limit, --eval-memory)",
            crate::k8s::read::size_words(limits.memory_bytes as u64)
        ),
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => {
            gopher_wording(m)
        }
        other => gopher_wording(&other.to_string()),
    }
}

/// Rewrites LuaJIT error texts that the prelude's metatables cannot intercept (operations on two
/// tables, metatable chains) into gopher-lua's wording (vm.go `lessThan`, state.go `callR`,
/// `getField`/`setField`).
pub(super) fn gopher_wording(m: &str) -> String {
    let m = m.split("\nstack traceback:").next().unwrap_or(m);
    let (prefix, body) = match m.find(": ") {
        Some(i) if m.starts_with("<string>:") => (&m[..i + 2], &m[i + 2..]),
        _ => ("", m),
    };
    let body = if let Some(rest) = body.strip_prefix("bad argument #") {
        // LuaJIT quotes the function's name and says "no value" for a missing argument; gopher
        // (auxlib.go ArgError/TypeError) does neither: `bad argument #1 to ipairs (table
        // expected, got nil)`.
        let rest = match rest.split_once(" to '") {
            Some((n, tail)) => match tail.split_once("' (") {
                Some((name, msg)) => format!("{n} to {name} ({msg}"),
                None => rest.to_string(),
            },
            None => rest.to_string(),
        };
        format!(
            "bad argument #{}",
            rest.replace(" expected, got no value)", " expected, got nil)")
        )
    } else if let Some(rest) = body.strip_prefix("attempt to compare two ") {
        let t = rest.trim_end_matches(" values");
        format!("attempt to compare {t} with {t}")
    } else if body.starts_with("attempt to call ") {
        "attempt to call a non-function object".to_string()
    } else if let Some(op) = body.strip_prefix("loop in ") {
        // An __index/__newindex chain that never ends (gopher state.go getField/setField stop
        // at MaxTableGetLoop).
        format!("too many recursions in {op}")
    } else {
        body.to_string()
    };
    format!("{prefix}{body}")
}

#[cfg(test)]
mod tests {
    //! Every expected value here comes from argo-cd `util/lua/lua.go` (at 37ee0097) and gopher-lua
    //! v1.1.2, measured on Argo's own VM setup; each test names the upstream function it follows
    //! (docs/upstream.md, "Argo CD health" and "gopher-lua").
    use super::*;
    use crate::argo::lua::testing::{eval, msg};
    use serde_json::json;
    use std::time::Instant;

    /// gopher-lua v1.1.2 `vm.go` error texts, chunk name `<string>` (argo-cd `runLua`).
    #[test]
    fn runtime_error_texts_are_gophers() {
        for (src, want) in [
            (
                "return obj.status.phase",
                "<string>:1: attempt to index a non-table object(nil) with key 'phase'",
            ),
            (
                "local x\nx.y = 1",
                "<string>:2: attempt to index a non-table object(nil) with key 'y'",
            ),
            (
                "return obj.metadata.name:find('a')",
                "<string>:1: attempt to index a non-table object(string) with key 'find'",
            ),
            (
                "local f\nf()",
                "<string>:2: attempt to call a non-function object",
            ),
            (
                "return {message = 'a' .. obj.nothing}",
                "<string>:1: cannot perform concat operation between string and nil",
            ),
            (
                "return {message = obj.nothing .. 'a'}",
                "<string>:1: cannot perform concat operation between nil and string",
            ),
            (
                "return 1 + {}",
                "<string>:1: cannot perform add operation between number and table",
            ),
            (
                "return {} < {}",
                "<string>:1: attempt to compare table with table",
            ),
            (
                "return 1 < 'x'",
                "<string>:1: attempt to compare number with string",
            ),
            ("return #nil", "<string>:1: __len undefined"),
            ("error('boom')", "<string>:1: boom"),
        ] {
            assert_eq!(eval(src).unwrap_err(), want, "{src}");
        }
    }

    /// Error texts of the base and table libraries as gopher-lua v1.1.2 writes them: auxlib.go
    /// `TypeError`/`ArgError` (no quotes, "got nil"), baselib.go `baseError` (CheckAny, and
    /// `where(level - 1)` from error's own frame: levels 1 and 2 both name the error call's line),
    /// `basePCall` (a non-callable value, no position), `baseUnpack` (the 5120-slot registry,
    /// `config.go` RegistrySize), tablelib.go (`CheckTable`, "wrong number of arguments"), vm.go
    /// OP_TAILCALL (a returned call keeps the caller's line) and state.go `pushCallFrame` (stack
    /// overflow raised at the line of the recursive call).
    #[test]
    fn library_error_texts_are_gophers() {
        for (src, want) in [
            (
                "for _ in ipairs(nil) do end",
                "<string>:1: bad argument #1 to ipairs (table expected, got nil)",
            ),
            (
                "error()",
                "<string>:1: bad argument #1 to error (value expected)",
            ),
            (
                "return table.concat(nil)",
                "<string>:1: bad argument #1 to concat (table expected, got nil)",
            ),
            (
                "local t = {}\nreturn tostring()",
                "<string>:2: bad argument #1 to tostring (value expected)",
            ),
            (
                "local x = nil\nreturn x()",
                "<string>:2: attempt to call a non-function object",
            ),
            (
                "local a = 1\nreturn require('x')",
                "<string>:2: module x not found:\n\tno field package.preload['x']\n\tstat ./x.lua: no such file or directory\n\tstat /usr/local/share/lua/5.1/x.lua: no such file or directory\n\tstat /usr/local/share/lua/5.1/x/init.lua: no such file or directory, ",
            ),
            (
                "local function f(n)\n  return 1 + f(n + 1)\nend\nreturn f(1)",
                "<string>:2: stack overflow",
            ),
            (
                "local t = {} for i = 1, 10000 do t[i] = i end local x = {unpack(t)}",
                "<string>:1: registry overflow",
            ),
            ("table.insert({})", "<string>:1: wrong number of arguments"),
            ("error('m', 2)", "<string>:1: m"),
            (
                "local function g() error('deep', 2) end\nlocal function h()\n  g()\nend\nh()",
                "<string>:1: deep",
            ),
            (
                "local function g() error('up', 3) end\nlocal function h()\n  g()\nend\nh()",
                "<string>:3: up",
            ),
            ("error(42)", "42"),
        ] {
            assert_eq!(eval(src).unwrap_err(), want, "{src}");
        }
        for (expr, want) in [
            (
                "select(2, pcall(function() local f; f() end))",
                "<string>:1: attempt to call a non-function object",
            ),
            ("select(2, pcall(nil))", "attempt to call a nil value"),
            ("select(2, pcall(error, 'boom'))", "<string>:1: boom"),
        ] {
            assert_eq!(msg(expr, false), want, "{expr}");
        }
    }

    /// The base library's checks as gopher-lua v1.1.2 baselib.go makes them (values recorded with
    /// gopher-lua in tests/fixtures/lua_gopher_differential.txt): baseIpairs (CheckTable),
    /// baseSelect (CheckTypes, "invalid string"), baseToNumber/baseGetMetatable/baseToString
    /// (CheckAny), baseSetMetatable (CheckTypes(2), nil objects, its first argument returned),
    /// baseAssert (OptString), baseXPCall (CheckFunction both; an error in the handler is the
    /// error), baseCollectGarbage (no results); and auxlib.go ArgError naming a function a Go
    /// function called `(anonymous)`, at the script's line.
    #[test]
    fn base_library_checks_are_gophers() {
        for (src, want) in [
            (
                "return ipairs()",
                "<string>:1: bad argument #1 to ipairs (table expected, got nil)",
            ),
            (
                "return select('2', 'a', 'b')",
                "<string>:1: bad argument #1 to select (invalid string '2')",
            ),
            (
                "return tonumber()",
                "<string>:1: bad argument #1 to tonumber (value expected)",
            ),
            (
                "return getmetatable()",
                "<string>:1: bad argument #1 to getmetatable (value expected)",
            ),
            (
                "return setmetatable({}, 1)",
                "<string>:1: bad argument #2 to setmetatable (nil or table expected, got number)",
            ),
            (
                "return setmetatable(nil, {})",
                "<string>:1: cannot set metatable to a nil object.",
            ),
            (
                "return assert(false, 42)",
                "<string>:1: bad argument #2 to assert (string expected, got number)",
            ),
            ("assert(false, nil)", "<string>:1: assertion failed!"),
            (
                "return xpcall(function() end)",
                "<string>:1: bad argument #2 to xpcall (function expected, got nil)",
            ),
            (
                "local f = ipairs f(nil)",
                "<string>:1: bad argument #1 to f (table expected, got nil)",
            ),
        ] {
            assert_eq!(eval(src).unwrap_err(), want, "{src}");
        }
        for (expr, want) in [
            ("tostring(setmetatable(1, {}))", "1"),
            ("type(setmetatable({}))", "table"),
            (
                "tostring(setmetatable({}, {__tostring = 'notfn'})):sub(1, 6)",
                "table:",
            ),
            ("tostring(select('#', collectgarbage('count')))", "0"),
            (
                "select(2, pcall(error))",
                "<string>:1: bad argument #1 to (anonymous) (value expected)",
            ),
            (
                "select(2, pcall(select, 'x'))",
                "<string>:1: bad argument #1 to (anonymous) (invalid string 'x')",
            ),
            (
                "select(2, pcall(function() return {} < {} end))",
                "<string>:1: attempt to compare table with table",
            ),
            (
                "select(2, xpcall(function() error('x') end, function(m) error('again') end))",
                "<string>:1: again",
            ),
            (
                "tostring(select('#', pcall(function() return 1, nil end)))",
                "3",
            ),
            ("tostring(_printregs ~= nil)", "true"),
        ] {
            assert_eq!(msg(expr, true), want, "{expr}");
        }
    }

    /// argo-cd `runLua`: 1 s wall-clock limit (`<string>:N: context deadline exceeded`); gopher-lua
    /// `config.go`: 256 call frames.
    #[test]
    fn limits() {
        let limits = Limits {
            timeout: Duration::from_millis(200),
            ..Limits::default()
        };
        let script = Script::compile("local x = 0\nwhile true do x = x + 1 end").unwrap();
        let started = Instant::now();
        let e = execute_health(&script, &json!({}), false, 0, &limits)
            .result
            .unwrap_err();
        assert_eq!(e, "<string>:2: context deadline exceeded");
        assert!(started.elapsed() < Duration::from_secs(120));
        let deep = |n: u32| {
            format!("local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end return {{status = 'Healthy', message = tostring(f({n}))}}")
        };
        assert_eq!(eval(&deep(250)).unwrap().message, "250");
        assert_eq!(eval(&deep(300)).unwrap_err(), "<string>:1: stack overflow");
        let bomb = Script::compile("local s = 'x' while true do s = s .. s end").unwrap();
        let e = execute_health(&bomb, &json!({}), true, 0, &Limits::default())
            .result
            .unwrap_err();
        assert!(e.starts_with("memory limit exceeded"), "{e}");
    }

    /// Beyond Argo: every library call that could outlast the time limit or the memory cap on
    /// hostile input is bounded itself, so each of these ends within seconds on the calling
    /// thread, with the deadline error at the script's line, a memory-limit error, or the
    /// library's own error.
    #[test]
    fn hostile_library_calls_end_promptly() {
        let short = Limits {
            timeout: Duration::from_millis(200),
            ..Limits::default()
        };
        let deadline = |e: &str| e.ends_with("context deadline exceeded");
        let memory = |e: &str| e.starts_with("memory limit exceeded");
        type Check = fn(&str) -> bool;
        let cases: Vec<(&str, Check)> = vec![
            ("return string.find(string.rep('a', 30000), string.rep('a*', 30) .. 'b')", deadline),
            ("return string.match(string.rep('a', 30000), string.rep('a*', 30) .. 'b')", deadline),
            ("for x in string.gmatch(string.rep('a', 30000), string.rep('a*', 20) .. 'b') do end", deadline),
            ("return (string.gsub(string.rep('a', 30000), string.rep('a*', 20) .. 'b', 'x'))", deadline),
            ("return string.find(string.rep('(', 200000), '%b()')", deadline),
            ("return string.find(string.rep('a', 3000000), string.rep('a', 20000) .. 'b', 1, true)", deadline),
            ("return string.rep('x', 1e12)", memory),
            ("return string.rep('abc', 1e8):upper()", memory),
            // Four million empty matches: the memory cap, or the deadline on a slow build.
            ("local s = string.rep('a', 4e6) return (s:gsub('', 'xx'))", |e| {
                e.starts_with("memory limit exceeded") || e.ends_with("context deadline exceeded")
            }),
            ("return (string.gsub(string.rep('a', 1e6), 'a', function() return 'bb' end))", deadline),
            ("local t = {} for i = 1, 3e6 do t[i] = (i * 7919) % 1000003 end table.sort(t)", deadline),
            ("return loadstring(string.rep('x = 1 ', 1e6))", |e| e.contains("Limits::max_chunk_bytes")),
            ("return unpack({}, 1, 1e8)", |e| e.ends_with("registry overflow")),
            ("return string.format(string.rep('%9999999d', 8), 1, 2, 3, 4, 5, 6, 7, 8)", memory),
            ("local s = 'x' while true do s = s .. s end", memory),
        ];
        for (src, ok) in cases {
            let script = Script::compile(src).unwrap();
            let started = Instant::now();
            let e = execute_health(&script, &json!({}), true, 0, &short)
                .result
                .unwrap_err();
            assert!(ok(&e), "{src}: {e}");
            assert!(started.elapsed() < Duration::from_secs(120), "{src}");
        }
        // An object nested deeper than the conversion limit is refused, not recursed into.
        let mut deep = json!(1);
        for _ in 0..1500 {
            deep = json!({ "a": deep });
        }
        let script = Script::compile("return {status = 'Healthy'}").unwrap();
        let e = execute_health(&script, &deep, false, 0, &Limits::default())
            .result
            .unwrap_err();
        assert!(e.contains("nested too deeply"), "{e}");
    }

    /// The time limit cannot be caught, lifted or escaped (Argo's cancelled context stops every
    /// instruction; gopher's debug library has no sethook).
    #[test]
    fn time_limit_cannot_be_defeated() {
        // A long library call stops at the deadline too (open mode: a pathological pattern).
        let short = Limits {
            timeout: Duration::from_millis(100),
            ..Limits::default()
        };
        let slow = Script::compile(
            "return string.find(string.rep('a', 30000), string.rep('a*', 30) .. 'b')",
        )
        .unwrap();
        let started = Instant::now();
        let e = execute_health(&slow, &json!({}), true, 0, &short)
            .result
            .unwrap_err();
        assert_eq!(e, "<string>:1: context deadline exceeded");
        assert!(started.elapsed() < Duration::from_secs(120));
        let short = Limits {
            timeout: Duration::from_millis(100),
            ..Limits::default()
        };
        for (src, open) in [
            ("while true do pcall(function() while true do end end) end", false),
            ("while true do xpcall(function() while true do end end, function(e) return e end) end", false),
            ("while true do coroutine.resume(coroutine.create(function() while true do end end)) end", true),
            ("while true do pcall(coroutine.wrap(function() while true do end end)) end", true),
            ("local t = setmetatable({}, {__index = function(t, k) return t[k] end}) while true do pcall(function() return t.x end) end", false),
        ] {
            let script = Script::compile(src).unwrap();
            let started = Instant::now();
            let e = execute_health(&script, &json!({}), open, 0, &short).result.unwrap_err();
            assert!(e.ends_with("context deadline exceeded") || e.ends_with("stack overflow"), "{src}: {e}");
            assert!(started.elapsed() < Duration::from_secs(120), "{src}");
        }
        assert_eq!(
            msg(
                "tostring(debug.sethook) .. tostring(debug.gethook) .. tostring(debug.getregistry)",
                true
            ),
            "nilnilnil"
        );
    }
}
