//! The prepared LuaJIT state that stands in for Argo CD's gopher-lua state (argo-cd
//! `util/lua/lua.go`, gopher-lua v1.1.2): the prelude (`prelude/*.lua`, see `prelude`) that makes
//! it look and fail the way gopher-lua does, the libraries of restricted and open mode, the host
//! functions the prelude is given (gopher's number formatting and coercion, `print`, argo-cd
//! `oslib_safe.go`'s `os.time`/`os.date` and gopher-lua `oslib.go`'s), the instruction hook that
//! enforces the time and call-depth limits, and the per-evaluation run of a script in fresh
//! globals.

use super::convert::{to_lua, to_result};
use super::evaluate::{gopher_wording, lua_error_text, Evaluation, Limits};
use super::result::{decode_result, LuaResult};
use super::script::{compile_chunk, Script};
use super::sortlib;
use super::strlib::{self, Bounds};
use super::{channel, fmtlib, gopanic, hook, oslib, prelude};
use crate::argo::gopher;
use mlua::{Function, Lua, LuaOptions, StdLib, Table, Value as LuaValue};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

/// A prepared LuaJIT state: the prelude has run, the host functions are installed.
pub(super) struct Vm {
    lua: Lua,
    /// The prelude's `run(chunk, obj)`: one evaluation in fresh globals.
    run: Function,
    /// What print wrote during the current evaluation.
    printed: Rc<RefCell<Vec<String>>>,
    /// What `os.time()` returns during the current evaluation.
    now: Rc<std::cell::Cell<i64>>,
    /// The memory cap of the current evaluation, for the string library's own bounds.
    memory: Rc<std::cell::Cell<usize>>,
    /// The run-time chunk size limit of the current evaluation.
    chunk_cap: Rc<std::cell::Cell<usize>>,
    /// Scripts already loaded in this state, by script id.
    loaded: RefCell<HashMap<u64, Function>>,
}

impl Vm {
    pub(super) fn new(open: bool) -> mlua::Result<Vm> {
        // Restricted mode needs base, table and package; open mode has every library. The debug
        // library lets the prelude install per-type metatables (scripts reach it only in open
        // mode). Neither the JIT compiler (instruction hooks must see every instruction) nor FFI
        // is ever loaded.
        let mut libs = StdLib::TABLE | StdLib::PACKAGE | StdLib::DEBUG;
        if open {
            libs = libs | StdLib::STRING | StdLib::MATH | StdLib::OS | StdLib::IO;
        }
        // SAFETY: see above; the debug library is the only unsafe one loaded.
        let lua = unsafe { Lua::unsafe_new_with(libs, LuaOptions::new()) };
        let memory = Rc::new(std::cell::Cell::new(Limits::default().memory_bytes));
        let printed = Rc::new(RefCell::new(Vec::new()));
        let now = Rc::new(std::cell::Cell::new(0));
        let chunk_cap = Rc::new(std::cell::Cell::new(Limits::default().max_chunk_bytes));
        let expired_rs: Rc<dyn Fn() -> bool> = Rc::new(hook::expired);
        // The prelude's namespace, with the host's functions by name (prelude.rs).
        let p = host_functions(&lua, open, now.clone(), printed.clone(), chunk_cap.clone())?;
        // gopher's table.sort in place of LuaJIT's, before the prelude reads it.
        sortlib::install(
            &lua,
            &lua.globals().raw_get::<Table>("table")?,
            expired_rs.clone(),
        )?;
        if open {
            let bounds = Bounds {
                expired: expired_rs,
                memory_bytes: memory.clone(),
            };
            let string = lua.globals().raw_get::<Table>("string")?;
            strlib::install(&lua, &string, bounds.clone())?;
            fmtlib::install(&lua, &string, bounds.clone())?;
            // The prelude hands it to each evaluation's globals (gopher linit.go opens it).
            p.raw_set("channel", channel::library(&lua, bounds)?)?;
        }
        let names = lua.create_sequence_from(gopher::ROUTED)?;
        p.raw_set("routed_names", names)?;
        let prelude = prelude::load(&lua, &p)?;
        // The functions the rewritten source calls, by name: the prelude must define exactly
        // those the rewriter routes to.
        gopher::check_routes(&prelude.routed).map_err(mlua::Error::runtime)?;
        hook::install(&lua)?;
        Ok(Vm {
            lua,
            run: prelude.run,
            printed,
            now,
            memory,
            chunk_cap,
            loaded: RefCell::new(HashMap::new()),
        })
    }

