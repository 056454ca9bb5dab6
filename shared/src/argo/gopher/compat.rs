//! Rewrites for what gopher-lua v1.1.2's compiler (`compile.go`) and VM (`vm.go`) do
//! differently from LuaJIT with the same statement, where a health script can see it:
//!
//! * a multiple assignment assigns to the locals of the running function as it goes
//!   ([`Parser::assignment`]);
//! * a numeric `for` reads its control values as gopher's `OP_FORPREP`/`OP_FORLOOP` do
//!   ([`Parser::numeric_for`]);
//! * a vararg function has the Lua 5.0 `arg` local ([`Parser::vararg_arg`]).
//!
//! Each rewrite calls functions the sandbox supplies ([`ARG_FN`], [`FOR_FNS`]) or uses locals
//! of its own (`__pacto_c1`, `__pacto_v1`, ...) inside a `do ... end` it adds; no newline is
//! added or removed.

use super::edit::{Text, CLOSE, OPEN, SEP};
use super::expr::Exp;
use super::parser::Parser;
use super::routes::{ARG_FN, FOR_FNS};
use super::scope::Binding;

/// One target of an assignment, as gopher compiles it (`compileAssignStmtLeft`).
enum Target {
    /// A name: local, upvalue or global.
    Name(Vec<u8>, Binding),
    /// `p.name` or `p[k]`: the object is read into a temporary first unless it is a local's name
    /// (gopher reads that local when it stores, `PropagateKMV`), the key `[k]` too.
    Index { object: Option<Vec<u8>>, key: Key },
}

enum Key {
    Name(Vec<u8>),
    Expr,
}

