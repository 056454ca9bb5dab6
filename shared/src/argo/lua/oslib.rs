//! `os.time` and `os.date` as Argo CD health scripts call them: argo-cd `util/lua/oslib_safe.go`
//! (the module `require("os")` gives, in both modes) and gopher-lua v1.1.2 `oslib.go` (the
//! global `os` of open-libs mode), with gopher's argument checks (`CheckTable`, `CheckString`,
//! `CheckInt64`) and errors at the script's line. The dates themselves are
//! [`crate::argo::osdate`]'s.

use super::strlib;
use crate::argo::osdate;
use mlua::{Function, Lua, MultiValue, Table, Value as LuaValue};
use std::rc::Rc;

/// The safe `os.time`, gopher's own `os.time`, and `os.date` (one function serves both
/// modules); `now` is what `os.time()` answers during the current evaluation (Unix seconds).
pub(super) fn functions(
    lua: &Lua,
    now: Rc<std::cell::Cell<i64>>,
) -> mlua::Result<(Function, Function, Function)> {
    // argo-cd oslib_safe.go osTime: no argument is now, else CheckTable(1) with fields read only
    // when they are numbers.
    let now2 = now.clone();
    let now3 = now.clone();
    let safe_time = lua.create_function(move |lua, args: MultiValue| {
        if args.is_empty() {
            return Ok(now2.get());
        }
        let t = check_table(lua, &args, 1)?;
        Ok(osdate::unix_from_fields(date_fields(&t, false)))
    })?;
    // gopher-lua oslib.go osTime: numeric strings are read too.
    let full_time = lua.create_function(move |lua, args: MultiValue| {
        if args.is_empty() {
            return Ok(now3.get());
        }
        let t = check_table(lua, &args, 1)?;
        Ok(osdate::unix_from_fields(date_fields(&t, true)))
    })?;
    // osDate (both): with an argument, CheckString(1) (a number in gopher's format), a `!` prefix
    // trimmed; with two, CheckInt64(2) (a number, truncated).
    let date = lua.create_function(move |lua, args: MultiValue| {
        let mut fmt = b"%c".to_vec();
        let mut t = now.get();
        if !args.is_empty() {
            fmt = strlib::check_string(lua, &args, 1)?.as_bytes().to_vec();
            let bangs = fmt.iter().take_while(|&&b| b == b'!').count();
            fmt.drain(..bangs);
            if args.len() >= 2 {
                t = match strlib::arg(&args, 2) {
                    LuaValue::Number(x) => strlib::go_int(x),
                    LuaValue::Integer(i) => i,
                    other => {
                        return Err(strlib::raise(
                            lua,
                            &format!(
                                "bad argument #2 to {} (number expected, got {})",
                                strlib::fname(lua),
                                strlib::type_name(&other)
                            ),
                        ))
                    }
                };
            }
        }
        if fmt.starts_with(b"*t") {
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
            lua.create_string(osdate::strftime_bytes(t, &fmt))?,
        ))
    })?;
    Ok((safe_time, full_time, date))
}

/// gopher `CheckTable` at the calling script line.
fn check_table(lua: &Lua, args: &MultiValue, n: usize) -> mlua::Result<Table> {
    match strlib::arg(args, n) {
        LuaValue::Table(t) => Ok(t),
        _ => Err(strlib::type_error(lua, args, n, "table")),
    }
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
