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
//! * gopher's number formatting in `tostring` and `..`, its `#` on tables with holes, `tonumber`
//!   and its runtime error texts (`<string>:LINE: attempt to index a non-table object(nil) with
//!   key 'x'`, ...), through the source rewriter ([`super::rewrite`]) and `prelude.lua`;
//! * limits: 1 s of wall-clock time (Argo's `context.WithTimeout`), 256 call frames (gopher's
//!   `CallStackSize`), and beyond Argo a memory cap; and beyond Argo, no script can run a
//!   process, touch files, read the environment or exit, even with open libraries.

use super::gopher;
use super::osdate;
use super::HealthStatus;
use mlua::{
    Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value as LuaValue, VmState,
};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

const PRELUDE: &str = include_str!("prelude.lua");
const CONCAT_FN: &str = "__pacto_concat";
const LEN_FN: &str = "__pacto_len";

/// Resource limits of one evaluation.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock limit; Argo CD uses 1 s (`util/lua/lua.go`).
    pub timeout: Duration,
    /// Bytes the Lua state may allocate; Argo has no such cap, we use 64 MiB by default.
    pub memory_bytes: usize,
    /// Call frames; gopher-lua's `CallStackSize` is 256.
    pub max_call_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(1),
            memory_bytes: 64 << 20,
            max_call_depth: 256,
        }
    }
}

/// A health script checked, rewritten and compiled to LuaJIT bytecode once, evaluated many
/// times (Argo CD caches compiled scripts too, argo-cd #28278).
#[derive(Debug, Clone)]
pub struct Script {
    /// Process-unique, so that a state can keep the loaded function of each script.
    id: u64,
    bytecode: std::sync::Arc<[u8]>,
}

impl Script {
    /// Parses, rewrites and compiles a script. Errors: the syntax error text gopher-lua's
    /// `LoadString` gives (`<string> line:L(column:C) near 'T':   syntax error\n`), or LuaJIT's
    /// own text for a limit gopher does not have.
    pub fn compile(src: &str) -> Result<Script, String> {
        let rewritten =
            super::rewrite::rewrite(src, CONCAT_FN, LEN_FN).map_err(|e| e.to_string())?;
        // Same line: line numbers of the script are kept.
        let source = format!("local {CONCAT_FN}, {LEN_FN} = ...; {rewritten}");
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Script {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            bytecode: to_bytecode(&source, "=<string>")?.into(),
        })
    }
}

/// Compiles Lua source to LuaJIT bytecode (with line information) in a scratch state.
fn to_bytecode(source: &str, name: &str) -> Result<Vec<u8>, String> {
    let lua = Lua::new();
    lua.load(source)
        .set_name(name)
        .into_function()
        .map(|f| f.dump(false))
        .map_err(|e| gopher_wording(&e.to_string()))
}

/// The prelude's bytecode, compiled on first use.
fn prelude_bytecode() -> &'static [u8] {
    static BYTECODE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTECODE.get_or_init(|| to_bytecode(PRELUDE, "=prelude").expect("the prelude compiles"))
}

/// What one evaluation produced: the health (or the error text Argo would show as an `Unknown`
/// health message), and whatever the script printed (Argo sends it to the controller's log).
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub result: Result<HealthStatus, String>,
    pub printed: Vec<String>,
}

