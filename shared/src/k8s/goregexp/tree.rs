//! The parse tree and its stack, built the way Go's `regexp/syntax` builds them
//! (`regexp/syntax/regexp.go`: `Regexp`, `Op`; `parse.go`: `Flags`, `push`, `maybeConcat`,
//! `concat`, `alternate`, `collapse`, `swapVerticalBar`, `parseRightParen`).
//!
//! Nodes live in one arena and are named by index; a node given back (Go's `reuse`) goes on a
//! free list and is the next one handed out, as in Go, so the node count that decides when Go
//! starts measuring size and height ([`super::limits`]) is the same.

use std::collections::HashMap;

use super::error::{Error, ErrorCode};
use super::ranges::{self, MAX_RUNE};
use super::unicode::{self, Table};

/// A node's index in the arena.
pub(super) type Id = usize;

/// The operators, in Go's order (`Op`): the order is compared when char classes merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Op {
    NoMatch = 1,
    EmptyMatch,
    Literal,
    CharClass,
    AnyCharNotNl,
    AnyChar,
    BeginLine,
    EndLine,
    BeginText,
    EndText,
    WordBoundary,
    NoWordBoundary,
    Capture,
    Star,
    Plus,
    Quest,
    Repeat,
    Concat,
    Alternate,
    /// `(` on the stack (a pseudo-operator).
    LeftParen = 128,
    /// `|` on the stack (a pseudo-operator).
    VerticalBar,
}

impl Op {
    pub(super) fn is_pseudo(self) -> bool {
        self >= Op::LeftParen
    }
}

/// Go's parse flags (`Flags`), bit for bit.
pub(super) type Flags = u16;
pub(super) const FOLD_CASE: Flags = 1;
pub(super) const CLASS_NL: Flags = 1 << 2;
pub(super) const DOT_NL: Flags = 1 << 3;
pub(super) const ONE_LINE: Flags = 1 << 4;
pub(super) const NON_GREEDY: Flags = 1 << 5;
pub(super) const PERL_X: Flags = 1 << 6;
pub(super) const UNICODE_GROUPS: Flags = 1 << 7;
pub(super) const WAS_DOLLAR: Flags = 1 << 8;
/// What `regexp.Compile` parses with (`syntax.Perl`).
pub(super) const PERL: Flags = CLASS_NL | ONE_LINE | PERL_X | UNICODE_GROUPS;

/// One node (Go's `Regexp`): `runes` holds a literal's runes or a class's `lo, hi` pairs.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) op: Op,
    pub(super) flags: Flags,
    pub(super) sub: Vec<Id>,
    pub(super) runes: Vec<i32>,
    pub(super) min: i32,
    pub(super) max: i32,
    pub(super) cap: i32,
    pub(super) name: String,
}

impl Node {
    fn new(op: Op) -> Node {
        Node {
            op,
            flags: 0,
            sub: Vec::new(),
            runes: Vec::new(),
            min: 0,
            max: 0,
            cap: 0,
            name: String::new(),
        }
    }
}

/// A parsed pattern: the arena and the root.
#[derive(Debug)]
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) root: Id,
}

/// The parser's state (Go's `parser`), plus memos of Unicode tables and folds.
pub(super) struct Parser<'a> {
    pub(super) nodes: Vec<Node>,
    free: Vec<Id>,
    pub(super) flags: Flags,
    pub(super) stack: Vec<Id>,
    pub(super) num_cap: i32,
    pub(super) whole: &'a str,
    pub(super) num_runes: usize,
    pub(super) repeats: i64,
    pub(super) height: Option<Measures>,
    pub(super) size: Option<Measures>,
    tables: HashMap<(Table, bool), std::rc::Rc<Vec<i32>>>,
    orbits: HashMap<i32, std::rc::Rc<Vec<i32>>>,
    folded_ranges: HashMap<(i32, i32), std::rc::Rc<Vec<i32>>>,
    /// Code points case-folded so far, against [`MAX_FOLD_WORK`].
    fold_work: u64,
}

/// A measure remembered per node (Go keeps a map from node to measure).
#[derive(Default)]
pub(super) struct Measures(Vec<i64>);

impl Measures {
    pub(super) fn get(&self, id: Id) -> Option<i64> {
        self.0.get(id).copied().filter(|&m| m >= 0)
    }