impl Parser<'_> {
    /// gopher compiles `v1, ..., vn = e1, ..., em` (`compileAssignStmt`) with each expression
    /// written straight into the register of a local target, in order, while the other targets
    /// are stored at the end: `local a, b = 1, 2; a, b = b, a` leaves both at 2. In detail: the
    /// objects and `[k]` keys of indexed targets are evaluated first; then, in order, each
    /// expression: into its local target at once, into a temporary for any other target (a local
    /// named alone as the value of an indexed target is read at the end instead), a call or `...`
    /// ending the list into temporaries for every target left (a local among them assigned at
    /// the end), `nil` for targets without an expression; then the extra expressions; then the
    /// stores, last target first.
    ///
    /// The statement is rewritten into a block doing just that when some target is a local of
    /// the running function and some expression could see it: `a, b = b, a` becomes
    /// `do a = b; local __pacto_v2 = a; b = __pacto_v2; end`... in the same places as the source
    /// text. Returns whether it was rewritten (the statement then starts with `do`).
    pub(super) fn assignment(
        &mut self,
        targets: &[Exp],
        target_commas: &[usize],
        eq: usize,
        exprs: &[Exp],
        expr_commas: &[usize],
    ) -> bool {
        let kinds: Vec<Target> = targets.iter().map(|t| self.target(t)).collect();
        let local_target = kinds
            .iter()
            .any(|k| matches!(k, Target::Name(_, Binding::Local)));
        if !local_target || (targets.len() < 2 && exprs.len() < 2) {
            return false;
        }
        // Constants alone can see nothing, unless a local is assigned twice (`a, a = 1, 2`
        // leaves 2 in gopher, 1 in LuaJIT).
        let mut names: Vec<&[u8]> = kinds
            .iter()
            .filter_map(|k| match k {
                Target::Name(name, Binding::Local) => Some(name.as_slice()),
                _ => None,
            })
            .collect();
        names.sort_unstable();
        let repeated = names.windows(2).any(|w| w[0] == w[1]);
        if exprs.iter().all(|e| e.constant) && !repeated {
            return false;
        }
        let (n, m) = (targets.len(), exprs.len());
        let start = targets[0].start;
        // Phase 1: the captures (objects and keys of indexed targets), in target order.
        let mut captures: Vec<String> = Vec::new();
        // For each target: how its store reads the object and key.
        let mut stores: Vec<(String, String)> = vec![(String::new(), String::new()); n];
        for &c in target_commas {
            self.edits.deletes.push((c, c + 1));
        }
        for (i, (t, kind)) in targets.iter().zip(&kinds).enumerate() {
            match kind {
                Target::Name(..) => self.edits.deletes.push((t.start, t.end)),
                Target::Index { object, key } => {
                    let Some(ix) = t.index else { continue };
                    let mut pieces = 0;
                    stores[i].0 = match object {
                        Some(name) => {
                            self.edits.deletes.push((t.start, ix.at));
                            String::from_utf8_lossy(name).into_owned()
                        }
                        None => {
                            captures.push(format!("__pacto_c{}", captures.len() + 1));
                            if captures.len() > 1 {
                                self.edits.insert(t.start, OPEN, 0, Text::Static(", "));
                            }
                            pieces += 1;
                            captures.last().cloned().unwrap_or_default()
                        }
                    };
                    match key {
                        Key::Name(name) => {
                            self.edits.deletes.push((ix.at, ix.key_end));
                            stores[i].1 = format!("\"{}\"", String::from_utf8_lossy(name));
                        }
                        Key::Expr => {
                            self.edits.deletes.push((ix.at, ix.at + 1));
                            self.edits.deletes.push((ix.close, ix.close + 1));
                            captures.push(format!("__pacto_c{}", captures.len() + 1));
                            if captures.len() > 1 {
                                // After the object's capture, in place of the `[`; else before
                                // the key.
                                let at = if pieces > 0 { ix.at } else { ix.key_start };
                                self.edits.insert(at, SEP, 0, Text::Static(", "));
                            }
                            stores[i].1 = captures.last().cloned().unwrap_or_default();
                        }
                    }
                }
            }
        }
        self.edits.deletes.push((eq, eq + 1));
        let head = if captures.is_empty() {
            "do ".to_string()
        } else {
            format!("do local {} = ", captures.join(", "))
        };
        // Before anything else written at the statement's start (closers of the statement
        // before it are written first).
        self.edits.insert(start, CLOSE, 0, Text::Owned(head));
        if !captures.is_empty() {
            self.edits.insert(eq, SEP, 0, Text::Static(";"));
        }
        // Phase 2: the expressions.
        let mut values: Vec<Option<String>> = vec![None; n];
        let mut immediate = vec![false; n];
        let mut tail = String::new();
        let mut i = 0;
        while i < n {
            if i >= m {
                match &kinds[i] {
                    Target::Name(name, Binding::Local) => {
                        tail.push_str(&format!(" {} = nil;", String::from_utf8_lossy(name)));
                        immediate[i] = true;
                    }
                    _ => values[i] = Some("nil".into()),
                }
                i += 1;
                continue;
            }
            let e = &exprs[i];
            if i == m - 1 && e.multi_valued() {
                let names: Vec<String> = (i..n).map(|k| format!("__pacto_v{}", k + 1)).collect();
                self.edits.insert(
                    e.start,
                    OPEN,
                    0,
                    Text::Owned(format!("local {} = ", names.join(", "))),
                );
                for (k, name) in (i..n).zip(names) {
                    values[k] = Some(name);
                }
                break;
            }
            match &kinds[i] {
                Target::Name(name, Binding::Local) => {
                    let name = String::from_utf8_lossy(name);
                    self.edits
                        .insert(e.start, OPEN, 0, Text::Owned(format!("{name} = ")));
                    immediate[i] = true;
                }
                kind => {
                    let temp = format!("__pacto_v{}", i + 1);
                    self.edits
                        .insert(e.start, OPEN, 0, Text::Owned(format!("local {temp} = ")));
                    let read_late = matches!(kind, Target::Index { .. })
                        && e.name
                        && self.binding(self.text(e.start, e.end)) == Binding::Local;
                    values[i] = Some(if read_late {
                        String::from_utf8_lossy(self.text(e.start, e.end)).into_owned()
                    } else {
                        temp
                    });
                }
            }
            i += 1;
        }
        // The extra expressions are evaluated and dropped.
        for e in exprs.iter().skip(n) {
            self.edits
                .insert(e.start, OPEN, 0, Text::Static("local _ = "));
        }
        for &c in expr_commas {
            self.edits.deletes.push((c, c + 1));
            self.edits.insert(c, SEP, 0, Text::Static(";"));
        }
        // Phase 3: the stores, last target first.
        let mut end = tail;
        for k in (0..n).rev() {
            if immediate[k] {
                continue;
            }
            let value = values[k].clone().unwrap_or_else(|| "nil".into());
            match &kinds[k] {
                Target::Name(name, _) => {
                    end.push_str(&format!(" {} = {value};", String::from_utf8_lossy(name)));
                }
                Target::Index { .. } => {
                    let (object, key) = &stores[k];
                    end.push_str(&format!(" {object}[{key}] = {value};"));
                }
            }
        }
        end.push_str(" end");
        let last = exprs[m - 1].end;
        self.edits
            .insert(last, CLOSE, 0, Text::Owned(format!(";{end}")));
        true
    }

    fn target(&self, t: &Exp) -> Target {
        if t.name {
            let name = self.text(t.start, t.end).to_vec();
            let b = self.binding(&name);
            return Target::Name(name, b);
        }
        let Some(ix) = t.index else {
            return Target::Name(Vec::new(), Binding::Global);
        };
        let object = if ix.object_is_name {
            let name = self.text(t.start, ix.at);
            (self.binding(name) == Binding::Local).then(|| name.to_vec())
        } else {
            None
        };
        let key = if ix.dot {
            Key::Name(self.text(ix.key_start, ix.key_end).to_vec())
        } else {
            Key::Expr
        };
        Target::Index { object, key }
    }

    /// gopher's numeric `for` (vm.go `OP_FORPREP`, `OP_FORLOOP`): the initial value, the step
    /// and then the limit must be numbers (`for statement init must be a number`; strings are
    /// not converted); the loop runs while `step > 0 and v <= limit or step <= 0 and v >=
    /// limit`, so a zero step loops for ever when the initial value is at least the limit and
    /// not at all below it. `for i = a, b, c do` becomes `for i = FOR(a, (b), (c)), LIMIT(),
    /// STEP() do`, where the sandbox's `FOR` checks the values and hands LuaJIT a limit and step
    /// that give gopher's iterations.
    pub(super) fn numeric_for(&mut self, init: &Exp, limit: &Exp, step: Option<&Exp>) {
        let [for_fn, limit_fn, step_fn] = FOR_FNS;
        self.edits
            .insert(init.start, OPEN, 0, Text::Owned(format!("{for_fn}(")));
        let last = step.unwrap_or(limit);
        self.edits.insert(last.start, OPEN, 0, Text::Static("("));
        self.edits.insert(
            last.end,
            CLOSE,
            0,
            Text::Owned(format!(")), {limit_fn}(), {step_fn}()")),
        );
    }

    /// gopher's Lua 5.0 compatibility (`compileFunctionExpr` with `CompatVarArg`, state.go
    /// `initCallFrame`): every vararg function but the main chunk has a local `arg`, which holds
    /// `{...; n = select('#', ...)}` when the function's body does not use `...` itself, and
    /// `nil` when it does. Declared at `body`, right after the parameter list.
    pub(super) fn vararg_arg(&mut self, body: usize, dots_used: bool) {
        let text = if dots_used {
            " local arg;".to_string()
        } else {
            format!(" local arg = {ARG_FN}(...);")
        };
        self.edits.insert(body, OPEN, 0, Text::Owned(text));
    }
}

