//! What each name of the source refers to, as gopher-lua v1.1.2's compiler resolves it
//! (`compile.go` `getIdentRefType`, `funcContext.FindLocalVar`, `RegisterLocalVar`): a local of
//! the function being compiled, an upvalue (a local of an enclosing function), or a global.
//! Locals are declared where gopher registers them: `local` names after their expressions,
//! `local function` names before the body, parameters (and `self` of a method, and `arg` of a
//! vararg function) at the start of the body, loop variables for the loop's block; a `repeat`
//! block's locals are visible in its `until` expression.
//!
//! The rewrites of `compat` need it: gopher assigns to the locals of the running function in
//! place, which decides what a multiple assignment does.

use super::parser::Parser;

/// What a name refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Binding {
    /// A local of the function being compiled.
    Local,
    /// A local of an enclosing function.
    Upvalue,
    Global,
}

/// One function being compiled: the names its blocks declare, innermost block last.
#[derive(Debug, Default)]
pub(super) struct FuncScope {
    blocks: Vec<Vec<Vec<u8>>>,
    /// `...` appears in the function's own body (not in a nested function).
    pub(super) dots_used: bool,
}

impl Parser<'_> {
    /// Starts a function body.
    pub(super) fn open_function(&mut self) {
        self.funcs.push(FuncScope {
            blocks: vec![Vec::new()],
            dots_used: false,
        });
    }

    /// Ends the innermost function body; returns its scope.
    pub(super) fn close_function(&mut self) -> FuncScope {
        self.funcs.pop().unwrap_or_default()
    }

    pub(super) fn open_block(&mut self) {
        if let Some(f) = self.funcs.last_mut() {
            f.blocks.push(Vec::new());
        }
    }

    pub(super) fn close_block(&mut self) {
        if let Some(f) = self.funcs.last_mut() {
            f.blocks.pop();
        }
    }

    /// Declares a local of the innermost block.
    pub(super) fn declare(&mut self, name: &[u8]) {
        if let Some(b) = self.funcs.last_mut().and_then(|f| f.blocks.last_mut()) {
            b.push(name.to_vec());
        }
    }

    /// Records a `...` in the function being compiled.
    pub(super) fn dots_used(&mut self) {
        if let Some(f) = self.funcs.last_mut() {
            f.dots_used = true;
        }
    }

    /// What `name` refers to at this point of the source.
    pub(super) fn binding(&self, name: &[u8]) -> Binding {
        let declares = |f: &FuncScope| f.blocks.iter().any(|b| b.iter().any(|n| n == name));
        let mut funcs = self.funcs.iter().rev();
        if funcs.next().is_some_and(declares) {
            return Binding::Local;
        }
        if funcs.any(declares) {
            return Binding::Upvalue;
        }
        Binding::Global
    }

    /// The text of the source between two offsets.
    pub(super) fn text(&self, start: usize, end: usize) -> &[u8] {
        &self.sc.src[start..end]
    }
}
