//! gopher-lua's table key order on LuaJIT (`prelude/order.lua`): `pairs` and `next` visit a table's
//! array part (positive integer keys below MaxArrayIndex, ascending), then its other keys in the
//! order they were first set, as gopher-lua v1.1.2 `table.go` (`RawSetString`, `RawSetH`,
//! `Next`) and `baselib.go` (`basePairs`, `pairsaux`, `baseNext`, `baseRawSet`) do. The source
//! rewriter ([`crate::argo::gopher::rewrite`]) routes every table constructor of a script
//! through the chunk's `tab` function and every dynamic constructor key through its `key`
//! function ([`crate::argo::gopher::TABLE_FN`], [`crate::argo::gopher::KEY_FN`]).
//!
//! Not reproduced: tables the script did not build with a constructor (`obj` and the tables in
//! it, which Argo CD's `decodeValue` fills in Go's random map order anyway, and tables returned
//! by library functions) keep LuaJIT's order for their non-array keys; so do the keys of a table
//! whose metatable the script replaced; a constructor that sets a key to nil and then to a value
//! (`{a = nil, b = 1, a = 2}`) orders it by its first mention. Chunks compiled at run time
//! (`loadstring`) go through the same rewrite, so their constructors keep gopher's order too.

#[cfg(test)]
mod tests {
    //! Expected orders follow gopher-lua v1.1.2 table.go: `RawSet` puts a positive integer key
    //! below MaxArrayIndex (67108864) in the array part, padding with nils; `RawSetString` and
    //! `RawSetH` append any other key to `keys` when it is first set to a non-nil value, and
    //! setting it to nil leaves it there ("TODO tb.keys and tb.k2i should also be removed");
    //! `Next` walks the array part skipping nils, then `keys` skipping nil values.
    use crate::argo::lua::testing::{eval, eval_with, msg};
    use serde_json::json;

    /// The keys and values `pairs` visits, as `k=v ` pairs.
    fn walk(setup: &str) -> String {
        let src = format!(
            "{setup} local r = '' for k, v in pairs(t) do r = r .. tostring(k) .. '=' .. (type(v) == 'table' and 'table' or tostring(v)) .. ' ' end return {{status = 'Healthy', message = r}}"
        );
        eval(&src)
            .unwrap_or_else(|e| panic!("{setup}: {e}"))
            .message
    }

    #[test]
    fn pairs_visits_the_array_part_then_keys_in_insertion_order() {
        let cases = [
            // Constructor fields in source order.
            ("local t = {b = 1, a = 2, c = 3}", "b=1 a=2 c=3 "),
            // Positional items are the array part, visited first whatever their place.
            ("local t = {z = 1, 'x', y = 2, 'w'}", "1=x 2=w z=1 y=2 "),
            // Assignments append; an existing key keeps its place.
            ("local t = {} t.m = 1 t.k = 2 t.m = 3 t.a = 4", "m=3 k=2 a=4 "),
            // A key set to nil and set again keeps its first place.
            ("local t = {} t.x = 1 t.y = 2 t.x = nil t.z = 3 t.x = 4", "x=4 y=2 z=3 "),
            // A deleted key is skipped.
            ("local t = {p = 1, q = 2, r = 3} t.q = nil", "p=1 r=3 "),
            // Integer keys in the array part come in ascending order, holes skipped.
            ("local t = {} t[5] = 'e' t.s = 1 t[2] = 'b' t[9] = 'i'", "2=b 5=e 9=i s=1 "),
            // Keys outside the array part (zero, negative, fractional, huge) are hash keys.
            (
                "local t = {} t[0] = 'z' t[-1] = 'n' t[1.5] = 'f' t[67108864] = 'h' t[1] = 'o'",
                "1=o 0=z -1=n 1.5=f 67108864=h ",
            ),
            // Dynamic constructor keys take their place among the named ones.
            (
                "local k = 'dyn' local t = {first = 1, [k] = 2, last = 3}",
                "first=1 dyn=2 last=3 ",
            ),
            // ... also with nested constructors in between.
            (
                "local k = 'dyn' local t = {[k .. '1'] = {[k] = 0, x = 1}, mid = 2, [k .. '2'] = 3}",
                "dyn1=table mid=2 dyn2=3 ",
            ),
            // Call arguments, `f{...}`, are constructors too.
            ("local function id(x) return x end local t = id{zz = 1, aa = 2}", "zz=1 aa=2 "),
            // rawset records the key as gopher's RawSet does.
            ("local t = {} rawset(t, 'late', 1) t.later = 2 rawset(t, 'early', 0)", "late=1 later=2 early=0 "),
        ];
        for (setup, want) in cases {
            let got = walk(setup);
            assert_eq!(got, want, "{setup}");
        }
    }

    /// More keyed fields than fit in a call are passed as one table: the order still holds.
    #[test]
    fn large_constructors_keep_their_order() {
        let fields: Vec<String> = (0..150).map(|i| format!("k{} = {i}", 149 - i)).collect();
        let src = format!(
            "local t = {{{}}} local r = {{}} for k in pairs(t) do r[#r + 1] = k end return {{status = 'Healthy', message = table.concat(r, ',')}}",
            fields.join(", ")
        );
        let want: Vec<String> = (0..150).map(|i| format!("k{}", 149 - i)).collect();
        assert_eq!(eval(&src).unwrap().message, want.join(","));
    }

    /// `next` follows the same order, from any key (baseNext calls LTable.Next).
    #[test]
    fn next_follows_the_same_order() {
        let src = "local t = {c = 3, a = 1, b = 2} local r = '' local k, v = next(t) while k do r = r .. k .. v k, v = next(t, k) end r = r .. '|' .. next(t, 'a') .. '|' .. tostring(next(t, 'b')) return {status = 'Healthy', message = r}";
        assert_eq!(eval(src).unwrap().message, "c3a1b2|b|nil");
    }