    pub(super) fn insert(&mut self, id: Id, measure: i64) {
        if id >= self.0.len() {
            self.0.resize(id + 1, -1);
        }
        self.0[id] = measure;
    }

    fn forget(&mut self, id: Id) {
        if let Some(m) = self.0.get_mut(id) {
            *m = -1;
        }
    }
}

/// How many code points the parse may case-fold (`(?i)[B-\x{1e943}]` folds 125,000): Go folds
/// them one by one without a bound; past this a pattern is refused as too large to read.
const MAX_FOLD_WORK: u64 = 1 << 24;

impl<'a> Parser<'a> {
    pub(super) fn new(whole: &'a str, flags: Flags) -> Parser<'a> {
        Parser {
            nodes: Vec::new(),
            free: Vec::new(),
            flags,
            stack: Vec::new(),
            num_cap: 0,
            whole,
            num_runes: 0,
            repeats: 0,
            height: None,
            size: None,
            tables: HashMap::new(),
            orbits: HashMap::new(),
            folded_ranges: HashMap::new(),
            fold_work: 0,
        }
    }

    /// Go's `newRegexp`: a node from the free list, else a new one.
    pub(super) fn new_node(&mut self, op: Op) -> Id {
        match self.free.pop() {
            Some(id) => {
                // As new, keeping the allocations.
                let n = &mut self.nodes[id];
                n.op = op;
                n.flags = 0;
                n.sub.clear();
                n.runes.clear();
                n.min = 0;
                n.max = 0;
                n.cap = 0;
                n.name.clear();
                id
            }
            None => {
                self.nodes.push(Node::new(op));
                self.nodes.len() - 1
            }
        }
    }

    /// Go's `reuse`: the node goes on the free list (its height, not its size, is forgotten).
    pub(super) fn reuse(&mut self, id: Id) {
        if let Some(h) = &mut self.height {
            h.forget(id);
        }
        self.free.push(id);
    }

    /// How many nodes were ever allocated (Go's `numRegexp`).
    pub(super) fn num_regexp(&self) -> usize {
        self.nodes.len()
    }

    pub(super) fn op_of(&self, id: Id) -> Op {
        self.nodes[id].op
    }

    /// Go's `push`: a one-rune class becomes a literal, `[Aa]` a case-folded literal, and
    /// literals next to each other join. None when the rune joined the literal below.
    pub(super) fn push(&mut self, id: Id) -> Result<Option<Id>, Error> {
        self.num_runes += self.nodes[id].runes.len();
        let op = self.nodes[id].op;
        let runes: [i32; 4] = match self.nodes[id].runes[..] {
            [a, b] if op == Op::CharClass => [a, b, -1, -1],
            [a, b, c, d] if op == Op::CharClass => [a, b, c, d],
            _ => [-1; 4],
        };
        let len = if runes[0] < 0 {
            0
        } else {
            self.nodes[id].runes.len()
        };
        let one_rune = len == 2 && runes[0] == runes[1];
        let fold_pair = (len == 4
            && runes[0] == runes[1]
            && runes[2] == runes[3]
            && self.simple_fold(runes[0]) == runes[2]
            && self.simple_fold(runes[2]) == runes[0])
            || (len == 2
                && runes[0] + 1 == runes[1]
                && self.simple_fold(runes[0]) == runes[1]
                && self.simple_fold(runes[1]) == runes[0]);
        if one_rune {
            let r = self.nodes[id].runes[0];
            if self.maybe_concat(r, self.flags & !FOLD_CASE) {
                return Ok(None);
            }
            let node = &mut self.nodes[id];
            node.op = Op::Literal;
            node.runes.truncate(1);
            node.flags = self.flags & !FOLD_CASE;
        } else if fold_pair {
            let r = self.nodes[id].runes[0];
            if self.maybe_concat(r, self.flags | FOLD_CASE) {
                return Ok(None);
            }
            let node = &mut self.nodes[id];
            node.op = Op::Literal;
            node.runes.truncate(1);
            node.flags = self.flags | FOLD_CASE;
        } else {
            self.maybe_concat(-1, 0);
        }
        self.stack.push(id);
        self.check_limits(id)?;
        Ok(Some(id))
    }

    /// Go's `maybeConcat`: joins the two literals on top of the stack; with `r >= 0` the upper
    /// node is kept to hold `r` (and true is returned).
    fn maybe_concat(&mut self, r: i32, flags: Flags) -> bool {
        let n = self.stack.len();
        if n < 2 {
            return false;
        }
        let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
        let (a, b) = (&self.nodes[re1], &self.nodes[re2]);
        if a.op != Op::Literal || b.op != Op::Literal || a.flags & FOLD_CASE != b.flags & FOLD_CASE
        {
            return false;
        }
        let mut moved = std::mem::take(&mut self.nodes[re1].runes);
        self.nodes[re2].runes.extend_from_slice(&moved);
        if r >= 0 {
            moved.clear();
            moved.push(r);
            self.nodes[re1].runes = moved;
            self.nodes[re1].flags = flags;
            return true;
        }
        moved.clear();
        self.nodes[re1].runes = moved;
        self.stack.pop();
        self.reuse(re1);
        false
    }

    /// Go's `literal`: pushes the rune (its smallest case-fold equivalent under `(?i)`).
    pub(super) fn literal(&mut self, r: i32) -> Result<(), Error> {
        let id = self.new_node(Op::Literal);
        self.nodes[id].flags = self.flags;
        let r = if self.flags & FOLD_CASE != 0 {
            self.min_fold_rune(r)
        } else {
            r
        };
        self.nodes[id].runes.push(r);
        self.push(id)?;
        Ok(())
    }

    /// Go's `op`: pushes a node of `op` with the current flags.
    pub(super) fn op(&mut self, op: Op) -> Result<Id, Error> {
        let id = self.new_node(op);
        self.nodes[id].flags = self.flags;
        self.push(id)?;
        Ok(id)
    }

    /// The top of the stack above the topmost pseudo-operator, taken off the stack.
    fn take_above_pseudo(&mut self) -> Vec<Id> {
        let mut i = self.stack.len();
        while i > 0 && !self.op_of(self.stack[i - 1]).is_pseudo() {
            i -= 1;
        }
        self.stack.split_off(i)
    }

    /// Go's `concat`.
    pub(super) fn concat(&mut self) -> Result<(), Error> {
        self.maybe_concat(-1, 0);
        let subs = self.take_above_pseudo();
        let id = if subs.is_empty() {
            self.new_node(Op::EmptyMatch)
        } else {
            self.collapse(subs, Op::Concat)?
        };
        self.push(id)?;
        Ok(())
    }

    /// Go's `alternate`.
    pub(super) fn alternate(&mut self) -> Result<(), Error> {
        let subs = self.take_above_pseudo();
        if let Some(&last) = subs.last() {
            self.clean_alt(last);
        }
        let id = if subs.is_empty() {
            self.new_node(Op::NoMatch)
        } else {
            self.collapse(subs, Op::Alternate)?
        };
        self.push(id)?;
        Ok(())
    }

    /// Go's `cleanAlt`: a class is sorted and merged; the whole range becomes `.` (with or
    /// without `\n`).
    pub(super) fn clean_alt(&mut self, id: Id) {
        let node = &mut self.nodes[id];
        if node.op != Op::CharClass {
            return;
        }
        ranges::clean(&mut node.runes);
        if node.runes == [0, MAX_RUNE] {
            node.runes.clear();
            node.op = Op::AnyChar;
        } else if node.runes == [0, '\n' as i32 - 1, '\n' as i32 + 1, MAX_RUNE] {
            node.runes.clear();
            node.op = Op::AnyCharNotNl;
        }
    }

    /// Go's `collapse`: `op` over `subs`, hoisting nested nodes of the same op; alternations
    /// are factored.
    pub(super) fn collapse(&mut self, subs: Vec<Id>, op: Op) -> Result<Id, Error> {
        if subs.len() == 1 {
            return Ok(subs[0]);
        }
        let re = self.new_node(op);
        let mut list = Vec::with_capacity(subs.len());
        for sub in subs {
            if self.op_of(sub) == op {
                let inner = std::mem::take(&mut self.nodes[sub].sub);
                list.extend(inner);
                self.reuse(sub);
            } else {
                list.push(sub);
            }
        }
        if op == Op::Alternate {
            list = stacker::maybe_grow(64 * 1024, 1 << 20, || self.factor(list))?;
            if list.len() == 1 {
                self.nodes[re].sub = list;
                let only = self.nodes[re].sub[0];
                self.reuse(re);
                return Ok(only);
            }
        }
        self.nodes[re].sub = list;
        Ok(re)
    }

    /// Go's `isCharClass`: a one-rune literal, a class, or `.`.
    pub(super) fn is_char_class(&self, id: Id) -> bool {
        let n = &self.nodes[id];
        (n.op == Op::Literal && n.runes.len() == 1)
            || matches!(n.op, Op::CharClass | Op::AnyCharNotNl | Op::AnyChar)
    }

    /// Go's `matchRune`.
    fn match_rune(&self, id: Id, r: i32) -> bool {
        let n = &self.nodes[id];
        match n.op {
            Op::Literal => n.runes.len() == 1 && n.runes[0] == r,
            Op::CharClass => n.runes.chunks_exact(2).any(|p| p[0] <= r && r <= p[1]),
            Op::AnyCharNotNl => r != '\n' as i32,
            Op::AnyChar => true,
            _ => false,
        }
    }

    /// Go's `mergeCharClass`: `dst = dst|src`, where `dst` is the more complex of the two.
    pub(super) fn merge_char_class(&mut self, dst: Id, src: Id) -> Result<(), Error> {
        match self.op_of(dst) {
            Op::AnyCharNotNl if self.match_rune(src, '\n' as i32) => {
                self.nodes[dst].op = Op::AnyChar;
            }
            Op::CharClass => {
                let mut class = std::mem::take(&mut self.nodes[dst].runes);
                if self.op_of(src) == Op::Literal {
                    let (r, flags) = (self.nodes[src].runes[0], self.nodes[src].flags);
                    self.append_literal(&mut class, r, flags)?;
                } else {
                    ranges::append_class(&mut class, &self.nodes[src].runes);
                }
                self.nodes[dst].runes = class;
            }
            Op::Literal => {
                let (d, s) = (&self.nodes[dst], &self.nodes[src]);
                if s.runes[0] == d.runes[0] && s.flags == d.flags {
                    return Ok(());
                }
                let (dr, df, sr, sf) = (d.runes[0], d.flags, s.runes[0], s.flags);
                let mut class = Vec::new();
                self.append_literal(&mut class, dr, df)?;
                self.append_literal(&mut class, sr, sf)?;
                self.nodes[dst].op = Op::CharClass;
                self.nodes[dst].runes = class;
            }
            _ => {}
        }
        Ok(())
    }

    /// Go's `swapVerticalBar`: with a `|` below the top, the top goes under it (two classes
    /// either side merge into one). True when it did.
    pub(super) fn swap_vertical_bar(&mut self) -> Result<bool, Error> {
        let n = self.stack.len();
        if n >= 3
            && self.op_of(self.stack[n - 2]) == Op::VerticalBar
            && self.is_char_class(self.stack[n - 1])
            && self.is_char_class(self.stack[n - 3])
        {
            let (mut re1, mut re3) = (self.stack[n - 1], self.stack[n - 3]);
            if self.op_of(re1) > self.op_of(re3) {
                std::mem::swap(&mut re1, &mut re3);
                self.stack[n - 3] = re3;
            }
            self.merge_char_class(re3, re1)?;
            self.reuse(re1);
            self.stack.truncate(n - 1);
            return Ok(true);
        }
        if n >= 2 {
            let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
            if self.op_of(re2) == Op::VerticalBar {
                if n >= 3 {
                    self.clean_alt(self.stack[n - 3]);
                }
                self.stack[n - 2] = re1;
                self.stack[n - 1] = re2;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Go's `parseVerticalBar`.
    pub(super) fn parse_vertical_bar(&mut self) -> Result<(), Error> {
        self.concat()?;
        if !self.swap_vertical_bar()? {
            self.op(Op::VerticalBar)?;
        }
        Ok(())
    }

    /// Go's `parseRightParen`: closes the group, restoring the flags of its `(`.
    pub(super) fn parse_right_paren(&mut self) -> Result<(), Error> {
        self.concat()?;
        if self.swap_vertical_bar()? {
            self.stack.pop();
        }
        self.alternate()?;
        let n = self.stack.len();
        if n < 2 {
            return Err(Error::syntax(ErrorCode::UnexpectedParen, self.whole));
        }
        let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
        self.stack.truncate(n - 2);
        if self.op_of(re2) != Op::LeftParen {
            return Err(Error::syntax(ErrorCode::UnexpectedParen, self.whole));
        }
        self.flags = self.nodes[re2].flags;
        if self.nodes[re2].cap == 0 {
            self.push(re1)?;
        } else {
            self.nodes[re2].op = Op::Capture;
            self.nodes[re2].sub = vec![re1];
            self.push(re2)?;
        }
        Ok(())
    }

    /// Go's `unicode.SimpleFold` as Go 1.26's tables have it: the next rune of `r`'s case
    /// orbit (the smallest after `r`, else the smallest), `r` when it has none.
    pub(super) fn simple_fold(&mut self, r: i32) -> i32 {
        let orbit = self.orbit(r);
        orbit
            .iter()
            .copied()
            .find(|&o| o > r)
            .unwrap_or_else(|| orbit.first().copied().unwrap_or(r))
    }

    /// Go's `minFoldRune`: the smallest rune case-fold equivalent to `r`.
    pub(super) fn min_fold_rune(&mut self, r: i32) -> i32 {
        if !(unicode::MIN_FOLD..=unicode::MAX_FOLD).contains(&r) {
            return r;
        }
        self.orbit(r).first().copied().unwrap_or(r)
    }

    fn orbit(&mut self, r: i32) -> std::rc::Rc<Vec<i32>> {
        self.orbits
            .entry(r)
            .or_insert_with(|| std::rc::Rc::new(unicode::orbit(r)))
            .clone()
    }

    /// A Unicode table's ranges (case-folded: with every rune fold-equivalent to one of them).
    pub(super) fn table(&mut self, table: Table, folded: bool) -> std::rc::Rc<Vec<i32>> {
        self.tables
            .entry((table, folded))
            .or_insert_with(|| std::rc::Rc::new(unicode::ranges(table, folded)))
            .clone()
    }

    /// Go's `appendLiteral`.
    pub(super) fn append_literal(
        &mut self,
        class: &mut Vec<i32>,
        r: i32,
        flags: Flags,
    ) -> Result<(), Error> {
        if flags & FOLD_CASE != 0 {
            self.append_folded_range(class, r, r)
        } else {
            ranges::append_range(class, r, r);
            Ok(())
        }
    }

    /// Go's `appendFoldedRange`: `lo-hi` and every rune case-fold equivalent to one of them.
    /// Go walks the range rune by rune; the fold tables give the same set at once, and the
    /// order within the class is settled when the class is cleaned.
    pub(super) fn append_folded_range(
        &mut self,
        class: &mut Vec<i32>,
        mut lo: i32,
        mut hi: i32,
    ) -> Result<(), Error> {
        use unicode::{MAX_FOLD, MIN_FOLD};
        if (lo <= MIN_FOLD && hi >= MAX_FOLD) || hi < MIN_FOLD || lo > MAX_FOLD {
            ranges::append_range(class, lo, hi);
            return Ok(());
        }
        if lo < MIN_FOLD {
            ranges::append_range(class, lo, MIN_FOLD - 1);
            lo = MIN_FOLD;
        }
        if hi > MAX_FOLD {
            ranges::append_range(class, MAX_FOLD + 1, hi);
            hi = MAX_FOLD;
        }
        ranges::append_range(class, lo, hi);
        let extra = match self.folded_ranges.get(&(lo, hi)) {
            Some(e) => e.clone(),
            None => {
                self.fold_work += (hi - lo + 1) as u64;
                if self.fold_work > MAX_FOLD_WORK {
                    return Err(Error::TooLarge(format!(
                        "the pattern case-folds more than {MAX_FOLD_WORK} characters: larger than this tool reads"
                    )));
                }
                let e = std::rc::Rc::new(unicode::fold_range(lo, hi));
                self.folded_ranges.insert((lo, hi), e.clone());
                e
            }
        };
        for p in extra.chunks_exact(2) {
            ranges::append_range(class, p[0], p[1]);
        }
        Ok(())
    }

    /// Go's `appendFoldedClass`.
    pub(super) fn append_folded_class(
        &mut self,
        class: &mut Vec<i32>,
        x: &[i32],
    ) -> Result<(), Error> {
        for p in x.chunks_exact(2) {
            self.append_folded_range(class, p[0], p[1])?;
        }
        Ok(())
    }
}