/// Runs a health script on an object. `open_libs` is the `useOpenLibs` of the override (built-in
/// scripts always run open); `now_unix` is what `os.time()` returns.
///
/// The evaluation runs on a worker thread. The instruction hook stops a script at the time limit,
/// but not while it is inside one long library call (a pathological `string.find` pattern, a
/// sort of a huge table, compiling megabytes of source); if no answer comes within the limit
/// plus [`WATCHDOG_GRACE`], the worker is abandoned (it ends with the process), the evaluation
/// fails with `context deadline exceeded`, and a new worker serves the next one.
pub fn execute_health(
    script: &Script,
    obj: &Value,
    open_libs: bool,
    now_unix: i64,
    limits: &Limits,
) -> Evaluation {
    type Job = (Script, Value, bool, i64, Limits);
    struct Worker {
        jobs: std::sync::mpsc::Sender<Job>,
        results: std::sync::mpsc::Receiver<Evaluation>,
    }
    fn spawn() -> Option<Worker> {
        let (jobs, job_rx) = std::sync::mpsc::channel::<Job>();
        let (result_tx, results) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("lua-worker".into())
            // Deeply nested objects are converted recursively.
            .stack_size(1 << 30)
            .spawn(move || {
                for (script, obj, open, now, limits) in job_rx {
                    let ev = evaluate_here(&script, &obj, open, now, &limits);
                    if result_tx.send(ev).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Worker { jobs, results })
    }
    thread_local! {
        static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    }
    WORKER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = spawn();
        }
        let Some(worker) = slot.as_ref() else {
            return evaluate_here(script, obj, open_libs, now_unix, limits);
        };
        let job = (
            script.clone(),
            obj.clone(),
            open_libs,
            now_unix,
            limits.clone(),
        );
        if worker.jobs.send(job).is_err() {
            *slot = None;
            return failed("internal error: the Lua worker stopped".into());
        }
        match worker.results.recv_timeout(limits.timeout + WATCHDOG_GRACE) {
            Ok(ev) => ev,
            Err(e) => {
                *slot = None;
                failed(match e {
                    std::sync::mpsc::RecvTimeoutError::Timeout => format!(
                        "context deadline exceeded (stopped inside a library call after {:?})",
                        limits.timeout + WATCHDOG_GRACE
                    ),
                    std::sync::mpsc::RecvTimeoutError::Disconnected => {
                        "internal error: the Lua worker stopped".into()
                    }
                })
            }
        }
    })
}

/// How long past its time limit an evaluation may take before the watchdog gives up on it.
pub const WATCHDOG_GRACE: Duration = Duration::from_secs(1);

/// Runs an evaluation on the calling thread.
///
/// Every evaluation gets fresh globals and fresh library tables. Restricted evaluations share one
/// prepared LuaJIT state per thread (what a restricted script can reach is rebuilt per
/// evaluation, see `prelude.lua`); open-libs evaluations, which can reach the `debug` library,
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

/// A prepared LuaJIT state: the prelude has run, the host functions are installed.
struct Vm {
    lua: Lua,
    concat: Function,
    len: Function,
    new_env: Function,
    bind: Function,
    /// What print wrote during the current evaluation.
    printed: Rc<RefCell<Vec<String>>>,
    /// What `os.time()` returns during the current evaluation.
    now: Rc<std::cell::Cell<i64>>,
    /// When the current evaluation started, for the wall-clock limit.
    started: Rc<std::cell::Cell<Instant>>,
    timeout: Rc<std::cell::Cell<Duration>>,
    depth: Rc<std::cell::Cell<usize>>,
    /// Scripts already loaded in this state, by script id.
    loaded: RefCell<HashMap<u64, Function>>,
}

impl Vm {
    fn new(open: bool) -> mlua::Result<Vm> {
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
        let printed = Rc::new(RefCell::new(Vec::new()));
        let now = Rc::new(std::cell::Cell::new(0));
        let started = Rc::new(std::cell::Cell::new(Instant::now()));
        let timeout = Rc::new(std::cell::Cell::new(Duration::from_secs(1)));
        let (s, t) = (started.clone(), timeout.clone());
        let expired = lua.create_function(move |_, ()| Ok(s.get().elapsed() >= t.get()))?;
        let mut args = host_functions(&lua, open, now.clone(), printed.clone())?;
        args.push_back(LuaValue::Function(expired));
        let (concat, len, new_env, bind): (Function, Function, Function, Function) = lua
            .load(prelude_bytecode())
            .set_mode(mlua::chunk::ChunkMode::Binary)
            .call(args)?;
        let depth = Rc::new(std::cell::Cell::new(256));
        let (s, t, d) = (started.clone(), timeout.clone(), depth.clone());
        let hook = HookTriggers::new().on_calls().every_nth_instruction(1000);
        lua.set_global_hook(hook, move |lua, dbg| {
            use mlua::debug::DebugEvent;
            let over = match dbg.event() {
                DebugEvent::Call => lua
                    .inspect_stack(d.get(), |_| ())
                    .is_some()
                    .then_some("stack overflow"),
                _ => (s.get().elapsed() >= t.get()).then_some("context deadline exceeded"),
            };
            match over {
                Some(what) => Err(mlua::Error::runtime(format!("{}{what}", where_(lua)))),
                None => Ok(VmState::Continue),
            }
        })?;
        Ok(Vm {
            lua,
            concat,
            len,
            new_env,
            bind,
            printed,
            now,
            started,
            timeout,
            depth,
            loaded: RefCell::new(HashMap::new()),
        })
    }

