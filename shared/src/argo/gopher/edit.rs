//! The source edits of the front end and [`rewrite`], which applies them.
//!
//! Besides routing every binary `..` chain and every unary `#` through functions the sandbox
//! supplies, the rewriter makes a few token-level edits so that LuaJIT reads the script the way
//! gopher-lua does (each only where the two would otherwise differ, so ordinary scripts are
//! untouched):
//!
//! * string escapes gopher-lua does not know (`"\d"`, `"\."`, and also `\x`, `\z`, `\u`, which
//!   LuaJIT would decode) lose their backslash, since gopher-lua keeps just the character; decimal
//!   escapes above 255 (`"\300"`) are reduced modulo 256 as gopher-lua's `byte(val)` does;
//! * empty statements (`;;`, a `;` opening a block) and repeated table separators (`{1,,2}`), which
//!   gopher-lua's grammar accepts and LuaJIT rejects, become a space;
//! * a numeral whose value gopher-lua computes differently from LuaJIT (gopher-lua's `0010` is
//!   octal 8, `1e` and `.5.3` are NaN, `0xFFFFFFFFFFFFFFFF` is NaN) is replaced by gopher-lua's
//!   value (`8`, `(0/0)`); a numeral glued to a following letter or `.` (`for i=1,10do`), which
//!   gopher-lua splits and LuaJIT reads as one malformed number, gets a space after it;
//! * a call whose `(` starts on a later line than the callee ends (`f\n(x)`), which gopher-lua
//!   accepts and LuaJIT rejects as ambiguous, gets its callee parenthesised so the `)` sits on the
//!   line of the `(`: `(f\n)(x)` (prefixed by `;` when the callee starts a statement right after
//!   another statement). A method call split the same way (`a:m\n(x)`) cannot be fixed without
//!   moving the newline and is left for LuaJIT to reject;
//! * a parenthesised call used as a statement (`(f())`), which gopher-lua accepts and LuaJIT
//!   rejects, loses its parentheses (they become spaces);
//! * a statement that starts with `(` right after one that now ends with an inserted `)` (a
//!   rewritten `..` or `#`, a replaced numeral) gets a `;` in front, or LuaJIT would call the `)`.
//!
//! Every edit stays within a line: the output has the same newline characters at the same line
//! numbers as the input, so runtime errors (`<string>:LINE:`) point at the same lines.

use super::error::SyntaxError;
use super::parser::Parser;

