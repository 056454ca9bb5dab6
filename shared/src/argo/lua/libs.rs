//! gopher-lua v1.1.2's `table` library (`tablelib.go`, and `table.go` for the array part) and,
//! for open-libs mode, its `math` (`mathlib.go`) and `coroutine` (`coroutinelib.go`) libraries,
//! on LuaJIT (`prelude/tablelib.lua`, `prelude/mathlib.lua`, `prelude/coroutinelib.lua`):
//! gopher's argument checks (`CheckTable`, `OptInt`, `OptString`, `CheckNumber`, `CheckThread`)
//! and error texts, and Go's semantics where LuaJIT's differ
//! (`math.max` of no value, `math.log` ignoring a base, `math.mod` as gopher's `%`, `math.modf`
//! of an infinity, `coroutine.resume` of a dead coroutine). `table.sort` is `sortlib`'s.
//!
//! Not reproduced: Go's `math` package computes some functions differently from the C library in
//! the last digit (`math.tan(1)` is `1.557407724654902` in Go, `1.5574077246549023` here).

#[cfg(test)]
mod tests {
    //! Expected values are gopher-lua v1.1.2's, recorded with it in
    //! tests/fixtures/lua_gopher_differential.txt; each test names the Go functions.
    use crate::argo::lua::testing::{eval_with, msg};
    use serde_json::json;

    fn err(src: &str, open: bool) -> String {
        eval_with(src, &json!({}), open).unwrap_err()
    }

    /// tablelib.go tableConcat (OptString: a number is no separator), tableInsert/tableRemove
    /// (OptInt: numbers only, "wrong number of arguments"), tableGetN/tableMaxN (the array part's
    /// length).
    #[test]
    fn table_library() {
        for (expr, want) in [
            ("table.concat({1, 2, 3}, ', ', 2)", "2, 3"),
            (
                "table.concat({1.5, 2^53, 1e100})",
                "1.590071992547409921e+100",
            ),
            ("tostring(table.getn({1, nil, 3}))", "3"),
            ("tostring(table.maxn({1, 2, [10] = 3, [3.5] = 4}))", "10"),
            ("tostring(table.foreach)", "nil"),
        ] {
            assert_eq!(msg(expr, false), want, "{expr}");
        }
        for (src, want) in [
            (
                "return table.concat({1, 2}, 3)",
                "<string>:1: bad argument #2 to concat (string expected, got number)",
            ),
            (
                "local t = {1, 2, 3} table.insert(t, '2', 'x')",
                "<string>:1: bad argument #2 to insert (number expected, got string)",
            ),
            ("table.insert({})", "<string>:1: wrong number of arguments"),
            (
                "local f = table.insert f(nil, 1)",
                "<string>:1: bad argument #1 to f (table expected, got nil)",
            ),
        ] {
            assert_eq!(err(src, false), want, "{src}");
        }
        assert_eq!(
            msg("select(2, pcall(table.insert))", false),
            "<string>:1: bad argument #1 to (anonymous) (table expected, got nil)"
        );
    }

    /// mathlib.go: CheckNumber reads strings with parseNumber ("010" is 8); mathMax/mathMin
    /// (no argument, NaN kept only first), mathLog (one argument), mathMod (luaModulo), mathModf
    /// (Go's math.Modf of an infinity).
    #[test]
    fn math_library() {
        for (expr, want) in [
            ("tostring(math.floor('010'))", "8"),
            ("tostring(math.floor('0x10'))", "16"),
            ("tostring(math.max('010', 9))", "9"),
            ("tostring(math.max(0/0, 1))", "NaN"),
            ("tostring(math.max(1, 0/0))", "1"),
            ("tostring(math.log(8, 2))", "2.0794415416798357"),
            ("tostring(math.mod(-7, 3))", "2"),
            ("tostring(math.fmod(-7, 3))", "-1"),
            ("tostring(select(2, math.modf(1/0)))", "NaN"),
            ("tostring(math.huge)", "1.7976931348623157e+308"),
            ("tostring(math.ldexp(1, 2.9))", "4"),
        ] {
            assert_eq!(msg(expr, true), want, "{expr}");
        }
        for (src, want) in [
            ("return math.max()", "<string>:1: wrong number of arguments"),
            (
                "return math.ldexp(1, '2')",
                "<string>:1: bad argument #2 to ldexp (number expected, got string)",
            ),
            (
                "return math.floor('x')",
                "<string>:1: bad argument #1 to floor (number expected, got string)",
            ),
        ] {
            assert_eq!(err(src, true), want, "{src}");
        }
    }

    /// coroutinelib.go: coResume of a dead thread (returned, or raised through wrap), coYield
    /// outside a coroutine, CheckThread.
    #[test]
    fn coroutine_library() {
        assert_eq!(
            msg("select(2, coroutine.resume((function() local co = coroutine.create(function() end) coroutine.resume(co) return co end)()))", true),
            "can not resume a dead thread"
        );
        for (src, want) in [
            (
                "local gen = coroutine.wrap(function() end) gen() return gen()",
                "<string>:1: can not resume a dead thread",
            ),
            (
                "return coroutine.yield(1)",
                "<string>:1: can not yield from outside of a coroutine",
            ),
            (
                "return coroutine.status(nil)",
                "<string>:1: bad argument #1 to status (thread expected, got nil)",
            ),
            (
                "return coroutine.resume(1)",
                "<string>:1: bad argument #1 to resume (thread expected, got number)",
            ),
        ] {
            assert_eq!(err(src, true), want, "{src}");
        }
        assert_eq!(msg("tostring(coroutine.isyieldable)", true), "nil");
    }
}