    /// One evaluation; returns the VM when it can be used again.
    fn evaluate(
        self,
        script: &Script,
        obj: &Value,
        now_unix: i64,
        limits: &Limits,
    ) -> (Evaluation, Option<Vm>) {
        self.printed.borrow_mut().clear();
        self.now.set(now_unix);
        self.timeout.set(limits.timeout);
        self.depth.set(limits.max_call_depth);
        self.started.set(Instant::now());
        let outcome = self.run(script, obj, limits);
        let printed = std::mem::take(&mut *self.printed.borrow_mut());
        // Whatever the script did to the collector, the next evaluation starts from the default.
        let _ = self.lua.set_memory_limit(0);
        self.lua.gc_restart();
        let reusable = match &outcome {
            Err(mlua::Error::MemoryError(_)) => false,
            Err(_) => self.started.get().elapsed() < limits.timeout,
            Ok(_) => true,
        };
        let result = outcome
            .map_err(|e| lua_error_text(&e, limits))
            .and_then(decode_result);
        (Evaluation { result, printed }, reusable.then_some(self))
    }

    fn run(&self, script: &Script, obj: &Value, limits: &Limits) -> mlua::Result<LuaResult> {
        let chunk = self.chunk(script)?;
        let (env, cleanup): (Table, Function) = self.new_env.call(())?;
        env.raw_set("obj", to_lua(&self.lua, obj)?)?;
        env.raw_set("actionParams", self.lua.create_table()?)?;
        let chunk: Function = self.bind.call((chunk, env))?;
        self.lua
            .set_memory_limit(self.lua.used_memory() + limits.memory_bytes)?;
        let values: mlua::Result<MultiValue> = chunk.call((self.concat.clone(), self.len.clone()));
        let _ = self.lua.set_memory_limit(0);
        cleanup.call::<()>(())?;
        let last = values?.into_iter().last().unwrap_or(LuaValue::Nil);
        to_result(last)
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

/// `<string>:LINE: ` of the innermost script frame, as gopher's `where(1)` prints it.
fn where_(lua: &Lua) -> String {
    for level in 0..32 {
        let found = lua.inspect_stack(level, |d| {
            let src = d.source();
            let is_script = src.source.as_deref() == Some("=<string>");
            (is_script, d.current_line())
        });
        match found {
            None => break,
            Some((true, Some(line))) => return format!("<string>:{line}: "),
            _ => {}
        }
    }
    String::new()
}

/// The host functions handed to the prelude, in its argument order.
fn host_functions(
    lua: &Lua,
    open: bool,
    now: Rc<std::cell::Cell<i64>>,
    printed: Rc<RefCell<Vec<String>>>,
) -> mlua::Result<MultiValue> {
    let numstr = lua.create_function(|_, n: f64| Ok(gopher::number_to_string(n)))?;
    let tonum = lua.create_function(|_, (s, base): (String, Option<f64>)| {
        Ok(gopher::tonumber(&s, base.map(|b| b as u32)))
    })?;
    let parsenum = lua.create_function(|_, s: String| Ok(gopher::parse_number(&s)))?;
    // What print writes is kept for the caller, up to 64 KiB per evaluation: it lives outside
    // the Lua state and its memory cap.
    let printer = lua.create_function(move |_, line: mlua::LuaString| {
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
    })?;
    // argo-cd oslib_safe.go: fields read only when they are numbers.
    let now2 = now.clone();
    let now3 = now.clone();
    let safe_time = lua.create_function(move |_, t: Option<Table>| {
        Ok(match t {
            None => now2.get(),
            Some(t) => osdate::unix_from_fields(date_fields(&t, false)),
        })
    })?;
    // gopher-lua oslib.go: numeric strings are read too.
    let full_time = lua.create_function(move |_, t: Option<Table>| {
        Ok(match t {
            None => now3.get(),
            Some(t) => osdate::unix_from_fields(date_fields(&t, true)),
        })
    })?;
    let date = lua.create_function(move |lua, (fmt, t): (Option<String>, Option<f64>)| {
        let fmt = fmt.unwrap_or_else(|| "%c".to_string());
        let fmt = fmt.trim_start_matches('!');
        let t = t.map(|t| t as i64).unwrap_or(now.get());
        if fmt.starts_with("*t") {
            let (y, mo, d, h, mi, s, wd) = osdate::civil(t);
            let tbl = lua.create_table()?;
            for (k, v) in [
                ("year", y),
                ("month", mo),
                ("day", d),
                ("hour", h),
                ("min", mi),
                ("sec", s),
                ("wday", wd + 1),
                ("yday", 0),
            ] {
                tbl.raw_set(k, v)?;
            }
            tbl.raw_set("isdst", false)?;
            return Ok(LuaValue::Table(tbl));
        }
        Ok(LuaValue::String(
            lua.create_string(osdate::strftime(t, fmt))?,
        ))
    })?;
    let denied = lua.create_function(|lua, name: String| -> mlua::Result<()> {
        Err(mlua::Error::runtime(format!(
            "{}{name} is disabled: kubectl-pacto does not let a health script run processes, touch files, read the environment or exit",
            where_(lua)
        )))
    })?;
    Ok(MultiValue::from_iter([
        LuaValue::Boolean(open),
        LuaValue::Function(numstr),
        LuaValue::Function(tonum),
        LuaValue::Function(parsenum),
        LuaValue::Function(printer),
        LuaValue::Function(safe_time),
        LuaValue::Function(date.clone()),
        LuaValue::Function(full_time),
        LuaValue::Function(date),
        LuaValue::Function(denied),
    ]))
}

fn date_fields(t: &Table, strings_too: bool) -> osdate::DateFields {
    let d = osdate::DateFields::default();
    let get = |k: &str, def: i64| -> i64 {
        match t.raw_get::<LuaValue>(k) {
            Ok(LuaValue::Number(n)) => n as i64,
            Ok(LuaValue::Integer(n)) => n,
            Ok(LuaValue::String(s)) if strings_too => s
                .to_str()
                .ok()
                .and_then(|s| s.trim_start().parse::<i64>().ok())
                .unwrap_or(def),
            _ => def,
        }
    };
    osdate::DateFields {
        year: get("year", d.year),
        month: get("month", d.month),
        day: get("day", d.day),
        hour: get("hour", d.hour),
        min: get("min", d.min),
        sec: get("sec", d.sec),
    }
}

/// Converts an object as argo-cd `decodeValue` does: every number a Lua number (float64), JSON
/// nulls inside arrays dropped (gopher `LTable.Append` ignores nil), null map values absent.
fn to_lua(lua: &Lua, v: &Value) -> mlua::Result<LuaValue> {
    Ok(match v {
        Value::Null => LuaValue::Nil,
        Value::Bool(b) => LuaValue::Boolean(*b),
        Value::Number(n) => LuaValue::Number(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => LuaValue::String(lua.create_string(s)?),
        Value::Array(items) => {
            let t = lua.create_table_with_capacity(items.len(), 0)?;
            let mut i = 0;
            for item in items.iter().filter(|x| !x.is_null()) {
                i += 1;
                t.raw_set(i, to_lua(lua, item)?)?;
            }
            LuaValue::Table(t)
        }
        Value::Object(map) => {
            let t = lua.create_table_with_capacity(0, map.len())?;
            for (k, item) in map.iter().filter(|(_, x)| !x.is_null()) {
                t.raw_set(k.as_str(), to_lua(lua, item)?)?;
            }
            LuaValue::Table(t)
        }
    })
}

/// The script's last return value, lifted out of the Lua state: what `ExecuteHealthLua` sees.
#[derive(Debug, Clone, PartialEq)]
pub enum LuaResult {
    Nil,
    /// Any non-table, with gopher's type name.
    Other(&'static str),
    /// A table encoded as gopher-json would encode it, or the encoding error text.
    Table(Result<Value, String>),
}

fn to_result(v: LuaValue) -> mlua::Result<LuaResult> {
    Ok(match v {
        LuaValue::Nil => LuaResult::Nil,
        LuaValue::Table(t) => {
            let mut budget = ENCODE_BUDGET;
            LuaResult::Table(encode_table(&t, &mut Vec::new(), 0, &mut budget))
        }
        other => LuaResult::Other(type_name(&other)),
    })
}

fn type_name(v: &LuaValue) -> &'static str {
    match v {
        LuaValue::Nil => "nil",
        LuaValue::Boolean(_) => "boolean",
        LuaValue::Integer(_) | LuaValue::Number(_) => "number",
        LuaValue::String(_) => "string",
        LuaValue::Table(_) => "table",
        LuaValue::Function(_) => "function",
        LuaValue::Thread(_) => "thread",
        _ => "userdata",
    }
}

const MARSHAL_PREFIX: &str = "json: error calling MarshalJSON for type json.jsonValue: ";

/// Values the result encoding visits at most: a table shared along many paths would otherwise be
/// expanded on each (a DAG of 40 levels is 2^40 values). Beyond Argo, which has no such bound.
const ENCODE_BUDGET: usize = 1_000_000;

/// gopher-json `jsonValue.MarshalJSON` (layeh.com/gopher-json 97fed8d) over a result table: an
/// empty table is `[]`; a table whose first key is a number must be the sequence 1..n
/// (`cannot encode sparse array`), one whose first key is a string must have only string keys
/// (`cannot encode mixed or invalid key types`); functions and other non-data values cannot be
/// encoded; a table met again on the way down is `cannot encode recursively nested tables to
/// JSON`; NaN and infinities are rejected by Go's encoder. Each nesting level adds Go's
/// `MarshalerError` prefix, as encoding/json wraps the error of every `MarshalJSON` call.
fn encode_table(
    t: &Table,
    seen: &mut Vec<*const std::ffi::c_void>,
    depth: usize,
    budget: &mut usize,
) -> Result<Value, String> {
    let wrap = |msg: &str| format!("{}{msg}", MARSHAL_PREFIX.repeat(depth + 1));
    if depth > 1_000 {
        return Err(wrap("the returned table is nested more than 1000 levels deep (kubectl-pacto's encoding limit)"));
    }
    let ptr = t.to_pointer();
    if seen.contains(&ptr) {
        return Err(wrap("cannot encode recursively nested tables to JSON"));
    }
    let mut pairs: Vec<(LuaValue, LuaValue)> = Vec::new();
    for pair in t.clone().pairs::<LuaValue, LuaValue>() {
        pairs.push(pair.map_err(|e| e.to_string())?);
        if *budget == 0 {
            return Err(format!(
                "the returned table has more than {ENCODE_BUDGET} values (kubectl-pacto's encoding limit)"
            ));
        }
        *budget -= 1;
    }
    seen.push(ptr);
    let result = encode_pairs(pairs, seen, depth, &wrap, budget);
    seen.pop();
    result
}

/// The key rules of gopher-json's table encoding. gopher iterates the array part (positive
/// integer keys, ascending) before the hash part, so the first key is a number whenever a 1..n
/// key exists; what the hash part holds first (insertion order) cannot be seen from LuaJIT, so a
/// table mixing strings with other keys is reported as mixed.
fn encode_pairs(
    pairs: Vec<(LuaValue, LuaValue)>,
    seen: &mut Vec<*const std::ffi::c_void>,
    depth: usize,
    wrap: &dyn Fn(&str) -> String,
    budget: &mut usize,
) -> Result<Value, String> {
    if pairs.is_empty() {
        return Ok(Value::Array(Vec::new()));
    }
    let is_number = |k: &LuaValue| matches!(k, LuaValue::Integer(_) | LuaValue::Number(_));
    let all_strings = pairs.iter().all(|(k, _)| matches!(k, LuaValue::String(_)));
    if all_strings {
        let mut entries: Vec<(String, &LuaValue)> =
            pairs.iter().map(|(k, v)| (lua_string(k), v)).collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = serde_json::Map::new();
        for (k, v) in entries {
            out.insert(k, encode_value(v, seen, depth, budget)?);
        }
        return Ok(Value::Object(out));
    }
    let all_numbers = pairs.iter().all(|(k, _)| is_number(k));
    let mut ints: Vec<(i64, &LuaValue)> = pairs
        .iter()
        .filter_map(|(k, v)| positive_int(k).map(|i| (i, v)))
        .collect();
    if ints.is_empty() && !all_numbers {
        return Err(wrap("cannot encode mixed or invalid key types"));
    }
    ints.sort_by_key(|(i, _)| *i);
    let contiguous = ints
        .iter()
        .enumerate()
        .all(|(n, (i, _))| *i == n as i64 + 1);
    if !contiguous || (ints.len() < pairs.len() && all_numbers) {
        return Err(wrap("cannot encode sparse array"));
    }
    if ints.len() < pairs.len() {
        return Err(wrap("cannot encode mixed or invalid key types"));
    }
    let mut out = Vec::with_capacity(ints.len());
    for (_, v) in ints {
        out.push(encode_value(v, seen, depth, budget)?);
    }
    Ok(Value::Array(out))
}

fn encode_value(
    v: &LuaValue,
    seen: &mut Vec<*const std::ffi::c_void>,
    depth: usize,
    budget: &mut usize,
) -> Result<Value, String> {
    let wrap = |msg: &str| format!("{}{msg}", MARSHAL_PREFIX.repeat(depth + 2));
    match v {
        LuaValue::Nil => Ok(Value::Null),
        LuaValue::Boolean(b) => Ok(Value::Bool(*b)),
        LuaValue::Integer(i) => Ok(Value::from(*i)),
        LuaValue::Number(n) => serde_json::Number::from_f64(*n)
            .map(Value::Number)
            .ok_or_else(|| {
                format!(
                    "{}json: unsupported value: {}",
                    MARSHAL_PREFIX.repeat(depth + 1),
                    gopher::number_to_string(*n)
                )
            }),
        LuaValue::String(s) => Ok(Value::String(s.to_string_lossy())),
        LuaValue::Table(t) => encode_table(t, seen, depth + 1, budget),
        other => Err(wrap(&format!("cannot encode {} to JSON", type_name(other)))),
    }
}

fn positive_int(k: &LuaValue) -> Option<i64> {
    match k {
        LuaValue::Integer(i) if *i >= 1 => Some(*i),
        LuaValue::Number(n) if *n >= 1.0 && n.fract() == 0.0 && *n < 9.0e15 => Some(*n as i64),
        _ => None,
    }
}

fn lua_string(k: &LuaValue) -> String {
    match k {
        LuaValue::String(s) => s.to_string_lossy(),
        _ => String::new(),
    }
}

/// argo-cd `ExecuteHealthLua` on the script's last value:
/// nil → empty status; a non-table → `expect table output from Lua script, not <type>`; a table
/// → gopher-json encoding (its errors are returned), then Go's `json.Unmarshal` into
/// `HealthStatus{status, message}` (field names case-insensitive, the later of two spellings in
/// sorted key order wins; any type mismatch — an array, a number, a table — yields the empty
/// status without error); a status outside Argo's six codes → `Unknown` / `Lua returned an
/// invalid health status`.
pub fn decode_result(v: LuaResult) -> Result<HealthStatus, String> {
    let empty = HealthStatus::new("", "");
    match v {
        LuaResult::Nil => Ok(empty),
        LuaResult::Other(t) => Err(format!("expect table output from Lua script, not {t}")),
        LuaResult::Table(Err(e)) => Err(e),
        LuaResult::Table(Ok(json)) => {
            let Value::Object(map) = json else {
                return Ok(empty);
            };
            let (mut status, mut message) = (String::new(), String::new());
            for (k, v) in &map {
                let field = if k.eq_ignore_ascii_case("status") {
                    &mut status
                } else if k.eq_ignore_ascii_case("message") {
                    &mut message
                } else {
                    continue;
                };
                match v {
                    Value::String(s) => *field = s.clone(),
                    Value::Null => {}
                    _ => return Ok(empty),
                }
            }
            if super::HEALTH_CODES.contains(&status.as_str()) {
                Ok(HealthStatus { status, message })
            } else {
                Ok(HealthStatus::new(
                    "Unknown",
                    "Lua returned an invalid health status",
                ))
            }
        }
    }
}

/// The text of a Lua failure as Argo would show it: the Lua error value, with LuaJIT's wording
/// turned into gopher-lua's where they differ and a memory-limit failure named as such.
fn lua_error_text(e: &mlua::Error, limits: &Limits) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => lua_error_text(cause, limits),
        mlua::Error::WithContext { cause, .. } => lua_error_text(cause, limits),
        mlua::Error::MemoryError(_) => format!(
            "memory limit exceeded: the script allocated more than {} MiB (kubectl-pacto's sandbox limit)",
            limits.memory_bytes >> 20
        ),
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => {
            gopher_wording(m)
        }
        other => gopher_wording(&other.to_string()),
    }
}

/// Rewrites LuaJIT error texts that the prelude's metatables cannot intercept (operations on two
/// tables) into gopher-lua's wording (vm.go `lessThan`, state.go `callR`).
fn gopher_wording(m: &str) -> String {
    let m = m.split("\nstack traceback:").next().unwrap_or(m);
    let (prefix, body) = match m.find(": ") {
        Some(i) if m.starts_with("<string>:") => (&m[..i + 2], &m[i + 2..]),
        _ => ("", m),
    };
    let body = if let Some(rest) = body.strip_prefix("attempt to compare two ") {
        let t = rest.trim_end_matches(" values");
        format!("attempt to compare {t} with {t}")
    } else if body.starts_with("attempt to call ") {
        "attempt to call a non-function object".to_string()
    } else {
        body.to_string()
    };
    format!("{prefix}{body}")
}

#[cfg(test)]
mod tests {
    //! Every expected value here comes from shared/reference/argo-cd-health.md, which records
    //! argo-cd `util/lua/lua.go` and gopher-lua v1.1.2 behaviour measured on Argo's own VM setup;
    //! the section is named on each test.
    use super::*;
    use serde_json::json;