    /// One evaluation; returns the VM when it can be used again.
    pub(super) fn evaluate(
        self,
        script: &Script,
        obj: &Value,
        now_unix: i64,
        limits: &Limits,
    ) -> (Evaluation, Option<Vm>) {
        self.printed.borrow_mut().clear();
        self.now.set(now_unix);
        self.memory.set(limits.memory_bytes);
        self.chunk_cap.set(limits.max_chunk_bytes);
        gopanic::reset();
        let started = Instant::now();
        hook::arm(started + limits.timeout, limits.max_call_depth);
        let outcome = self.run(script, obj, limits);
        let printed = std::mem::take(&mut *self.printed.borrow_mut());
        // A state whose hook runs on every instruction (a blocking channel call ended the
        // evaluation's time early) is not reused.
        let hurried = hook::take_hurried();
        // Whatever the script did to the collector, the next evaluation starts from the default.
        let _ = self.lua.set_memory_limit(0);
        self.lua.gc_restart();
        let reusable = match &outcome {
            Err(mlua::Error::MemoryError(_)) => false,
            Err(_) => !hurried && started.elapsed() < limits.timeout,
            Ok(_) => !hurried,
        };
        let result = outcome
            .map_err(|e| gopanic::traceback_for(lua_error_text(&e, limits)))
            .and_then(decode_result);
        (Evaluation { result, printed }, reusable.then_some(self))
    }

    fn run(&self, script: &Script, obj: &Value, limits: &Limits) -> mlua::Result<LuaResult> {
        let chunk = self.chunk(script)?;
        // Converted before the memory cap is set: its size follows the object's, and without a
        // cap mlua sets table fields without a protected call each (several times faster).
        let obj = to_lua(&self.lua, obj, limits.max_object_depth)?;
        self.lua
            .set_memory_limit(self.lua.used_memory() + limits.memory_bytes)?;
        let last: mlua::Result<LuaValue> = self.run.call((chunk, obj));
        let _ = self.lua.set_memory_limit(0);
        to_result(last?)
    }

    /// The script's main function in this state, loaded once.
    fn chunk(&self, script: &Script) -> mlua::Result<Function> {
        if let Some(f) = self.loaded.borrow().get(&script.id) {
            return Ok(f.clone());
        }
        let f = self
            .lua
            .load(&script.bytecode[..])
            .set_mode(mlua::chunk::ChunkMode::Binary)
            .into_function()?;
        let mut loaded = self.loaded.borrow_mut();
        if loaded.len() >= 256 {
            loaded.clear();
        }
        loaded.insert(script.id, f.clone());
        Ok(f)
    }
}

/// The text a script's `pcall` gets for an error raised by a host library function: the
/// message itself, as gopher's `PCall` hands it over (its Go panics included, without their
/// traceback). `None` for any value that is not such an error.
fn caught_error_text(v: &LuaValue) -> Option<String> {
    let LuaValue::Error(e) = v else { return None };
    let mut e: &mlua::Error = e;
    loop {
        match e {
            mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
                e = cause
            }
            mlua::Error::RuntimeError(m) => {
                gopanic::caught(m);
                return Some(m.clone());
            }
            other => return Some(other.to_string()),
        }
    }
}

/// gopher-lua loadlib.go `loFindFile` when no file exists: for each `;`-separated pattern of
/// `package.path`, `?` replaced by the module name with its dots as `/`, Go's `os.Stat` error
/// (`stat ./x.lua: no such file or directory`), joined by `\n\t`. No file is looked for: the
/// search fails as it fails on Argo CD's controller, which has no Lua files on its path.
fn not_found(name: &str, path: &str) -> String {
    let file = name.replace('.', "/");
    path.split(';')
        .map(|pattern| {
            format!(
                "stat {}: no such file or directory",
                pattern.replace('?', &file)
            )
        })
        .collect::<Vec<_>>()
        .join("\n\t")
}