/// Rewrites `src` so that every binary `..` chain and every unary `#` goes through functions the
/// sandbox supplies. Returns the new source, or the syntax error gopher-lua would report.
///
/// * A maximal concat chain `e1 .. e2 .. en` becomes `CONCAT((e1), (e2), (en))` with `CONCAT` =
///   `concat_fn`; each operand is parenthesised, so a call or `...` yields one value as it does as
///   an operand. Spaces (not newlines or comments) before each `..` are dropped: `a .. b` becomes
///   `CONCAT((a), (b))`, `a..b` becomes `CONCAT((a),(b))`.
/// * A unary `#e` becomes `LEN((e))` with `LEN` = `len_fn`, `e` being the operand as Lua's
///   precedence delimits it (`#t ^ 2` is `LEN((t ^ 2))`, `#t + 1` is `LEN((t)) + 1`).
/// * Nested chains and lengths (inside operands, call arguments, table constructors, function
///   bodies) are rewritten too; strings and comments are copied verbatim.
/// * A space is put before an inserted `concat_fn`/`len_fn` that would otherwise join the
///   preceding name or keyword (`x = not#t` becomes `x = not LEN((t))`).
/// * When a rewritten chain or length is the only value of a `return`, it is parenthesised
///   (`return #t` becomes `return (LEN((t)))`): LuaJIT would make `return LEN((t))` a tail call,
///   after which an error raised in `len_fn` at level 2 could not name the script's line.
/// * Arithmetic is routed the same way (`ARITH_FNS`), table constructors through the function
///   that keeps gopher's key order (`constructor`), and the statements gopher's compiler treats
///   differently are rewritten (`compat`: multiple assignment to locals, numeric `for`, the `arg`
///   of vararg functions).
/// * No newline is added or removed. Source without any of these comes back byte-identical
///   unless it needs one of the compatibility edits listed in the module documentation.
///
/// `concat_fn` and `len_fn` are inserted as given; they should be Lua names or dotted names.
///
/// Errors are those of gopher-lua v1.1.2's `LState.LoadString` parse step (see [`SyntaxError`]).
/// Not reported, because gopher-lua finds them in its compiler, not its parser: `break` outside a
/// loop, `goto` without a visible label, duplicate labels, `...` outside a vararg function, too
/// many locals or constants (LuaJIT reports its own versions of most of them). Nesting deeper than
/// 200 levels is rejected with [`TOO_MANY_LEVELS`](super::TOO_MANY_LEVELS), which gopher-lua would
/// accept.
pub fn rewrite(src: &str, concat_fn: &str, len_fn: &str) -> Result<String, SyntaxError> {
    let out = rewrite_bytes(src.as_bytes(), concat_fn, len_fn)?;
    // Only ASCII text is inserted, and only at token boundaries or ASCII bytes of the source are
    // deleted, so the output of UTF-8 source is UTF-8; the fallback cannot be taken.
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// [`rewrite`] of source that need not be UTF-8 (a chunk a script compiles at run time with
/// `loadstring`, whose string literals may hold any byte): the bytes of the source are kept as
/// they are.
pub fn rewrite_bytes(src: &[u8], concat_fn: &str, len_fn: &str) -> Result<Vec<u8>, SyntaxError> {
    let mut p = Parser::new(src)?;
    if p.chunk().is_err() {
        let fallback = p.error("syntax error");
        return Err(p.failure.take().unwrap_or(fallback));
    }
    let mut edits = p.edits;
    edits.inserts.append(&mut p.sc.fix_inserts);
    edits.deletes.append(&mut p.sc.fix_deletes);
    Ok(render(src, edits, &p.sc.numeral_ends, concat_fn, len_fn))
}

/// What an insertion writes.
#[derive(Debug, Clone)]
pub(super) enum Text {
    /// `concat_fn` followed by `((`.
    ConcatOpen,
    /// `len_fn` followed by `((`.
    LenOpen,
    Static(&'static str),
    Owned(String),
}

/// Insertion classes at one position, in output order: closers of constructs that end there,
/// separators, then openers of constructs that start there.
pub(super) const CLOSE: u8 = 0;
pub(super) const SEP: u8 = 1;
pub(super) const OPEN: u8 = 2;

#[derive(Debug, Clone)]
pub(super) struct Insert {
    pub(super) pos: usize,
    pub(super) class: u8,
    /// Nesting key: larger is more deeply nested. Closers are written innermost first, openers
    /// outermost first.
    pub(super) key: u32,
    pub(super) seq: u32,
    pub(super) text: Text,
}

#[derive(Debug, Default)]
pub(super) struct Edits {
    pub(super) inserts: Vec<Insert>,
    /// Byte ranges of the source left out of the output.
    pub(super) deletes: Vec<(usize, usize)>,
    seq: u32,
}

impl Edits {
    pub(super) fn insert(&mut self, pos: usize, class: u8, key: u32, text: Text) {
        self.seq += 1;
        self.inserts.push(Insert {
            pos,
            class,
            key,
            seq: self.seq,
            text,
        });
    }
}

fn is_ident_byte(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric()
}

/// Applies the edits. `numerals` lists `(end, ends_in_e)` of every numeral kept verbatim, so a
/// character LuaJIT would read as part of it can be kept apart by a space.
fn render(
    src: &[u8],
    mut edits: Edits,
    numerals: &[(usize, bool)],
    concat_fn: &str,
    len_fn: &str,
) -> Vec<u8> {
    edits.inserts.sort_by_key(|i| {
        let order = match i.class {
            CLOSE => (u32::MAX - i.key, i.seq),
            SEP => (0, i.seq),
            _ => (i.key, u32::MAX - i.seq),
        };
        (i.pos, i.class, order)
    });
    edits.deletes.sort_unstable();
    let mut out: Vec<u8> = Vec::with_capacity(src.len() + edits.inserts.len() * 8);
    let mut ins = edits.inserts.iter().peekable();
    let mut dels = edits.deletes.iter().peekable();
    let mut nums = numerals.iter().peekable();
    // Set right after a kept numeral: `Some(ends_in_e)`.
    let mut glue: Option<bool> = None;
    let emit = |out: &mut Vec<u8>, glue: &mut Option<bool>, text: &[u8], inserted: bool| {
        let Some(&first) = text.first() else { return };
        if let Some(ends_in_e) = glue.take() {
            let joins = is_ident_byte(first)
                || first == b'.'
                || first >= 0x80
                || (ends_in_e && (first == b'+' || first == b'-'));
            if joins {
                out.push(b' ');
            }
        }
        if inserted && is_ident_byte(first) && out.last().is_some_and(|&b| is_ident_byte(b)) {
            out.push(b' ');
        }
        out.extend_from_slice(text);
    };
    for pos in 0..=src.len() {
        while let Some(&&(end, e)) = nums.peek() {
            if end > pos {
                break;
            }
            if end == pos {
                glue = Some(e);
            }
            nums.next();
        }
        while let Some(i) = ins.peek() {
            if i.pos != pos {
                break;
            }
            match &i.text {
                Text::ConcatOpen => {
                    let mut t = concat_fn.as_bytes().to_vec();
                    t.extend_from_slice(b"((");
                    emit(&mut out, &mut glue, &t, true);
                }
                Text::LenOpen => {
                    let mut t = len_fn.as_bytes().to_vec();
                    t.extend_from_slice(b"((");
                    emit(&mut out, &mut glue, &t, true);
                }
                Text::Static(s) => emit(&mut out, &mut glue, s.as_bytes(), true),
                Text::Owned(s) => emit(&mut out, &mut glue, s.as_bytes(), true),
            }
            ins.next();
        }
        if pos == src.len() {
            break;
        }
        while dels.peek().is_some_and(|&&(_, end)| end <= pos) {
            dels.next();
        }
        let deleted = dels.peek().is_some_and(|&&(start, _)| start <= pos);
        if !deleted {
            emit(&mut out, &mut glue, &src[pos..pos + 1], false);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::argo::gopher::testing::{rw, same_lines};

    #[test]
    fn custom_function_names() {
        assert_eq!(
            rewrite("return #a .. b", "__pacto_concat", "__pacto_len").unwrap(),
            "return (__pacto_concat((__pacto_len((a))), (b)))"
        );
    }

    #[test]
    fn strings_and_comments_are_verbatim() {
        let src = "x = \"a..b#c\" -- c .. d # e\n--[[ .. # ]] y = '..#' --[==[ # ]==]\nz = [[..]]";
        assert_eq!(rw(src), src);
        assert_eq!(
            rw("x = [[ .. ]] .. [==[ # ]==] -- .. #"),
            "x = CONCAT(([[ .. ]]), ([==[ # ]==])) -- .. #"
        );
        assert_eq!(
            rw("x = \"a\\\"..\" .. '#\\''"),
            "x = CONCAT((\"a\\\"..\"), ('#\\''))"
        );
    }

    #[test]
    fn newlines_stay_on_their_lines() {
        let src = "local msg = \"a\" ..\n  obj.x .. -- comment\n  \"b\"\nreturn #msg\n";
        let want =
            "local msg = CONCAT((\"a\"),\n  (obj.x), -- comment\n  (\"b\"))\nreturn (LEN((msg)))\n";
        let got = rw(src);
        assert_eq!(got, want);
        same_lines(src, &got);
        let src = "x = #\r\nt .. --[[\n..]] y\r\n\r\nz = a\n..\nb";
        let got = rw(src);
        assert_eq!(
            got,
            "x = CONCAT((LEN((\r\nt))), --[[\n..]] (y))\r\n\r\nz = CONCAT((a)\n,\n(b))"
        );
        same_lines(src, &got);
        for (a, b) in src.lines().zip(got.lines()) {
            assert_eq!(a.is_empty(), b.is_empty());
        }
    }

    #[test]
    fn source_without_operators_is_identical_but_for_constructors() {
        let src = "-- health check\nlocal hs = {}\nif obj.status ~= nil then\n  for i, c in ipairs(obj.status.conditions or {}) do\n    if c.type == \"Ready\" and c.status == \"False\" then\n      hs.status = \"Degraded\"; hs.message = c.message\n      return hs\n    end\n  end\nend\nhs.status = 'Progressing'\nhs.message = [[Waiting]]\nreturn hs\n";
        assert_eq!(rw(src), src.replace("{}", "__pacto_tab({})"));
        let plain = "local hs = obj.status\nif hs ~= nil then return hs end\n";
        assert_eq!(rw(plain), plain);
    }

    #[test]
    fn luajit_compatibility_edits() {
        let cases = [
            // Escapes gopher-lua does not know keep just the character.
            (r#"x = "\d+\.\x41""#, r#"x = "d+.x41""#),
            // Decimal escapes above 255 wrap as gopher-lua's byte(val).
            (r#"x = "\300\65""#, r#"x = "\044\65""#),
            // Empty statements and repeated separators.
            ("; x = 1;; y = 2", "  x = 1;  y = 2"),
            ("x = {1,,2;}", "x = __pacto_tab({1, 2;})"),
            // Numerals gopher-lua splits or values differently.
            (
                "for i=1,10do end",
                "for i=__pacto_for(1,(10)), __pacto_forlimit(), __pacto_forstep()do end",
            ),
            ("for i=1,10 .. 0do end", "for i=__pacto_for(1,(CONCAT((10), (0)))), __pacto_forlimit(), __pacto_forstep()do end"),
            ("x = 0010", "x = 8"),
            ("x = 1e", "x = (0/0)"),
            ("x = 0x10", "x = 0x10"),
            // A call whose `(` is on a later line than its callee.
            ("x = f\n(1)", "x = (f\n)(1)"),
            ("y = 1\nf\n(1)", "y = 1\n;(f\n)(1)"),
            // A parenthesised call as a statement.
            ("(f())", " f() "),
            ("x = 1 ((f()))", "x = 1   f()  "),
            // An inserted `)` followed by a statement starting with `(`.
            ("x = a .. 'b'\n(f)()", "x = CONCAT((a), ('b'))\n;(f)()"),
            // ... but `b\n(f)` is a call in gopher-lua, whatever the line break.
            ("x = a .. b\n(f)()", "x = CONCAT((a), ((b\n)(f)()))"),
        ];
        for (src, want) in cases {
            let got = rw(src);
            assert_eq!(got, want, "{src:?}");
            same_lines(src, &got);
        }
    }

    /// Parses every Argo CD built-in health script of an argo-cd checkout. Opt-in: run with
    /// `ARGO_CD_RESOURCE_CUSTOMIZATIONS=<argo-cd>/resource_customizations cargo test -p
    /// pacto-gates -- --ignored argo_cd_health_scripts` (docs/health.md says where to get it).
    #[test]
    #[ignore = "needs an argo-cd checkout: set ARGO_CD_RESOURCE_CUSTOMIZATIONS and pass --ignored"]
    fn argo_cd_health_scripts() {
        let root = std::env::var_os("ARGO_CD_RESOURCE_CUSTOMIZATIONS").expect(
            "ARGO_CD_RESOURCE_CUSTOMIZATIONS must name argo-cd's resource_customizations directory",
        );
        let root = std::path::Path::new(&root);
        assert!(root.is_dir(), "{}: not a directory", root.display());
        let scripts: Vec<std::path::PathBuf> = crate::k8s::walk::walk(root)
            .files
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n == "health.lua"))
            .collect();
        assert!(!scripts.is_empty());
        let mut rewritten = 0;
        for path in &scripts {
            let src = std::fs::read_to_string(path).unwrap();
            let out = rewrite(&src, "__pacto_concat", "__pacto_len")
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            same_lines(&src, &out);
            if out != src {
                rewritten += 1;
            }
        }
        assert!(rewritten > 0);
    }
}
