//! gopher-lua v1.1.2 `stringlib.go`'s byte-level string functions, which read their numbers with
//! `CheckInt`/`OptInt` (a number only: LuaJIT would also take a numeric string) and convert as Go
//! does: `char` (`strChar`), `byte` (`strByte`) and `sub` (`strSub`, through
//! `luaIndex2StringIndex`).

use super::strlib::{check_string, opt_int};
use mlua::{Lua, LuaString, MultiValue, Table, Value as LuaValue};

/// Replaces `char`, `byte` and `sub` in `string`.
pub(super) fn install(lua: &Lua, string: &Table) -> mlua::Result<()> {
    string.raw_set(
        "char",
        lua.create_function(|lua, args: MultiValue| str_char(lua, &args))?,
    )?;
    string.raw_set(
        "byte",
        lua.create_function(|lua, args: MultiValue| str_byte(lua, &args))?,
    )?;
    string.raw_set(
        "sub",
        lua.create_function(|lua, args: MultiValue| str_sub(lua, &args))?,
    )?;
    Ok(())
}

/// gopher stringlib.go `strChar`: each argument is CheckInt (a number, not a numeric string)
/// and becomes one byte as Go's `uint8` conversion makes it (the low 8 bits: 256 is 0, -1 is
/// 255).
fn str_char(lua: &Lua, args: &MultiValue) -> mlua::Result<LuaString> {
    let mut out = Vec::with_capacity(args.len());
    for n in 1..=args.len() {
        out.push(opt_int(lua, args, n, None)? as u8);
    }
    lua.create_string(out)
}

/// gopher `strByte`: CheckString(1), OptInt(2, 1), OptInt(3, -1); with exactly two arguments the
/// one byte at the start (none outside the string); otherwise the bytes of the clamped range.
fn str_byte(lua: &Lua, args: &MultiValue) -> mlua::Result<MultiValue> {
    let s = check_string(lua, args, 1)?;
    let b = s.as_bytes();
    let l = b.len() as i64;
    let mut start = opt_int(lua, args, 2, Some(1))?.saturating_sub(1);
    let mut end = opt_int(lua, args, 3, Some(-1))?;
    if start < 0 {
        start = l.saturating_add(start).saturating_add(1);
    }
    if end < 0 {
        end = l.saturating_add(end).saturating_add(1);
    }
    let mut out = MultiValue::new();
    if args.len() == 2 {
        if (0..l).contains(&start) {
            out.push_back(LuaValue::Number(f64::from(b[start as usize])));
        }
        return Ok(out);
    }
    let start = start.max(0);
    let end = end.min(l);
    if end < 0 || end <= start || start >= l {
        return Ok(out);
    }
    for &c in &b[start as usize..end as usize] {
        out.push_back(LuaValue::Number(f64::from(c)));
    }
    Ok(out)
}

/// gopher `strSub`: CheckString(1), CheckInt(2), OptInt(3, -1), through `luaIndex2StringIndex`.
fn str_sub(lua: &Lua, args: &MultiValue) -> mlua::Result<LuaString> {
    let s = check_string(lua, args, 1)?;
    let b = s.as_bytes();
    let l = b.len() as i64;
    let index = |i: i64, start: bool| -> i64 {
        let mut i = if start && i != 0 { i - 1 } else { i };
        if i < 0 {
            i = l.saturating_add(i).saturating_add(1);
        }
        i = i.max(0);
        if !start && i > l {
            i = l;
        }
        i
    };
    let start = index(opt_int(lua, args, 2, None)?, true);
    let end = index(opt_int(lua, args, 3, Some(-1))?, false);
    if start >= l || end < start {
        return lua.create_string("");
    }
    lua.create_string(&b[start as usize..end as usize])
}

#[cfg(test)]
mod tests {
    //! Expected values are gopher-lua v1.1.2's (stringlib.go `strChar`, `strByte`, `strSub`),
    //! recorded with it in tests/fixtures/lua_gopher_differential.txt.
    use crate::argo::lua::testing::{eval_with, msg};
    use serde_json::json;

    #[test]
    fn char_keeps_the_low_byte_of_numbers_only() {
        for (expr, want) in [
            ("string.char(72, 105)", "Hi"),
            ("string.char(65.9)", "A"),
            ("tostring(string.byte(string.char(256, 255, -1), 1))", "0"),
            ("tostring(string.byte(string.char(256, 255, -1), 3))", "255"),
        ] {
            assert_eq!(msg(expr, true), want, "{expr}");
        }
        let e = eval_with("return string.char('65')", &json!({}), true).unwrap_err();
        assert_eq!(
            e,
            "<string>:1: bad argument #1 to char (number expected, got string)"
        );
    }

    #[test]
    fn byte_and_sub_take_numbers_only() {
        for (expr, want) in [
            ("tostring(string.byte('ABC', 2))", "66"),
            ("tostring(select('#', string.byte('ABC', 1, 3)))", "3"),
            ("tostring(select('#', string.byte('ABC', 0)))", "0"),
            ("tostring(string.byte('hello', -2, -1))", "108"),
            ("tostring(select('#', string.byte('hello', 3, 2)))", "0"),
            ("tostring(string.byte('hello', 2.7))", "101"),
            ("string.sub('hello', 2, 4)", "ell"),
            ("string.sub('hello', 0)", "hello"),
            ("string.sub('hello', -100, 2)", "he"),
            ("string.sub('hello', -3, -4)", ""),
            ("string.sub(12345, 2, 3)", "23"),
        ] {
            assert_eq!(msg(expr, true), want, "{expr}");
        }
        for (src, want) in [
            (
                "return string.sub('hello', '2')",
                "<string>:1: bad argument #2 to sub (number expected, got string)",
            ),
            (
                "return string.byte('abc', '1')",
                "<string>:1: bad argument #2 to byte (number expected, got string)",
            ),
        ] {
            assert_eq!(eval_with(src, &json!({}), true).unwrap_err(), want, "{src}");
        }
    }
}
