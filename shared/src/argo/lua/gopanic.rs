//! Go panics inside gopher-lua library functions, as Argo CD shows them.
//!
//! A Go runtime panic in a library function (`send on closed channel`) is recovered by gopher's
//! `PCall` (state.go) as an `ApiErrorPanic` whose message is the panic's text with no position:
//! a script's `pcall` gets that text; when it reaches Argo, `ExecuteHealthLua` returns it with
//! gopher's stack traceback (argo-cd `util/lua/lua.go` strips the traceback of `ApiErrorRun`
//! errors only):
//!
//! ```text
//! send on closed channel
//! stack traceback:
//!     [G]: in function 'send'
//!     <string>:3: in main chunk
//!     [G]: ?
//! ```
//!
//! (each frame line starts with a tab). [`raise`] builds that traceback (gopher `stackTrace`,
//! `formattedFrameFuncName`) from the LuaJIT stack where the panic happens and keeps it for
//! the evaluation; [`traceback_for`] adds it to the evaluation's error when the error that ends
//! it is that panic's text, and [`caught`] forgets it when the script catches it.

use mlua::Lua;
use std::cell::RefCell;

thread_local! {
    /// The last panic of the evaluation under way: its text and traceback.
    static LAST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Forgets the panic of a previous evaluation.
pub(super) fn reset() {
    LAST.with(|l| l.borrow_mut().take());
}

/// The error of a Go panic with text `msg` in the running library function.
pub(super) fn raise(lua: &Lua, msg: &str) -> mlua::Error {
    let trace = traceback(lua);
    LAST.with(|l| *l.borrow_mut() = Some((msg.to_owned(), trace)));
    mlua::Error::runtime(msg)
}

/// A script caught an error with text `text`: a panic with that text no longer ends the
/// evaluation with its traceback.
pub(super) fn caught(text: &str) {
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        if l.as_ref().is_some_and(|(msg, _)| msg == text) {
            *l = None;
        }
    });
}

/// The evaluation's error text with gopher's traceback when it is the text of the last panic.
pub(super) fn traceback_for(text: String) -> String {
    LAST.with(|l| match &*l.borrow() {
        Some((msg, trace)) if *msg == text => format!("{text}\n{trace}"),
        _ => text,
    })
}

/// One frame of the stack as gopher would list it.
struct Frame {
    /// A C function (gopher: a Go function, `[G]`).
    native: bool,
    /// A frame of the script or of a chunk it compiled (not the prelude's).
    script: bool,
    main: bool,
    source: String,
    line: i64,
    defined: i64,
    name: Option<String>,
}

fn frames(lua: &Lua) -> Vec<Frame> {
    let mut out = Vec::new();
    for level in 0.. {
        let frame = lua.inspect_stack(level, |d| {
            let src = d.source();
            let source = src.source.as_deref().unwrap_or("").to_owned();
            let native = src.what == "C";
            let script = !native && source.starts_with('=') && source != "=prelude";
            Frame {
                native,
                script,
                main: src.what == "main",
                source: source.trim_start_matches('=').to_owned(),
                line: d.current_line().map_or(-1, |l| l as i64),
                defined: src.line_defined.map_or(0, |l| l as i64),
                name: d.names().name.map(|n| n.into_owned()),
            }
        });
        match frame {
            Some(f) => out.push(f),
            None => break,
        }
    }
    out
}

/// gopher `stackTrace(0)` of the stack at the running library function.
fn traceback(lua: &Lua) -> String {
    let all = frames(lua);
    // The script's outermost main chunk ends the stack gopher has (the prelude runs it).
    let bottom = all
        .iter()
        .rposition(|f| f.script && f.main)
        .unwrap_or(all.len());
    let mut lines = Vec::new();
    for (i, f) in all.iter().enumerate().take(bottom + 1) {
        if !f.native && !f.script {
            continue;
        }
        // The name the caller gives a frame, when the caller is the script (gopher reads it
        // from the calling instruction; a call from a Go function or the VM has none).
        let caller_is_script = all.get(i + 1).is_some_and(|c| c.script);
        if f.native {
            let name = match (&f.name, caller_is_script) {
                (Some(n), true) => format!("function '{n}'"),
                (None, true) => "function '?'".to_owned(),
                _ => "function (anonymous)".to_owned(),
            };
            lines.push(format!("\t[G]: in {name}"));
        } else {
            let what = if i == bottom {
                "main chunk".to_owned()
            } else {
                match (&f.name, caller_is_script) {
                    (Some(n), true) => format!("function '{n}'"),
                    _ => format!("function <{}:{}>", f.source, f.defined),
                }
            };
            lines.push(format!("\t{}:{}: in {what}", f.source, f.line));
        }
    }
    lines.push("\t[G]: ?".to_owned());
    if lines.len() > 20 {
        let tail = lines.split_off(lines.len() - 7);
        lines.truncate(7);
        lines.push("\t...".to_owned());
        lines.extend(tail);
    }
    format!("stack traceback:\n{}", lines.join("\n"))
}
