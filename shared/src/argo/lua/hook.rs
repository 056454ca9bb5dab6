//! The instruction hook that enforces an evaluation's time limit and gopher-lua's call depth
//! (argo-cd `util/lua/lua.go`: a 1 s `context.WithTimeout`, checked by gopher-lua's main loop;
//! gopher-lua `config.go` `CallStackSize` 256, `state.go` `pushCallFrame` raising
//! `stack overflow`).
//!
//! It is a plain C hook on LuaJIT, installed once per state for every call and every
//! [`CHECK_EVERY`] instructions (LuaJIT's hooks belong to the whole state, coroutines included).
//! A call costs one `lua_getstack` probe at the depth limit; the clock is read on the count
//! events only. The limits of the evaluation under way live in a thread-local: one evaluation
//! runs at a time on a thread.
//!
//! The errors it raises read as gopher's: `<string>:LINE: context deadline exceeded` at the line
//! running, `<string>:LINE: stack overflow` at the line of the call that would go too deep.

use mlua::ffi;
use std::cell::Cell;
use std::os::raw::{c_char, c_int};
use std::time::Instant;

/// Instructions between two deadline checks.
pub(super) const CHECK_EVERY: c_int = 1000;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Frames allowed below the probe: the script's limit plus the prelude's `run`.
    static DEPTH: Cell<c_int> = const { Cell::new(257) };
    /// Whether `expire_now` set the hook to run on every instruction.
    static HURRIED: Cell<bool> = const { Cell::new(false) };
}

/// Sets the limits of the evaluation about to run on this thread: the instant its time is up,
/// and the call frames the script may use.
pub(super) fn arm(deadline: Instant, max_call_depth: usize) {
    DEADLINE.with(|d| d.set(Some(deadline)));
    // One frame more than the limit: the prelude's `run` sits below the script.
    let depth = c_int::try_from(max_call_depth.saturating_add(1)).unwrap_or(c_int::MAX);
    DEPTH.with(|d| d.set(depth));
}

/// Ends the time of the evaluation under way now, and has the hook look at the deadline before
/// the next instruction: the next instruction of the script fails with `context deadline
/// exceeded` at its line, as gopher's main loop fails it once a blocking library call returned
/// at the deadline (`channellib.go` `channelReceive`, `channelSelect`). The state checks after
/// every instruction from then on; [`take_hurried`] says whether to reinstall the hook.
pub(super) fn expire_now(lua: &mlua::Lua) -> mlua::Result<()> {
    DEADLINE.with(|d| d.set(Some(Instant::now())));
    HURRIED.with(|h| h.set(true));
    // SAFETY: as in `install`.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            ffi::lua_sethook(state, Some(hook), ffi::LUA_MASKCALL | ffi::LUA_MASKCOUNT, 1);
        })
    }
}

/// Whether [`expire_now`] ran since the last call.
pub(super) fn take_hurried() -> bool {
    HURRIED.with(|h| h.replace(false))
}

/// Whether the evaluation under way on this thread is past its deadline.
pub(super) fn expired() -> bool {
    DEADLINE.with(|d| d.get().is_some_and(|t| Instant::now() >= t))
}

/// Installs the hook in a state.
pub(super) fn install(lua: &mlua::Lua) -> mlua::Result<()> {
    // SAFETY: lua_sethook only stores the function and the mask in the global state.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            ffi::lua_sethook(
                state,
                Some(hook),
                ffi::LUA_MASKCALL | ffi::LUA_MASKCOUNT,
                CHECK_EVERY,
            );
        })
    }
}

unsafe extern "C-unwind" fn hook(state: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) {
    // SAFETY (whole function): LuaJIT calls the hook with a valid state and debug record; the
    // probe record is plain data; lua_error unwinds through this frame, which holds nothing to
    // drop by then.
    let count_event = unsafe { (*ar).event } == ffi::LUA_HOOKCOUNT;
    let (what, from) = if count_event {
        if !expired() {
            return;
        }
        ("context deadline exceeded", 0)
    } else {
        let mut probe: ffi::lua_Debug = unsafe { std::mem::zeroed() };
        let limit = DEPTH.with(Cell::get);
        if unsafe { ffi::lua_getstack(state, limit, &mut probe) } == 0 {
            return;
        }
        // gopher raises before it pushes the new frame: the position is the caller's.
        ("stack overflow", 1)
    };
    let at = unsafe { position(state, from) };
    // Past the deadline, only a script frame is stopped: the prelude's own few instructions
    // around a script (fresh globals) always finish.
    let Some(at) = at.or_else(|| (!count_event).then(String::new)) else {
        return;
    };
    let text = format!("{at}{what}");
    unsafe {
        ffi::lua_pushlstring(state, text.as_ptr() as *const c_char, text.len());
    }
    drop(text);
    unsafe { ffi::lua_error(state) }
}

/// `NAME:LINE: ` of the innermost script frame from stack level `from` outward, as gopher's
/// `where` prints it: the script is `=<string>`, chunks it compiles are named as gopher names them
/// (see `prelude/env.lua`); the prelude (`=prelude`) and C functions are skipped.
///
/// # Safety
/// `state` must be a valid Lua state.
pub(super) unsafe fn position(state: *mut ffi::lua_State, from: c_int) -> Option<String> {
    let mut level = from;
    loop {
        let mut ar: ffi::lua_Debug = unsafe { std::mem::zeroed() };
        if unsafe { ffi::lua_getstack(state, level, &mut ar) } == 0 {
            return None;
        }
        if unsafe { ffi::lua_getinfo(state, c"Sl".as_ptr(), &mut ar) } != 0
            && !ar.source.is_null()
            && ar.currentline > 0
        {
            let source = unsafe { std::ffi::CStr::from_ptr(ar.source) }.to_bytes();
            if let Some(name) = source.strip_prefix(b"=") {
                if name != b"prelude" {
                    return Some(format!(
                        "{}:{}: ",
                        String::from_utf8_lossy(name),
                        ar.currentline
                    ));
                }
            }
        }
        level += 1;
    }
}