#[cfg(test)]
mod tests {
    //! The rewrites' text; what the rewritten statements do is checked against gopher-lua's
    //! results in `lua::script` and tests/lua_gopher_differential.rs.
    use crate::argo::gopher::testing::{rw, same_lines};

    #[test]
    fn multiple_assignment_to_locals_is_sequential() {
        for (src, want) in [
            (
                "local a, b = 1, 2 a, b = b, a",
                "local a, b = 1, 2 do    a = b; b = a; end",
            ),
            (
                "local a, t = 1, {} t.x, a = a, 2",
                "local a, t = 1, __pacto_tab({}) do    local __pacto_v1 = a; a = 2; t[\"x\"] = a; end",
            ),
            (
                "local a = 1 f().x, a = a, g()",
                "local a = 1 do local __pacto_c1 = f()  ; local __pacto_v1 = a; local __pacto_v2 = g(); a = __pacto_v2; __pacto_c1[\"x\"] = a; end",
            ),
            (
                "local a, t = 1, {} t[k], a = a + 1, 2",
                "local a, t = 1, __pacto_tab({}) do local __pacto_c1 = k  ; local __pacto_v1 = __pacto_add((a), (1)); a = 2; t[__pacto_c1] = __pacto_v1; end",
            ),
            (
                "local a, b = 1, 2 a, b = b",
                "local a, b = 1, 2 do    a = b; b = nil; end",
            ),
            ("local a = 1 a, a = 2, 3", "local a = 1 do    a = 2; a = 3; end"),
        ] {
            assert_eq!(rw(src), want, "{src}");
        }
        // Left alone: no local target, constants only, one target and one value.
        for src in [
            "a, b = b, a",
            "local a, b a, b = 1, 'x'",
            "local a a = b",
            "local a, b = 1, 2 local function f() a, b = b, a end",
        ] {
            assert_eq!(rw(src), src);
        }
        let src = "local a, b = 1, 2\na, b =\nb,\na";
        same_lines(src, &rw(src));
    }

    #[test]
    fn numeric_for_reads_through_the_sandbox() {
        assert_eq!(
            rw("for i = 1, n do end"),
            "for i = __pacto_for(1, (n)), __pacto_forlimit(), __pacto_forstep() do end"
        );
        assert_eq!(
            rw("for i = a, f(), -1 do end"),
            "for i = __pacto_for(a, f(), (-1)), __pacto_forlimit(), __pacto_forstep() do end"
        );
        assert_eq!(
            rw("for k, v in pairs(t) do end"),
            "for k, v in pairs(t) do end"
        );
    }

    #[test]
    fn vararg_functions_get_arg() {
        assert_eq!(
            rw("local f = function(...) return arg end"),
            "local f = function(...) local arg = __pacto_arg(...); return arg end"
        );
        assert_eq!(
            rw("function t:m(a, ...) return ... end"),
            "function t:m(a, ...) local arg; return ... end"
        );
        // The main chunk has no `arg`.
        assert_eq!(rw("return ..."), "return ...");
    }
}
