//! Table constructors in the parser, following gopher-lua v1.1.2 `parse/parser.go.y`
//! (`tableconstructor`, `fieldlist`, `field`): their rewrite through the functions that keep
//! gopher's key order ([`TABLE_FN`], [`KEY_FN`], see the sandbox's `prelude/order.lua`) and the
//! separators LuaJIT does not take.

use super::edit::{Text, CLOSE, OPEN};
use super::parser::{PResult, Parser};
use super::routes::{KEY_FN, TABLE_FN};
use super::token::T;

/// How a table constructor is routed through [`TABLE_FN`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    /// A value: `__pacto_tab({...})`.
    Value,
    /// Call arguments, `f{...}`: `f(__pacto_tab({...}))`.
    CallArgs,
    /// Left as it is.
    No,
}

/// At most this many keyed fields are named as arguments of [`TABLE_FN`]; more are passed as
/// one table (LuaJIT takes about 250 values in a call).
const SPEC_ARGS: usize = 64;
/// Table constructors nested deeper than this are not routed through [`TABLE_FN`] (the key
/// order of those tables is LuaJIT's).
const MAX_ROUTED_TABLES: u32 = 24;

impl Parser<'_> {
    /// `tableconstructor: '{' [fieldlist] '}'`, where `fieldlist` is a field followed by any
    /// sequence of fields and separators in which every field follows a separator.
    ///
    /// The constructor is routed through [`TABLE_FN`] so that the sandbox can keep the order in
    /// which its keys were first set (gopher-lua iterates a table's hash keys in that order):
    /// `{a = 1, [k] = 2, 3}` becomes `__pacto_tab({a = 1, [__pacto_key((k))] = 2, 3}, "a", false)`,
    /// the keyed fields named in source order (`false` standing for the next key recorded by
    /// [`KEY_FN`]); more than [`SPEC_ARGS`] keyed fields are passed as one table instead. A
    /// constructor used as call arguments (`f{...}`) gets parentheses: `f(__pacto_tab({...}))`.
    ///
    /// Constructors nested more than [`MAX_ROUTED_TABLES`] deep are left as they are: each routed
    /// level takes a call's registers, and LuaJIT refuses an expression that needs more than
    /// about 250 ("function or expression too complex"), where gopher-lua has no such limit.
    pub(super) fn table(&mut self, route: Route) -> PResult<()> {
        let route = if self.routed_tables >= MAX_ROUTED_TABLES {
            Route::No
        } else {
            route
        };
        self.enter()?;
        if route != Route::No {
            self.routed_tables += 1;
        }
        let open = self.tok.start;
        let key = self.depth * 4 - 1;
        self.expect(T::Op(b'{'))?;
        let mut spec: Vec<Option<String>> = Vec::new();
        if self.tok.t != T::Op(b'}') {
            loop {
                if let Some(k) = self.field(route != Route::No)? {
                    spec.push(k);
                }
                if !matches!(self.tok.t, T::Op(b',' | b';')) {
                    break;
                }
                self.advance()?;
                while matches!(self.tok.t, T::Op(b',' | b';')) {
                    // LuaJIT takes one separator after a field only.
                    self.blank(self.tok.start);
                    self.advance()?;
                }
                if self.tok.t == T::Op(b'}') {
                    break;
                }
            }
        }
        self.expect(T::Op(b'}'))?;
        if route == Route::No {
            self.leave();
            return Ok(());
        }
        self.routed_tables -= 1;
        let call_args = route == Route::CallArgs;
        let end = self.prev_end;
        let opener = if call_args {
            format!("({TABLE_FN}(")
        } else {
            format!("{TABLE_FN}(")
        };
        self.edits.insert(open, OPEN, key, Text::Owned(opener));
        let names: Vec<String> = spec
            .into_iter()
            .map(|k| match k {
                Some(name) => format!("\"{name}\""),
                None => "false".to_string(),
            })
            .collect();
        let mut closer = String::new();
        if names.len() > SPEC_ARGS {
            closer.push_str(", {");
            closer.push_str(&names.join(", "));
            closer.push('}');
        } else {
            for n in &names {
                closer.push_str(", ");
                closer.push_str(n);
            }
        }
        closer.push(')');
        if call_args {
            closer.push(')');
        }
        self.edits.insert(end, CLOSE, key, Text::Owned(closer));
        self.closed_at = end;
        self.leave();
        Ok(())
    }

    /// `field: Name '=' expr | '[' expr ']' '=' expr | expr`. Returns the key of a keyed field:
    /// `Some(Some(name))` for `Name = expr`, `Some(None)` for `[expr] = expr` (whose key
    /// expression is routed through [`KEY_FN`] when `routed`), `None` for a positional field.
    fn field(&mut self, routed: bool) -> PResult<Option<Option<String>>> {
        let named = self.tok.t == T::Name && self.peek()? == T::Op(b'=');
        match self.tok.t {
            _ if named => {
                let name = String::from_utf8_lossy(&self.sc.src[self.tok.start..self.tok.end])
                    .into_owned();
                self.advance()?;
                self.advance()?;
                self.expr()?;
                Ok(Some(Some(name)))
            }
            T::Op(b'[') => {
                self.advance()?;
                let key = self.depth * 4 + 1;
                let k = self.expr()?;
                if routed {
                    self.edits
                        .insert(k.start, OPEN, key, Text::Owned(format!("{KEY_FN}((")));
                    self.edits.insert(k.end, CLOSE, key, Text::Static("))"));
                }
                self.expect(T::Op(b']'))?;
                self.expect(T::Op(b'='))?;
                self.expr()?;
                Ok(Some(None))
            }
            _ => {
                self.expr()?;
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::argo::gopher::testing::rw;

    #[test]
    fn table_constructors() {
        let cases = [
            ("x = {}", "x = __pacto_tab({})"),
            ("x = {1, 2}", "x = __pacto_tab({1, 2})"),
            (
                "x = {b = 1, a = {c = 2}}",
                "x = __pacto_tab({b = 1, a = __pacto_tab({c = 2}, \"c\")}, \"b\", \"a\")",
            ),
            (
                "x = {[k] = 1, n = 2}",
                "x = __pacto_tab({[__pacto_key((k))] = 1, n = 2}, false, \"n\")",
            ),
            ("f{a = 1}", "f(__pacto_tab({a = 1}, \"a\"))"),
            ("f {}", "f (__pacto_tab({}))"),
            // A `{` argument on a later line: the callee is parenthesised, as for `(`.
            ("x = f\n{}", "x = (f\n)(__pacto_tab({}))"),
            // ... but a method's cannot be: that constructor is left as it is.
            ("x = a:m\n{[k] = 1}", "x = a:m\n{[k] = 1}"),
            // The inserted `)` must not call a parenthesised statement that follows.
            ("x = {}\n(f)()", "x = __pacto_tab({})\n;(f)()"),
            ("return{}", "return __pacto_tab({})"),
        ];
        for (src, want) in cases {
            assert_eq!(rw(src), want, "{src}");
        }
        // More than 64 keyed fields come as one table.
        let fields: Vec<String> = (0..65).map(|i| format!("k{i} = {i}")).collect();
        let src = format!("x = {{{}}}", fields.join(", "));
        let names: Vec<String> = (0..65).map(|i| format!("\"k{i}\"")).collect();
        assert_eq!(
            rw(&src),
            format!(
                "x = __pacto_tab({{{}}}, {{{}}})",
                fields.join(", "),
                names.join(", ")
            )
        );
    }
}
