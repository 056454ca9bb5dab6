//! Compiling a health script once: the gopher-lua-compatible rewrite ([`crate::argo::gopher`])
//! and LuaJIT bytecode, as argo-cd `util/lua/lua.go` loads a script with gopher-lua's
//! `LState.LoadString` (and caches it, argo-cd #28278).

use super::evaluate::gopher_wording;
use crate::argo::gopher;
use mlua::Lua;

use gopher::{CONCAT_FN, LEN_FN};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The default bound on a health script's source, in bytes: 1 MiB, the most a ConfigMap such as
/// argocd-cm can hold (Kubernetes `pkg/apis/core/validation` `ValidateConfigMap`: data and
/// binaryData together at most `core.MaxSecretSize`), so no script Argo CD can read is refused.
pub const DEFAULT_MAX_SCRIPT_BYTES: usize = 1 << 20;

static MAX_SCRIPT_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_SCRIPT_BYTES);

/// Sets the bound [`Script::compile`] checks (the `--max-script-bytes` flag), for the process.
pub fn set_max_script_bytes(bytes: usize) {
    MAX_SCRIPT_BYTES.store(bytes, Ordering::Relaxed);
}

/// Why a script of `source` is refused by the bound on its size, or None when it is within it.
/// The text gives the size, the bound and the flag that raises it. Loading a script's compiled
/// form costs time no deadline can interrupt (a table constructor of 2,000,000 keys takes
/// seconds per evaluation), so a script is bounded by its size before it is compiled.
pub fn oversized(source: &str) -> Option<String> {
    let max = MAX_SCRIPT_BYTES.load(Ordering::Relaxed);
    (source.len() > max).then(|| {
        format!(
            "the health script is {} bytes, over the bound of {max} (--max-script-bytes; a \
             ConfigMap such as argocd-cm holds at most 1 MiB)",
            source.len()
        )
    })
}

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
    /// own text for a limit gopher does not have; a script over the size bound is refused
    /// before it is compiled ([`oversized`]).
    pub fn compile(src: &str) -> Result<Script, String> {
        if let Some(why) = oversized(src) {
            return Err(why);
        }
        let rewritten = gopher::rewrite(src, CONCAT_FN, LEN_FN).map_err(|e| e.to_string())?;
        // Same line: line numbers of the script are kept.
        let source = format!("{}{rewritten}", header());
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Script {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            bytecode: to_bytecode(&source, "=<string>")?.into(),
        })
    }
}

/// The header every compiled chunk starts with: the functions the rewritten source calls, in
/// [`gopher::ROUTED`] order, which the prelude passes in that order (`run` for the script,
/// `loadstring` for a chunk built at run time, in `prelude/env.lua`), and the function the
/// rewrite wraps a lone returned call in.
fn header() -> String {
    let routed = gopher::ROUTED.join(", ");
    let keep = gopher::KEEP_FN;
    format!("local {routed} = ...; local function {keep}(...) return ... end; ")
}

/// Compiles a chunk a script builds at run time (gopher baselib.go `baseLoadString`/`baseLoad`,
/// which compile it as the script itself is compiled): through the same rewrite as
/// [`Script::compile`], so that `..`, `#`, arithmetic and table key order behave in it as in the
/// script, and with gopher's syntax error text for the chunk's name (`name line:1(column:8)
/// near '+':   syntax error\n`). Returns a function that takes the header's functions and
/// returns the chunk's function, or the error text; the chunk's positions read `name:LINE:`.
pub(super) fn compile_chunk(
    lua: &Lua,
    src: &[u8],
    name: &str,
) -> mlua::Result<Result<mlua::Function, String>> {
    let rewritten = match gopher::rewrite_bytes(src, CONCAT_FN, LEN_FN) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e.text(name))),
    };
    // Same line: line numbers of the chunk are kept; the chunk's own varargs are the inner
    // function's.
    let mut source = header().into_bytes();
    source.extend_from_slice(b"return function(...) ");
    source.extend_from_slice(&rewritten);
    source.extend_from_slice(b"\nend");
    match lua
        .load(&source[..])
        .set_name(format!("={name}"))
        .set_mode(mlua::chunk::ChunkMode::Text)
        .into_function()
    {
        Ok(f) => Ok(Ok(f)),
        Err(mlua::Error::SyntaxError { message, .. }) => Ok(Err(
            compile_error(&message).unwrap_or_else(|| gopher_wording(&message))
        )),
        Err(e) => Err(e),
    }
}

/// The errors gopher-lua's compiler raises (compile.go `raiseCompileError`, `CompileError.Error`:
/// `compile error near line(L) CHUNK: MESSAGE`) for LuaJIT's report of the same mistake, where
/// both name the same line: `...` outside a vararg function. `None` for any other text.
fn compile_error(message: &str) -> Option<String> {
    const VARARG: &str = "cannot use '...' outside a vararg function";
    let rest = message.strip_suffix(" near '...'")?.strip_suffix(VARARG)?;
    let rest = rest.strip_suffix(": ")?;
    let (chunk, line) = rest.rsplit_once(':')?;
    let line: u64 = line.parse().ok()?;
    Some(format!("compile error near line({line}) {chunk}: {VARARG}"))
}