    fn eval_with(src: &str, obj: &Value, open: bool) -> Result<HealthStatus, String> {
        let script = Script::compile(src)?;
        execute_health(&script, obj, open, 1_709_208_000, &Limits::default()).result
    }
    fn eval(src: &str) -> Result<HealthStatus, String> {
        eval_with(src, &json!({"metadata": {"name": "a"}}), false)
    }
    /// The message of `return {status="Healthy", message=<expr>}`.
    fn msg(expr: &str, open: bool) -> String {
        let src = format!("return {{status = \"Healthy\", message = {expr}}}");
        eval_with(&src, &json!({"metadata": {"name": "a"}}), open)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
            .message
    }

    /// §6 "Number → string": tostring and `..` format numbers as gopher's LNumber.String.
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

    /// §6 "`#` and tables": gopher's Len is the highest non-nil index of the array part.
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
        // #20108 (§8): n[2] set only → gopher's concat hits the nil at index 1.
        let e = eval(
            "local n = {} n[2] = 'B' return {status = 'Degraded', message = table.concat(n, ', ')}",
        )
        .unwrap_err();
        assert_eq!(
            e,
            "<string>:1: invalid value (nil) at index 1 in table for concat"
        );
    }

    /// §6 error texts, chunk name `<string>`.
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

