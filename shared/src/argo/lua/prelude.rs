//! The prelude: the Lua files (`prelude/*.lua`) that make a fresh LuaJIT state look and fail the
//! way Argo CD's gopher-lua v1.1.2 state does (argo-cd `util/lua/lua.go`, gopher-lua `state.go`,
//! `vm.go` and its libraries), one file per thing emulated. They run once per state, in this
//! order, each called with one table, the prelude's namespace `P`, which holds the host's
//! functions ([`crate::argo::lua`]'s `sandbox` puts them there, by name) and what the files
//! before it added:
//!
//! 1. `order.lua`: gopher's array part and key order: `P.order` with `len`, gopher's `#` of a
//!    table (`objLen`, the one copy of that rule: the host's `table.sort` and `channel.select`
//!    call it through [`table_len`]), and the constructor, `next`, `pairs` and `rawset` that
//!    keep gopher's order. First, because everything else measures tables with it.
//! 2. `auxlib.lua`: gopher's error reporting and argument checks (`RaiseError` at the script's
//!    line, `ArgError`, `TypeError`, `CheckTable`, `OptInt`), and the text a script's `pcall`
//!    gets for an error.
//! 3. `vm.lua`: the operators and statements (`#`, `..`, arithmetic, errors on values without a
//!    metatable, numeric `for`, vararg `arg`) and `P.routed`, the functions the source
//!    rewriter routes to, by the names [`crate::argo::gopher::ROUTED`] lists.
//! 4. `baselib.lua`: the base library, `P.base`.
//! 5. `tablelib.lua`: the table library, `P.tablelib`.
//! 6. `mathlib.lua`, 7. `coroutinelib.lua`, 8. `stringlib.lua`, 9. `oslib.lua`: builders of the
//!    libraries only open mode has, from LuaJIT's (`P.mathlib()`, ...), which `refused.lua`
//!    calls in open mode.
//! 10. `env.lua`: one evaluation's globals (`package` and `require`, `loadstring`, `load`,
//!     `getfenv`, `setfenv`) and `P.run(chunk, obj)`, what the host calls per evaluation.
//! 11. `refused.lua`: everything a script is refused, in each mode and in both: which
//!     libraries an evaluation gets (`P.restrict`, applied to each evaluation's globals), the
//!     functions that would reach outside the process, and the state's own globals stripped.
//!     Last, because the files before it take what they need from those globals when they run.
//!
//! A file reads what it uses from `P` and the state's globals into locals when it runs, so no
//! function of the prelude looks a name up in its environment when called, and a script that
//! changes its own environment changes nothing here. Two names are read from `P` when called
//! instead, because a later file sets them: `P.run` (by `base.error`, which stops its search of
//! the stack there) and `P.restrict` (by `env.lua`'s `new_env`). The host adds `routed_names`
//! ([`crate::argo::gopher::ROUTED`]), the order in which `env.lua` hands `P.routed`'s functions
//! to a compiled chunk, whose header declares them in that order (`script.rs`); after the files
//! ran, the sandbox checks with [`crate::argo::gopher::check_routes`] that `P.routed` defines
//! exactly those names.
//!
//! Every file is compiled under the chunk name `=prelude`, so that error positions skip its
//! frames as gopher's skip its Go functions (see `sandbox::where_`, `hook::position`, `gopanic`,
//! and `base.error` in `baselib.lua`).

use super::script::to_bytecode;
use mlua::{Function, Lua, Table};

/// The prelude's files, in the order they run.
const FILES: [(&str, &str); 11] = [
    ("order.lua", include_str!("prelude/order.lua")),
    ("auxlib.lua", include_str!("prelude/auxlib.lua")),
    ("vm.lua", include_str!("prelude/vm.lua")),
    ("baselib.lua", include_str!("prelude/baselib.lua")),
    ("tablelib.lua", include_str!("prelude/tablelib.lua")),
    ("mathlib.lua", include_str!("prelude/mathlib.lua")),
    ("coroutinelib.lua", include_str!("prelude/coroutinelib.lua")),
    ("stringlib.lua", include_str!("prelude/stringlib.lua")),
    ("oslib.lua", include_str!("prelude/oslib.lua")),
    ("env.lua", include_str!("prelude/env.lua")),
    ("refused.lua", include_str!("prelude/refused.lua")),
];

