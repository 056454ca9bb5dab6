//! Compiling a health script once: the gopher-lua-compatible rewrite ([`crate::argo::gopher`])
//! and LuaJIT bytecode, as argo-cd `util/lua/lua.go` loads a script with gopher-lua's
//! `LState.LoadString` (and caches it, argo-cd #28278).

use super::evaluate::gopher_wording;
use crate::argo::gopher;
use mlua::Lua;

const CONCAT_FN: &str = "__pacto_concat";
const LEN_FN: &str = "__pacto_len";

/// A health script checked, rewritten and compiled to LuaJIT bytecode once, evaluated many
/// times (Argo CD caches compiled scripts too, argo-cd #28278).
#[derive(Debug, Clone)]
pub struct Script {
    /// Process-unique, so that a state can keep the loaded function of each script.
    pub(super) id: u64,
    pub(super) bytecode: std::sync::Arc<[u8]>,
}

impl Script {
    /// Parses, rewrites and compiles a script. Errors: the syntax error text gopher-lua's
    /// `LoadString` gives (`<string> line:L(column:C) near 'T':   syntax error\n`), or LuaJIT's
    /// own text for a limit gopher does not have.
    pub fn compile(src: &str) -> Result<Script, String> {
        let rewritten = gopher::rewrite(src, CONCAT_FN, LEN_FN).map_err(|e| e.to_string())?;
        // Same line: line numbers of the script are kept.
        let keep = gopher::KEEP_FN;
        // The prelude's `run` passes the arithmetic functions in ARITH_FNS order, then the table
        // constructor's and key's functions.
        let arith: Vec<&str> = gopher::ARITH_FNS.iter().map(|(_, name)| *name).collect();
        let arith = arith.join(", ");
        let (tab, key) = (gopher::TABLE_FN, gopher::KEY_FN);
        let source = format!(
            "local {CONCAT_FN}, {LEN_FN}, {arith}, {tab}, {key} = ...; local function {keep}(...) return ... end; {rewritten}"
        );
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Script {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            bytecode: to_bytecode(&source, "=<string>")?.into(),
        })
    }
}

/// Compiles Lua source to LuaJIT bytecode (with line information) in a scratch state.
pub(super) fn to_bytecode(source: &str, name: &str) -> Result<Vec<u8>, String> {
    let lua = Lua::new();
    lua.load(source)
        .set_name(name)
        .into_function()
        .map(|f| f.dump(false))
        .map_err(|e| gopher_wording(&e.to_string()))
}

#[cfg(test)]
mod tests {
    //! Every expected value here comes from shared/reference/argo-cd-health.md, which records
    //! argo-cd `util/lua/lua.go` and gopher-lua v1.1.2 behaviour measured on Argo's own VM setup;
    //! the section is named on each test.
    use crate::argo::lua::testing::{eval, eval_with};
    use serde_json::json;

    /// §1.1: `goto` parses and runs (9 built-in scripts need it).
    #[test]
    fn goto_continue() {
        let src = "local n = 0 for i = 1, 5 do if i % 2 == 0 then goto continue end n = n + i ::continue:: end return {status = 'Healthy', message = tostring(n)}";
        assert_eq!(eval_with(src, &json!({}), true).unwrap().message, "9");
    }

    /// gopher-lua's parser message for a syntax error (reference §2.2).
    #[test]
    fn syntax_error_text() {
        let e = eval("return {status = = 1}").unwrap_err();
        assert!(e.starts_with("<string> line:1(column:"), "{e}");
        assert!(e.contains("near '='"), "{e}");
    }
}