    /// §1.2 table: what restricted and open states see.
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

    /// §2.1: numbers are floats, nulls in arrays dropped, null map values absent, {} and []
    /// both empty tables.
    #[test]
    fn object_conversion() {
        let obj = json!({"a": [1, null, 3], "m": {"x": null, "y": 2}, "e": {}, "l": [], "big": 9007199254740993_i64, "f": 1.5});
        let src = "return {status = 'Healthy', message = #obj.a .. ' ' .. obj.a[2] .. ' ' .. tostring(obj.m.x) .. ' ' .. #obj.e .. #obj.l .. ' ' .. tostring(next(obj.e)) .. ' ' .. obj.big .. ' ' .. obj.f}";
        assert_eq!(
            eval_with(src, &obj, false).unwrap().message,
            "2 3 nil 00 nil 9007199254740992 1.5"
        );
    }

    /// §2.2: the last return value; nil or {} → empty; a non-table → error; field names
    /// case-insensitive; a wrong-typed field → empty; an invalid code → Unknown.
    #[test]
    fn result_rules() {
        let empty = HealthStatus::new("", "");
        assert_eq!(
            eval("return {status = 'Degraded'}, {status = 'Healthy'}")
                .unwrap()
                .status,
            "Healthy"
        );
        assert_eq!(eval("return nil").unwrap(), empty);
        assert_eq!(eval("local x = 1").unwrap(), empty);
        assert_eq!(eval("return {}").unwrap(), empty);
        assert_eq!(eval("return {'Healthy'}").unwrap(), empty);
        assert_eq!(eval("return {status = 1}").unwrap(), empty);
        assert_eq!(eval("return {status = {}}").unwrap(), empty);
        assert_eq!(
            eval("return {status = 'Healthy', message = 5}").unwrap(),
            empty
        );
        assert_eq!(
            eval("return {status = 'Healthy', message = true}").unwrap(),
            empty
        );
        assert_eq!(
            eval("return {Status = 'Degraded', MESSAGE = 'x'}").unwrap(),
            HealthStatus::new("Degraded", "x")
        );
        assert_eq!(
            eval("return {Status = 'Degraded', status = 'Healthy'}")
                .unwrap()
                .status,
            "Healthy"
        );
        let invalid = HealthStatus::new("Unknown", "Lua returned an invalid health status");
        assert_eq!(eval("return {message = 'x'}").unwrap(), invalid);
        assert_eq!(eval("return {status = 'healthy'}").unwrap(), invalid);
        assert_eq!(
            eval("return 5").unwrap_err(),
            "expect table output from Lua script, not number"
        );
        assert_eq!(
            eval("return 'Healthy'").unwrap_err(),
            "expect table output from Lua script, not string"
        );
        assert_eq!(
            eval("return {1, nil, 3, status = 'x'}").unwrap_err(),
            "json: error calling MarshalJSON for type json.jsonValue: cannot encode sparse array"
        );
        assert_eq!(
            eval("local t = {status = 'Healthy'} t.self = t return t").unwrap_err(),
            "json: error calling MarshalJSON for type json.jsonValue: json: error calling MarshalJSON for type json.jsonValue: cannot encode recursively nested tables to JSON"
        );
    }

