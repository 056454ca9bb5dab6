//! The names the rewritten source calls: the functions the sandbox's prelude supplies for
//! gopher-lua's operators, table constructors and statements, and the one the compiled chunk
//! defines itself. This is their only list. The rewriter emits them, the sandbox's header
//! (`lua/script.rs`) declares [`ROUTED`] in this order as the chunk's locals, and the prelude
//! (`lua/prelude/vm.lua`, its `routed` table) defines a function under each name, which the
//! sandbox checks by name when it prepares a state.

/// `a .. b .. c` becomes `CONCAT_FN((a), (b), (c))`: gopher vm.go `OP_CONCAT` (`stringConcat`),
/// numbers in gopher's format.
pub const CONCAT_FN: &str = "__pacto_concat";
/// `#e` becomes `LEN_FN((e))`: gopher vm.go `OP_LEN` (`objLen`), the highest array index of a
/// table with holes.
pub const LEN_FN: &str = "__pacto_len";
/// The functions arithmetic is routed through, by operator (`u` for unary minus): `a + b`
/// becomes `__pacto_add((a), (b))`, `-a` becomes `__pacto_unm((a))`. gopher-lua converts a
/// string operand with its own `parseNumber` (Go `strconv.ParseInt(s, 0, 64)`, then
/// `ParseFloat`), so `"010" + 0` is 8 where LuaJIT reads 10.
pub const ARITH_FNS: [(u8, &str); 7] = [
    (b'+', "__pacto_add"),
    (b'-', "__pacto_sub"),
    (b'*', "__pacto_mul"),
    (b'/', "__pacto_div"),
    (b'%', "__pacto_mod"),
    (b'^', "__pacto_pow"),
    (b'u', "__pacto_unm"),
];
/// The function every table constructor is routed through (gopher's key order, the sandbox's
/// `prelude/order.lua`).
pub const TABLE_FN: &str = "__pacto_tab";
/// The function the key expression of every `[k] = v` constructor field is routed through.
pub const KEY_FN: &str = "__pacto_key";
/// The function a vararg function's `arg` table is built by: `arg = ARG_FN(...)`.
pub const ARG_FN: &str = "__pacto_arg";
/// The functions a numeric `for` reads its control values through: `for i = FOR(a, b, c),
/// LIMIT(), STEP() do`. `FOR` checks the three values and answers the initial value; `LIMIT` and
/// `STEP` answer the limit and step it decided on, read right after it.
pub const FOR_FNS: [&str; 3] = ["__pacto_for", "__pacto_forlimit", "__pacto_forstep"];

/// Every function the prelude supplies to a compiled chunk, in the order the chunk's header
/// declares them (and the prelude hands them over).
pub const ROUTED: [&str; 15] = [
    CONCAT_FN,
    LEN_FN,
    ARITH_FNS[0].1,
    ARITH_FNS[1].1,
    ARITH_FNS[2].1,
    ARITH_FNS[3].1,
    ARITH_FNS[4].1,
    ARITH_FNS[5].1,
    ARITH_FNS[6].1,
    TABLE_FN,
    KEY_FN,
    ARG_FN,
    FOR_FNS[0],
    FOR_FNS[1],
    FOR_FNS[2],
];

/// The function the rewrite wraps a lone returned call in (`return KEEP(tostring(x))`): it
/// returns all its arguments, and the call it wraps is no tail call. The chunk's header defines
/// it; the prelude has no part in it.
pub const KEEP_FN: &str = "__pacto_keep";

/// Whether the prelude's functions, by name, are exactly [`ROUTED`]: `Err` names each routed
/// function the prelude lacks and each of its functions nothing routes to.
pub fn check_routes<S: AsRef<str>>(prelude: &[S]) -> Result<(), String> {
    let defined: Vec<&str> = prelude.iter().map(AsRef::as_ref).collect();
    let mut problems: Vec<String> = ROUTED
        .iter()
        .filter(|name| !defined.contains(name))
        .map(|name| format!("the rewriter routes to {name}, which the prelude does not define"))
        .collect();
    let mut extra: Vec<&str> = defined
        .iter()
        .copied()
        .filter(|name| !ROUTED.contains(name))
        .collect();
    extra.sort_unstable();
    problems.extend(
        extra.into_iter().map(|name| {
            format!("the prelude defines {name}, which the rewriter does not route to")
        }),
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name once, every routed name in the list, none of them a name a script could mean.
    #[test]
    fn one_list_of_distinct_names() {
        let mut all: Vec<&str> = ROUTED.to_vec();
        all.push(KEEP_FN);
        for name in &all {
            assert!(name.starts_with("__pacto_"), "{name}");
            assert_eq!(all.iter().filter(|n| *n == name).count(), 1, "{name}");
        }
        for (_, name) in ARITH_FNS {
            assert!(ROUTED.contains(&name), "{name}");
        }
        for name in FOR_FNS
            .iter()
            .chain(&[CONCAT_FN, LEN_FN, TABLE_FN, KEY_FN, ARG_FN])
        {
            assert!(ROUTED.contains(name), "{name}");
        }
    }

    /// The check names what is missing on either side.
    #[test]
    fn check_names_each_disagreement() {
        assert_eq!(check_routes(&ROUTED), Ok(()));
        let mut shuffled = ROUTED.to_vec();
        shuffled.reverse();
        assert_eq!(check_routes(&shuffled), Ok(()), "order is no part of it");
        let mut fewer = ROUTED.to_vec();
        fewer.retain(|n| *n != "__pacto_forstep");
        fewer.push("__pacto_idiv");
        assert_eq!(
            check_routes(&fewer),
            Err(
                "the rewriter routes to __pacto_forstep, which the prelude does not define; \
                 the prelude defines __pacto_idiv, which the rewriter does not route to"
                    .to_string()
            )
        );
    }
}