/// A LuaJIT error text a script's `pcall` catches, as gopher would have given it: in gopher's
/// words ([`gopher_wording`]); an argument error of a C function that no script line called
/// (`pcall(select, 'x')`, which LuaJIT reports without a position and names `?`) names the
/// function `(anonymous)` and takes the position of the innermost script frame, as gopher's
/// `ArgError` does for a Go function called by a Go function.
fn caught_wording(lua: &Lua, m: &str) -> String {
    let w = gopher_wording(m);
    if w.starts_with("bad argument #") {
        let w = w.replacen(" to ? (", " to (anonymous) (", 1);
        return format!("{}{w}", where_(lua));
    }
    w
}

/// `<string>:LINE: ` of the innermost script frame, as gopher's `where(1)` prints it.
pub(super) fn where_(lua: &Lua) -> String {
    where_from(lua, 0)
}

/// [`where_`] from stack level `from` outward.
fn where_from(lua: &Lua, from: usize) -> String {
    // The script is `=<string>`; chunks it compiles with loadstring are named as gopher names
    // them (`<string>` unless the script gives a name, see `prelude/env.lua`); the prelude is
    // `=prelude`, library functions are C. The whole stack is searched: this runs only when an
    // error is raised.
    for level in from.. {
        let found = lua.inspect_stack(level, |d| {
            let src = d.source();
            let name = src
                .source
                .as_deref()
                .and_then(|s| s.strip_prefix('='))
                .filter(|s| *s != "prelude")
                .map(str::to_owned);
            (name, d.current_line())
        });
        match found {
            None => break,
            Some((Some(name), Some(line))) => return format!("{name}:{line}: "),
            _ => {}
        }
    }
    String::new()
}