    /// §1.1: `goto` parses and runs (9 built-in scripts need it).
    #[test]
    fn goto_continue() {
        let src = "local n = 0 for i = 1, 5 do if i % 2 == 0 then goto continue end n = n + i ::continue:: end return {status = 'Healthy', message = tostring(n)}";
        assert_eq!(eval_with(src, &json!({}), true).unwrap().message, "9");
    }

    /// §1.1: 1 s wall-clock limit (`<string>:N: context deadline exceeded`), 256 call frames.
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
        assert!(started.elapsed() < Duration::from_secs(10));
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

    /// §1.2: safe os.time reads only number fields, os.date formats with gopher's layouts.
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

    /// gopher-lua's parser message for a syntax error (reference §2.2).
    #[test]
    fn syntax_error_text() {
        let e = eval("return {status = = 1}").unwrap_err();
        assert!(e.starts_with("<string> line:1(column:"), "{e}");
        assert!(e.contains("near '='"), "{e}");
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
            "return {status = 'Healthy', message = tostring(table.insert ~= nil) .. tostring(x) .. tostring(getmetatable('')) .. tostring(collectgarbage('count') > 0)}",
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

    /// The time limit cannot be caught, lifted or escaped (Argo's cancelled context stops every
    /// instruction; gopher's debug library has no sethook).
    #[test]
    fn time_limit_cannot_be_defeated() {
        // A long library call is stopped by the watchdog (open mode: a pathological pattern).
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
        assert!(e.starts_with("context deadline exceeded"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
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
            assert!(started.elapsed() < Duration::from_secs(10), "{src}");
        }
        assert_eq!(
            msg(
                "tostring(debug.sethook) .. tostring(debug.gethook) .. tostring(debug.getregistry)",
                true
            ),
            "nilnilnil"
        );
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
            let e = run("local f, err = loadstring('\\27LJ\\2junk') return {status = 'Healthy', message = tostring(f) .. ' ' .. tostring(err)}", open).unwrap();
            assert_eq!(
                e.message, "nil binary chunks are not accepted",
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