/// Where the state keeps `P.order.len` for the host's functions (its registry, which no script
/// reaches).
const LEN_KEY: &str = "pacto.gopher_len";

/// The files' bytecode, compiled on first use.
fn bytecode() -> &'static [Vec<u8>] {
    static BYTECODE: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    BYTECODE.get_or_init(|| {
        FILES
            .iter()
            .map(|(name, source)| {
                to_bytecode(source, "=prelude")
                    .unwrap_or_else(|e| panic!("prelude/{name} compiles: {e}"))
            })
            .collect()
    })
}

/// What the prelude gives the host.
pub(super) struct Prelude {
    /// `P.run(chunk, obj)`: one evaluation in fresh globals.
    pub(super) run: Function,
    /// The names `P.routed` defines, for [`crate::argo::gopher::check_routes`].
    pub(super) routed: Vec<String>,
}

/// Runs the prelude's files in order in `lua`, with `p` holding the host's functions. Errors:
/// whatever a file raises (the host's namespace lacking a function it reads).
pub(super) fn load(lua: &Lua, p: &Table) -> mlua::Result<Prelude> {
    for code in bytecode() {
        lua.load(&code[..])
            .set_mode(mlua::chunk::ChunkMode::Binary)
            .call::<()>(p)?;
    }
    let order: Table = p.get("order")?;
    lua.set_named_registry_value(LEN_KEY, order.get::<Function>("len")?)?;
    let mut routed = Vec::new();
    for pair in p.get::<Table>("routed")?.pairs::<String, mlua::Value>() {
        routed.push(pair?.0);
    }
    Ok(Prelude {
        run: p.get("run")?,
        routed,
    })
}

/// gopher's `#` of a table (`order.lua`'s `len`): the highest key of its array part that holds
/// a value. Errors: the prelude has not run in this state.
pub(super) fn table_len(lua: &Lua, t: &Table) -> mlua::Result<usize> {
    let len: Function = lua.named_registry_value(LEN_KEY)?;
    let n: f64 = len.call(t)?;
    Ok(n as usize)
}

#[cfg(test)]
mod tests {
    //! Expected values follow gopher-lua v1.1.2 table.go `Len` (the highest index of the array
    //! part, which `RawSetInt` pads with nils), tablelib.go and channellib.go `channelSelect`
    //! (the case's function is its element at that length); those of `#`, `unpack` and
    //! `table.sort` are as gopher-lua gave them in tests/fixtures/lua_gopher_differential.txt.
    use crate::argo::lua::testing::{eval, msg};

    /// The one length rule, as `#`, the table library, `unpack`, `table.sort` and
    /// `channel.select` read it.
    #[test]
    fn one_length_everywhere() {
        for (expr, want) in [
            ("tostring(#{1, nil, 3})", "3"),
            (
                "tostring(#{[2] = 'b', [4.5] = 'x', [0] = 'z', [-1] = 'n'})",
                "2",
            ),
            ("tostring(table.getn({1, nil, 3}))", "3"),
            ("tostring(select('#', unpack({1, nil, 3})))", "3"),
        ] {
            assert_eq!(msg(expr, false), want, "{expr}");
        }
        // table.sort sorts 1..#t: the hole is a nil compared.
        assert_eq!(
            eval("local t = {3, nil, 1} table.sort(t) return {status = 'Healthy'}").unwrap_err(),
            "<string>:1: attempt to compare nil with number"
        );
        // channel.select calls the function at the case's length, past a hole.
        assert_eq!(
            msg(
                "(function() local r = 'none' local ch = channel.make(1) ch:send(7) channel.select({'|<-', ch, nil, function(ok, v) r = tostring(v) end}) return r end)()",
                true
            ),
            "7"
        );
    }
}