/// The prelude's namespace with the host's functions, by the names the prelude's files read:
/// `open` (useOpenLibs), `numstr` (gopher number formatting), `tonum` (gopher tonumber),
/// `parsenum` (gopher arithmetic coercion), `printer` (collects print output), `safe_time`,
/// `safe_date` (argo-cd oslib_safe.go), `full_time`, `full_date` (gopher's own os.time and
/// os.date), `denied` (raises the error for a function kubectl-pacto never lets a script call),
/// `expired` (true once the evaluation is past its wall-clock limit), `chunk_cap` (the bytes of
/// source a script may compile at run time), `where` (`<string>:LINE: ` of the innermost script
/// frame, gopher's `where`), `wording` (a LuaJIT error text in gopher's words), `compile` (a
/// chunk compiled at run time as the script is, see [`compile_chunk`]), `luamod` (gopher's `%`,
/// luaModulo), `not_found` (what gopher's search of package.path reports when no file is
/// there), `host_error_text` (the text of an error a host library function raised).
fn host_functions(
    lua: &Lua,
    open: bool,
    now: Rc<std::cell::Cell<i64>>,
    printed: Rc<RefCell<Vec<String>>>,
    chunk_cap: Rc<std::cell::Cell<usize>>,
) -> mlua::Result<Table> {
    let p = lua.create_table()?;
    p.raw_set("open", open)?;
    p.raw_set(
        "numstr",
        lua.create_function(|_, n: f64| Ok(gopher::number_to_string(n)))?,
    )?;
    // Strings that are not UTF-8 are no numbers.
    p.raw_set(
        "tonum",
        lua.create_function(|_, (s, base): (mlua::LuaString, Option<f64>)| {
            Ok(s.to_str()
                .ok()
                .and_then(|s| gopher::tonumber(&s, base.map(strlib::go_int))))
        })?,
    )?;
    p.raw_set(
        "parsenum",
        lua.create_function(|_, s: mlua::LuaString| {
            Ok(s.to_str().ok().and_then(|s| gopher::parse_number(&s)))
        })?,
    )?;
    // What print writes is kept for the caller, up to 64 KiB per evaluation: it lives outside
    // the Lua state and its memory cap.
    p.raw_set(
        "printer",
        lua.create_function(move |_, line: mlua::LuaString| {
            let mut p = printed.borrow_mut();
            let used: usize = p.iter().map(String::len).sum();
            const CAP: usize = 64 << 10;
            if used < CAP {
                let line = line.to_string_lossy();
                let room = CAP - used;
                if line.len() <= room {
                    p.push(line);
                } else {
                    let mut cut = room;
                    while !line.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    p.push(format!(
                        "{}... (print output truncated at 64 KiB)",
                        &line[..cut]
                    ));
                }
            }
            Ok(())
        })?,
    )?;
    let (safe_time, full_time, date) = oslib::functions(lua, now)?;
    p.raw_set("safe_time", safe_time)?;
    p.raw_set("safe_date", date.clone())?;
    p.raw_set("full_time", full_time)?;
    p.raw_set("full_date", date)?;
    p.raw_set(
        "denied",
        lua.create_function(|lua, name: String| -> mlua::Result<()> {
            Err(mlua::Error::runtime(format!(
                "{}{name} is disabled: kubectl-pacto does not let a health script run processes, touch files, read the environment or exit",
                where_(lua)
            )))
        })?,
    )?;
    p.raw_set("expired", lua.create_function(|_, ()| Ok(hook::expired()))?)?;
    p.raw_set(
        "chunk_cap",
        lua.create_function(move |_, ()| Ok(chunk_cap.get()))?,
    )?;
    p.raw_set("where", lua.create_function(|lua, ()| Ok(where_(lua)))?)?;
    p.raw_set(
        "wording",
        lua.create_function(|lua, m: LuaValue| match &m {
            LuaValue::String(s) => match s.to_str() {
                Ok(text) => Ok(LuaValue::String(
                    lua.create_string(caught_wording(lua, &text))?,
                )),
                Err(_) => Ok(m),
            },
            _ => Ok(m),
        })?,
    )?;
    p.raw_set(
        "compile",
        lua.create_function(|lua, (src, name): (mlua::LuaString, mlua::LuaString)| {
            let name = name.to_string_lossy();
            Ok(match compile_chunk(lua, &src.as_bytes(), &name)? {
                Ok(f) => (Some(f), None),
                Err(e) => (None, Some(e)),
            })
        })?,
    )?;
    p.raw_set(
        "luamod",
        lua.create_function(|_, (a, b): (f64, f64)| Ok(gopher::lua_modulo(a, b)))?,
    )?;
    p.raw_set(
        "not_found",
        lua.create_function(|_, (name, path): (mlua::LuaString, mlua::LuaString)| {
            Ok(not_found(&name.to_string_lossy(), &path.to_string_lossy()))
        })?,
    )?;
    p.raw_set(
        "host_error_text",
        lua.create_function(|_, v: LuaValue| Ok(caught_error_text(&v)))?,
    )?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    //! Every expected value here comes from argo-cd `util/lua/lua.go` (at 37ee0097) and gopher-lua
    //! v1.1.2, measured on Argo's own VM setup; each test names the upstream file or function it
    //! follows (docs/upstream.md, "Argo CD health" and "gopher-lua").
    use crate::argo::lua::testing::{eval, eval_with, msg};
    use crate::argo::lua::{execute_health, Limits, Script};
    use serde_json::json;
    use std::time::Duration;

    /// gopher-lua `value.go`: tostring and `..` format numbers as gopher's LNumber.String.
    #[test]
    fn numbers_in_tostring_and_concat() {
        for (expr, want) in [
            ("tostring(1e15)", "1000000000000000"),
            ("tostring(2^53)", "9007199254740992"),
            ("tostring(0.1 + 0.2)", "0.30000000000000004"),
            ("tostring(1/3)", "0.3333333333333333"),
            ("'' .. 1e15", "1000000000000000"),
            ("'n=' .. 2^53 .. '!'", "n=9007199254740992!"),
            ("(0.1 + 0.2) .. ''", "0.30000000000000004"),
            ("1/3 .. ''", "0.3333333333333333"),
            ("tostring(-0)", "0"),
            ("tostring(100 * 1.1)", "110.00000000000001"),
        ] {
            assert_eq!(msg(expr, false), want, "{expr}");
        }
    }

    /// gopher-lua `utils.go`: arithmetic reads strings with gopher's parseNumber (Go ParseInt with
    /// base prefixes, then ParseFloat); vm.go objectArith (a table's handler first) and OP_UNM
    /// (`__unm undefined`).
    #[test]
    fn arithmetic_on_strings_as_gopher() {
        for (expr, want) in [
            ("tostring('010' + 0)", "8"),
            ("tostring('0b101' + 0)", "5"),
            ("tostring('0o17' + 0)", "15"),
            ("tostring('1_000' + 0)", "1000"),
            ("tostring('0x10' + 0)", "16"),
            ("tostring('1e2' * 1)", "100"),
            ("tostring(' 5 ' + 1)", "6"),
            ("tostring(-'010')", "-8"),
            ("tostring(10 - '010' - 1)", "1"),
            ("tostring(2 ^ '3')", "8"),
            ("tostring(-7 % 3)", "2"),
            ("tostring(setmetatable({}, {__add = function() return 7 end}) + 1)", "7"),
            ("tostring(setmetatable({}, {__unm = function() return 9 end}) and -setmetatable({}, {__unm = function() return 9 end}))", "9"),
        ] {
            assert_eq!(msg(expr, false), want, "{expr}");
        }
        for (src, want) in [
            (
                "local x = 'abc'\nreturn x + 1",
                "<string>:2: cannot perform add operation between string and number",
            ),
            (
                "local t = {}\nlocal y = 1 - t",
                "<string>:2: cannot perform sub operation between number and table",
            ),
            ("local x = -{}", "<string>:1: __unm undefined"),
            // Two tables without handlers (LuaJIT: "attempt to perform arithmetic on a table
            // value").
            (
                "local x = {} * {}",
                "<string>:1: cannot perform mul operation between table and table",
            ),
            (
                "local a\nlocal b = 1 + 2 + a",
                "<string>:2: cannot perform add operation between number and nil",
            ),
        ] {
            assert_eq!(eval(src).unwrap_err(), want, "{src}");
        }
        // A run of 5000 additions compiles (grouped calls) and folds left to right.
        let sum = format!(
            "local a = 1 return {{status = 'Healthy', message = tostring(a{})}}",
            " + a".repeat(5000)
        );
        assert_eq!(eval(&sum).unwrap().message, "5001");
    }

    /// gopher-lua `table.go`: gopher's Len is the highest non-nil index of the array part.
    #[test]
    fn length_of_tables_with_holes() {
        for (expr, want) in [
            ("tostring(#{1, 2, 3, [5] = 5})", "5"),
            (
                "(function() local t = {} t[2] = 'x' return tostring(#t) end)()",
                "2",
            ),
            ("tostring(#{[1] = 'a', [3] = 'c'})", "3"),
            ("tostring(#{1, nil, 3})", "3"),
            ("tostring(table.getn({1, 2, [4] = 4}))", "4"),
            ("tostring(#'héllo')", "6"),
        ] {
            assert_eq!(msg(expr, false), want, "{expr}");
        }
        // argoproj/argo-cd#20108: n[2] set only → gopher's concat hits the nil at index 1.
        let e = eval(
            "local n = {} n[2] = 'B' return {status = 'Degraded', message = table.concat(n, ', ')}",
        )
        .unwrap_err();
        assert_eq!(
            e,
            "<string>:1: invalid value (nil) at index 1 in table for concat"
        );
    }

    /// argo-cd `runLua` (and gopher-lua `auxlib.go` `RegisterModule`, which leaves the `table`
    /// module Argo's safe os is registered under as it was): what restricted and open states see.
    #[test]
    fn restricted_and_open_libraries() {
        let visible = "local names = {} for _, n in ipairs({'string', 'math', 'os', 'io', 'debug', 'coroutine', 'table', 'package', 'require', 'tostring', 'pairs', 'unpack', 'loadstring', 'setfenv'}) do if _G[n] ~= nil then table.insert(names, n) end end return table.concat(names, ',')";
        assert_eq!(
            msg(&format!("(function() {visible} end)()"), false),
            "table,package,require,tostring,pairs,unpack,loadstring,setfenv"
        );
        assert_eq!(
            msg(&format!("(function() {visible} end)()"), true),
            "string,math,os,io,debug,coroutine,table,package,require,tostring,pairs,unpack,loadstring,setfenv"
        );
        // require("os") is the safe module in both modes: time and date only.
        for open in [false, true] {
            let keys = "(function() local os = require('os') local k = {} for n in pairs(os) do table.insert(k, n) end table.sort(k) return table.concat(k, ',') end)()";
            assert_eq!(msg(keys, open), "date,time", "open={open}");
        }
        assert_eq!(msg("string.format('%d-%s', 5, 'x')", true), "5-x");
        // argo-cd lua.go opens package after the libraries: package.loaded holds _G and table
        // only, in both modes, and require finds no other library (os comes from its preload).
        for open in [false, true] {
            let loaded = "(function() local k = {} for n in pairs(package.loaded) do k[#k + 1] = n end table.sort(k) return table.concat(k, ',') end)()";
            assert_eq!(msg(loaded, open), "_G,table", "open={open}");
            let found = "(function() local r = {} for _, n in ipairs({'os', 'table', '_G', 'string', 'math', 'io', 'debug', 'coroutine', 'channel', 'package'}) do r[#r + 1] = n .. '=' .. tostring(pcall(require, n)) end return table.concat(r, ' ') end)()";
            assert_eq!(
                msg(found, open),
                "os=true table=true _G=true string=false math=false io=false debug=false coroutine=false channel=false package=false",
                "open={open}"
            );
        }
        assert_eq!(msg("tostring(math.huge)", true), "1.7976931348623157e+308");
    }

    /// Beyond Argo: nothing reaches outside the process, even with open libraries.
    #[test]
    fn open_mode_cannot_reach_outside() {
        for (src, name) in [
            ("os.execute('true')", "os.execute"),
            ("os.exit(3)", "os.exit"),
            ("return os.getenv('HOME')", "os.getenv"),
            ("os.remove('/tmp/x')", "os.remove"),
            ("local f = io.open('/etc/hostname')", "io.open"),
            ("dofile('/etc/hostname')", "dofile"),
            ("loadfile('/etc/hostname')", "loadfile"),
            ("package.loadlib('x', 'y')", "package.loadlib"),
        ] {
            let e = eval_with(src, &json!({}), true).unwrap_err();
            assert!(e.contains(&format!("{name} is disabled")), "{src}: {e}");
        }
        let e = eval("local j = require('json')").unwrap_err();
        assert!(
            e.starts_with("<string>:1: module json not found:\n\tno field package.preload['json']"),
            "{e}"
        );
    }

    /// argo-cd `util/lua/oslib_safe.go`: safe os.time reads only number fields, os.date formats
    /// with gopher's layouts.
    #[test]
    fn safe_os_module() {
        assert_eq!(msg("tostring(require('os').time())", false), "1709208000");
        assert_eq!(
            msg(
                "tostring(require('os').time({year = 2024, month = 2, day = 29, hour = 12}))",
                false
            ),
            "1709208000"
        );
        assert_eq!(
            msg(
                "tostring(require('os').time({year = '2024', month = 2, day = 29}))",
                false
            ),
            // A string year falls back to the default -1: Go's time.Date(-1, 2, 29, 12, 0, 0, 0,
            // UTC) is -0001-03-01T12:00Z (year -1 is not leap) = 0000-01-01 (-62167219200)
            // + 60 days - 366 days (Feb 0000 is leap) + 12 h.
            "-62193614400"
        );
        assert_eq!(
            msg("require('os').date('%Y-%m-%d %H:%M', 0)", false),
            "1970-01-01 00:00"
        );
    }

    /// The prelude defines a function under each name the rewriter routes to and no other
    /// (a state is prepared only when they agree, `gopher::check_routes`), and each name reaches
    /// the function for its construct: `..`, `#`, the six operators and unary minus, a
    /// constructor's key order, a vararg `arg`, a numeric `for` (gopher vm.go, compile.go).
    #[test]
    fn routed_functions_by_name() {
        for open in [false, true] {
            if let Err(e) = super::Vm::new(open) {
                panic!("open={open}: {e}");
            }
        }
        let src = "local k = 'c' local t = {b = 1, a = 2, [k] = 3} local order = '' \
            for key in pairs(t) do order = order .. key end \
            local function n(...) return arg.n end local sum = 0 for i = 1, 3, 1 do sum = sum + i end \
            return {status = 'Healthy', message = 1 .. ' ' .. #{1, 2, 3} .. ' ' .. ('7' + 2) .. ' ' \
            .. (7 - 2) .. ' ' .. (7 * 2) .. ' ' .. (7 / 2) .. ' ' .. (-7 % 3) .. ' ' .. (2 ^ 3) .. ' ' \
            .. -'010' .. ' ' .. order .. ' ' .. n(1, nil) .. ' ' .. sum}";
        for open in [false, true] {
            assert_eq!(
                eval_with(src, &json!({}), open).unwrap().message,
                "1 3 9 5 14 3.5 2 8 -8 bac 2 6",
                "open={open}"
            );
        }
    }

    /// Each evaluation is isolated: globals set by one run are gone in the next.
    #[test]
    fn evaluations_are_isolated() {
        let script = Script::compile("if leaked then return {status = 'Degraded'} end leaked = true return {status = 'Healthy'}").unwrap();
        for _ in 0..3 {
            let r = execute_health(&script, &json!({}), false, 0, &Limits::default());
            assert_eq!(r.result.unwrap().status, "Healthy");
        }
    }

    /// A restricted state is reused: nothing one script does may reach the next evaluation.
    #[test]
    fn reused_state_keeps_evaluations_apart() {
        let probe = Script::compile(
            "return {status = 'Healthy', message = tostring(table.insert ~= nil) .. tostring(x) .. tostring(getmetatable('')) .. tostring(select('#', collectgarbage('count')) == 0)}",
        )
        .unwrap();
        let run = |src: &str| {
            let s = Script::compile(src).unwrap();
            execute_health(&s, &json!({}), false, 0, &Limits::default())
        };
        for spoiler in [
            "table.insert = nil",
            "getfenv(0).x = 1",
            "x = 1",
            "collectgarbage('stop')",
            "setfenv(tostring, {})",
            "collectgarbage('setpause', 100000)",
            "error('fails')",
        ] {
            let _ = run(spoiler);
            let e = execute_health(&probe, &json!({}), false, 0, &Limits::default());
            assert_eq!(
                e.result.unwrap().message,
                "truenilniltrue",
                "after {spoiler}"
            );
            assert!(e.printed.is_empty(), "after {spoiler}: {:?}", e.printed);
        }
        // After a timeout the state is replaced, and the next evaluation runs normally.
        let spin = Script::compile("while true do end").unwrap();
        let short = Limits {
            timeout: Duration::from_millis(50),
            ..Limits::default()
        };
        assert!(execute_health(&spin, &json!({}), false, 0, &short)
            .result
            .is_err());
        let e = execute_health(&probe, &json!({}), false, 0, &Limits::default());
        assert_eq!(e.result.unwrap().message, "truenilniltrue");
    }

    /// The state's own globals never reach a script: no escape through getfenv, module, setfenv(0)
    /// or bytecode, and nothing left behind for the next evaluation.
    #[test]
    fn no_way_out_through_the_state_globals() {
        let run = |src: &str, open: bool| {
            let s = Script::compile(src).unwrap();
            execute_health(
                &s,
                &json!({"metadata": {"name": "a"}}),
                open,
                0,
                &Limits::default(),
            )
            .result
        };
        for open in [false, true] {
            for src in [
                "getfenv(0).dofile('/etc/hostname')",
                "getfenv(print).loadfile('/etc/hostname')",
                "getfenv(0).package.loadlib('libc.so.6', 'exit')",
                "local f = getfenv(0).require('x')",
                "module('leak')",
            ] {
                let e = run(src, open).unwrap_err();
                assert!(
                    e.contains("is disabled") || e.contains("not found"),
                    "open={open} {src}: {e}"
                );
            }
            // gopher-lua has no binary chunk loader: its parser meets the escape byte (the text
            // gopher-lua v1.1.2 gives for this chunk).
            let e = run("local f, err = loadstring('\\27LJ\\2junk') return {status = 'Healthy', message = tostring(f) .. ' ' .. tostring(err)}", open).unwrap();
            assert_eq!(
                e.message, "nil <string> line:1(column:1) near '\u{1b}':   Invalid token\n",
                "open={open}"
            );
        }
        assert_eq!(
            run("return {status = 'Healthy', message = tostring(getfenv(0).debug) .. tostring(getfenv(0) == _G)}", false).unwrap().message,
            "niltrue"
        );
        // Nothing survives into the next evaluation.
        let _ = run("getfenv(0).leaked = 1 setfenv(0, {}) leaked2 = 1", false);
        assert_eq!(
            run("return {status = 'Healthy', message = tostring(leaked) .. tostring(leaked2) .. tostring(getfenv(0) == _G)}", false).unwrap().message,
            "nilniltrue"
        );
        // No finalizers: newproxy is refused; nothing reaches the prelude's upvalues.
        let e = run("local p = newproxy(true)", false).unwrap_err();
        assert!(e.contains("newproxy is disabled"), "{e}");
        assert_eq!(
            run("return {status = 'Healthy', message = tostring(debug.getupvalue) .. tostring(debug.setupvalue) .. tostring(debug.setmetatable) .. tostring(debug.getlocal)}", true).unwrap().message,
            "nilnilnilnil"
        );
    }
}