/// Compiles Lua source to LuaJIT bytecode (with line information) in a scratch state.
pub(super) fn to_bytecode(source: &str, name: &str) -> Result<Vec<u8>, String> {
    let lua = Lua::new();
    lua.load(source)
        .set_name(name)
        .into_function()
        .map(|f| f.dump(false))
        .map_err(|e| match &e {
            mlua::Error::SyntaxError { message, .. } => {
                compile_error(message).unwrap_or_else(|| gopher_wording(&e.to_string()))
            }
            _ => gopher_wording(&e.to_string()),
        })
}

#[cfg(test)]
mod tests {
    //! Every expected value here comes from argo-cd `util/lua/lua.go` (at 37ee0097) and gopher-lua
    //! v1.1.2, measured on Argo's own VM setup; each test names the upstream file it follows
    //! (docs/upstream.md, "Argo CD health" and "gopher-lua").
    use super::{oversized, Script, DEFAULT_MAX_SCRIPT_BYTES};
    use crate::argo::lua::testing::{eval, eval_with};
    use serde_json::json;

    /// gopher-lua `parse/parser.go.y`: `goto` parses and runs (9 scripts of argo-cd's
    /// `resource_customizations/` need it).
    #[test]
    fn goto_continue() {
        let src = "local n = 0 for i = 1, 5 do if i % 2 == 0 then goto continue end n = n + i ::continue:: end return {status = 'Healthy', message = tostring(n)}";
        assert_eq!(eval_with(src, &json!({}), true).unwrap().message, "9");
    }

    /// What gopher-lua v1.1.2's compiler and VM make of statements LuaJIT runs differently
    /// (compile.go compileAssignStmt, compileFunctionExpr with CompatVarArg; vm.go
    /// OP_FORPREP/OP_FORLOOP), as gopher-lua gave them (tests/fixtures/
    /// lua_gopher_differential.txt).
    #[test]
    fn statements_run_as_gopher_compiles_them() {
        for (body, want) in [
            ("local a, b = 1, 2 a, b = b, a return a .. b", "22"),
            (
                "local a, b, c = 1, 2, 3 a, b, c = b, c, a return a .. b .. c",
                "232",
            ),
            (
                "local a, b = 1, 2 local t = {} t.x, a = a, b return a .. t.x",
                "22",
            ),
            ("a, b = 1, 2 a, b = b, a return a .. b", "21"),
            (
                "local t = {1, 2} t[1], t[2] = t[2], t[1] return t[1] .. t[2]",
                "21",
            ),
            ("local a = 1 a, a = 2, 3 return a", "3"),
            (
                "local function f(...) return arg.n .. #arg end return f(1, nil, 3)",
                "33",
            ),
            (
                "local function f(...) local x = ... return type(arg) end return f(1)",
                "nil",
            ),
            (
                "local arg = 'outer' local function f(...) return arg end return type(f(1))",
                "table",
            ),
            (
                "local r = 0 for i = 3, 1, 0 do r = r + 1 if r > 5 then break end end return r",
                "6",
            ),
            (
                "for i = 1, 3, 0 do return 'zero step' end return 'none'",
                "none",
            ),
            (
                "local f = loadstring('local a, b = 1, 2 a, b = b, a return a .. b') return f()",
                "22",
            ),
            ("return 1e17 % 3", "1"),
        ] {
            let src = format!(
                "local r = (function() {body} end)() return {{status = 'Healthy', message = tostring(r)}}"
            );
            assert_eq!(eval(&src).unwrap().message, want, "{body}");
        }
        for (src, want) in [
            (
                "for i = 'a', 3 do end",
                "<string>:1: for statement init must be a number",
            ),
            (
                "for i = 1, 3, {} do end",
                "<string>:1: for statement step must be a number",
            ),
            (
                "for i = 1, '3' do end",
                "<string>:1: for statement limit must be a number",
            ),
            (
                "local function f() return ... end",
                "compile error near line(1) <string>: cannot use '...' outside a vararg function",
            ),
        ] {
            assert_eq!(eval(src).unwrap_err(), want, "{src}");
        }
    }

    /// gopher-lua's parser message for a syntax error (`parse/lexer.go`, as argo-cd's
    /// `ExecuteHealthLua` returns it).
    #[test]
    fn syntax_error_text() {
        let e = eval("return {status = = 1}").unwrap_err();
        assert!(e.starts_with("<string> line:1(column:"), "{e}");
        assert!(e.contains("near '='"), "{e}");
    }

    /// The bound is on the source's bytes: at it a script compiles, one byte over it is refused
    /// with the size, the bound and the flag. (The bound is per process; this test leaves it at
    /// the default, which every other test expects.)
    #[test]
    fn a_script_over_the_bound_is_refused_before_it_is_compiled() {
        // A return, then a comment line of dashes up to the bound.
        let head = "return {status = 'Healthy'}\n";
        let at = format!(
            "{head}{}",
            "-".repeat(DEFAULT_MAX_SCRIPT_BYTES - head.len())
        );
        assert_eq!(at.len(), DEFAULT_MAX_SCRIPT_BYTES);
        assert_eq!(oversized(&at), None);
        assert!(Script::compile(&at).is_ok());
        let over = format!("{at}-");
        let why = Script::compile(&over).unwrap_err();
        assert_eq!(
            why,
            format!(
                "the health script is {} bytes, over the bound of {DEFAULT_MAX_SCRIPT_BYTES} \
                 (--max-script-bytes; a ConfigMap such as argocd-cm holds at most 1 MiB)",
                DEFAULT_MAX_SCRIPT_BYTES + 1
            )
        );
    }
}