    /// Nested loops over one table and over two tables each keep their own place.
    #[test]
    fn nested_loops() {
        let src = "local t = {x = 1, y = 2} local u = {p = 1, q = 2} local r = '' for a in pairs(t) do for b in pairs(t) do for c in pairs(u) do r = r .. a .. b .. c .. ' ' end end end return {status = 'Healthy', message = r}";
        assert_eq!(
            eval(src).unwrap().message,
            "xxp xxq xyp xyq yxp yxq yyp yyq "
        );
    }

    /// Constructors in the places LuaJIT is strict about still run: an argument on a later line,
    /// a method's argument on a later line (left unrouted), a statement after a constructor
    /// that starts with `(`.
    #[test]
    fn constructors_where_luajit_is_strict() {
        let src = "local function id(x) return x end\nlocal t = id\n{q = 1, p = 2}\nlocal o = {m = function(self, a) return a end}\nlocal u = o:m\n{w = 1}\nlocal v = {}\n(id)(v)\nlocal r = '' for k in pairs(t) do r = r .. k end\nreturn {status = 'Healthy', message = r .. tostring(u.w)}";
        assert_eq!(eval(src).unwrap().message, "qp1");
    }

    /// Deeply nested constructors, which gopher-lua accepts, still run: past 24 levels they are
    /// left unrouted (LuaJIT's register limit), and the outer levels keep their order.
    #[test]
    fn deep_constructors_run() {
        for depth in [30, 60, 90] {
            let open: String = "{z = 0, ['k' .. 1] = ".repeat(depth);
            let close: String = ", y = 1}".repeat(depth);
            let src = format!(
                "local t = {open}1{close} local r = '' for k in pairs(t) do r = r .. k end return {{status = 'Healthy', message = r}}"
            );
            assert_eq!(eval(&src).unwrap().message, "zk1y", "depth {depth}");
        }
    }

    /// Keys of constructors an error interrupted are dropped by the protected call that caught
    /// it, a coroutine's constructors keep their own keys across a yield, array items appended
    /// during a traversal are visited (gopher walks its array part live), and clearing the
    /// metatable of a constructor's table keeps its order. Expected values: gopher-lua v1.1.2.
    #[test]
    fn pending_keys_traversal_and_metatables_as_gopher() {
        let cases = [
            (
                "local o = {kind = 'K', status = {phase = 'P'}} local t = {['Healthy'] = pcall(function() return {[o.kind] = o.status.phase, [o.x.y] = 1} end), ['Degraded'] = true} return (next(t))",
                "Healthy",
            ),
            (
                "local x = {x = 1} local ok = xpcall(function() return {[x.x] = {[x.y.z] = 1}} end, function(e) return e end) local u = {[1 .. ''] = 1, b = 2} local r = '' for k in pairs(u) do r = r .. k end return r",
                "1b",
            ),
            (
                "local co = coroutine.wrap(function() return {['Healthy'] = coroutine.yield(), ['Degraded'] = true} end) co() local u = {['x'] = co(1)} return (next(u.x))",
                "Healthy",
            ),
            (
                "local t = {1, 2} local n = 0 for k in pairs(t) do n = n + 1 if k == 1 then t[3] = 3 end end return n",
                "3",
            ),
            (
                "local t = {} local r = '' for i = 1, 3 do t[i] = i end for k in pairs(t) do if k < 6 then t[k + 3] = k end r = r .. k end return r",
                "12345678",
            ),
            (
                "local t = setmetatable({}, nil) t.b = 1 t.a = 2 t.c = 3 t.d = 4 t.e = 5 local r = '' for k in pairs(t) do r = r .. k end return r",
                "bacde",
            ),
        ];
        for (body, want) in cases {
            let src = format!(
                "local r = (function() {body} end)() return {{status = 'Healthy', message = tostring(r)}}"
            );
            let got = eval_with(&src, &json!({}), true).unwrap_or_else(|e| panic!("{body}: {e}"));
            assert_eq!(got.message, want, "{body}");
        }
    }

    /// The tracking is invisible: no metatable shows, a script's own metatable works, and the
    /// errors of pairs, next and rawset are gopher's (auxlib.go TypeError, CheckAny; rawset
    /// returns nothing).
    #[test]
    fn invisible_and_errors_as_gopher() {
        assert_eq!(msg("tostring(getmetatable({}))", false), "nil");
        assert_eq!(msg("tostring(debug.getmetatable({}))", true), "nil");
        assert_eq!(
            msg(
                "tostring(setmetatable({}, {__index = function() return 'v' end}).x)",
                false
            ),
            "v"
        );
        assert_eq!(msg("tostring(select('#', rawset({}, 'a', 1)))", false), "0");
        for (src, want) in [
            (
                "pairs(nil)",
                "<string>:1: bad argument #1 to pairs (table expected, got nil)",
            ),
            (
                "pairs()",
                "<string>:1: bad argument #1 to pairs (table expected, got nil)",
            ),
            (
                "next('s')",
                "<string>:1: bad argument #1 to next (table expected, got string)",
            ),
            (
                "rawset(nil, 1, 2)",
                "<string>:1: bad argument #1 to rawset (table expected, got nil)",
            ),
            (
                "rawset({}, 1)",
                "<string>:1: bad argument #3 to rawset (value expected)",
            ),
        ] {
            let e = eval(&format!("local x = {src} return {{status = 'Healthy'}}")).unwrap_err();
            assert_eq!(e, want, "{src}");
        }
    }
}
