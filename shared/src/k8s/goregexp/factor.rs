//! How Go factors an alternation (`regexp/syntax/parse.go`: `factor`, `leadingString`,
//! `removeLeadingString`, `leadingRegexp`, `removeLeadingRegexp`; `regexp.go`: `Equal`):
//! `ABC|ABD|AEF|BCX|BCY` becomes `A(B[CD]|EF)|BC[XY]`. The factored tree is what Go measures
//! against its size and height bounds, so it is built here the same way.

use super::error::Error;
use super::tree::{Id, Op, Parser, FOLD_CASE, NON_GREEDY, WAS_DOLLAR};

impl Parser<'_> {
    /// Go's `factor`: common literal prefixes, then common leading classes, then runs of
    /// one-character alternatives merged into a class, then runs of empty matches.
    pub(super) fn factor(&mut self, mut sub: Vec<Id>) -> Result<Vec<Id>, Error> {
        if sub.len() < 2 {
            return Ok(sub);
        }

        // Round 1: common literal prefixes. The run's prefix is the first `len` runes of
        // `owner`'s leading literal.
        let mut out = Vec::with_capacity(sub.len());
        let mut start = 0;
        let mut owner: Option<Id> = None;
        let mut len = 0;
        let mut str_flags = 0;
        for i in 0..=sub.len() {
            let mut here: Option<Id> = None;
            let mut here_flags = 0;
            if i < sub.len() {
                (here, here_flags) = self.leading_string(sub[i]);
                if here_flags == str_flags {
                    let same = match (owner, here) {
                        (Some(a), Some(b)) => {
                            let (a, b) = (&self.nodes[a].runes[..len], &self.nodes[b].runes);
                            a.iter().zip(b).take_while(|(x, y)| x == y).count()
                        }
                        _ => 0,
                    };
                    if same > 0 {
                        len = same;
                        continue;
                    }
                }
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1 {
                let prefix = self.new_node(Op::Literal);
                self.nodes[prefix].flags = str_flags;
                let runes = owner.map(|o| self.nodes[o].runes[..len].to_vec());
                self.nodes[prefix].runes = runes.unwrap_or_default();
                for s in sub.iter_mut().take(i).skip(start) {
                    *s = self.remove_leading_string(*s, len);
                    self.check_limits(*s)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let re = self.new_node(Op::Concat);
                self.nodes[re].sub = vec![prefix, suffix];
                out.push(re);
            }
            start = i;
            owner = here;
            len = here.map_or(0, |h| self.nodes[h].runes.len());
            str_flags = here_flags;
        }
        sub = out;

        // Round 2: a common leading class, or fixed repeat of a class (`[ab]c|[ab]d`).
        let mut out = Vec::with_capacity(sub.len());
        let mut start = 0;
        let mut first: Option<Id> = None;
        for i in 0..=sub.len() {
            let mut ifirst = None;
            if i < sub.len() {
                ifirst = self.leading_regexp(sub[i]);
                if let (Some(f), Some(g)) = (first, ifirst) {
                    let n = &self.nodes[f];
                    let simple = self.is_char_class(f)
                        || (n.op == Op::Repeat && n.min == n.max && self.is_char_class(n.sub[0]));
                    if simple && self.equal(f, g) {
                        continue;
                    }
                }
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if let (true, Some(prefix)) = (i > start + 1, first) {
                // A run of two or more always has its leading regexp.
                for (j, s) in sub.iter_mut().enumerate().take(i).skip(start) {
                    *s = self.remove_leading_regexp(*s, j != start);
                    self.check_limits(*s)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let re = self.new_node(Op::Concat);
                self.nodes[re].sub = vec![prefix, suffix];
                out.push(re);
            }
            start = i;
            first = ifirst;
        }
        sub = out;

        // Round 3: runs of one-character alternatives become one class.
        let mut out = Vec::with_capacity(sub.len());
        let mut start = 0;
        for i in 0..=sub.len() {
            if i < sub.len() && self.is_char_class(sub[i]) {
                continue;
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1 {
                // Start from the most complex, so the others merge into it.
                let mut max = start;
                for j in start + 1..i {
                    let (m, n) = (&self.nodes[sub[max]], &self.nodes[sub[j]]);
                    if m.op < n.op || (m.op == n.op && m.runes.len() < n.runes.len()) {
                        max = j;
                    }
                }
                sub.swap(start, max);
                for j in start + 1..i {
                    self.merge_char_class(sub[start], sub[j])?;
                    self.reuse(sub[j]);
                }
                self.clean_alt(sub[start]);
                out.push(sub[start]);
            }
            if i < sub.len() {
                out.push(sub[i]);
            }
            start = i + 1;
        }
        sub = out;

        // Round 4: runs of empty matches become one.
        let mut out = Vec::with_capacity(sub.len());
        for i in 0..sub.len() {
            if i + 1 < sub.len()
                && self.op_of(sub[i]) == Op::EmptyMatch
                && self.op_of(sub[i + 1]) == Op::EmptyMatch
            {
                continue;
            }
            out.push(sub[i]);
        }
        Ok(out)
    }

    /// Go's `leadingString`: the literal `id` begins with (itself or its concatenation's
    /// first part) and whether it is case-folded.
    fn leading_string(&self, mut id: Id) -> (Option<Id>, u16) {
        let n = &self.nodes[id];
        if n.op == Op::Concat && !n.sub.is_empty() {
            id = n.sub[0];
        }
        let n = &self.nodes[id];
        if n.op != Op::Literal {
            return (None, 0);
        }
        (Some(id), n.flags & FOLD_CASE)
    }

    /// Go's `removeLeadingString`: `id` without its first `n` runes.
    fn remove_leading_string(&mut self, id: Id, n: usize) -> Id {
        if self.op_of(id) == Op::Concat && !self.nodes[id].sub.is_empty() {
            let first = self.nodes[id].sub[0];
            let first = self.remove_leading_string(first, n);
            self.nodes[id].sub[0] = first;
            if self.op_of(first) == Op::EmptyMatch {
                self.reuse(first);
                match self.nodes[id].sub.len() {
                    0 | 1 => {
                        self.nodes[id].op = Op::EmptyMatch;
                        self.nodes[id].sub.clear();
                    }
                    2 => {
                        let second = self.nodes[id].sub[1];
                        self.reuse(id);
                        return second;
                    }
                    _ => {
                        self.nodes[id].sub.remove(0);
                    }
                }
            }
            return id;
        }
        if self.op_of(id) == Op::Literal {
            let node = &mut self.nodes[id];
            node.runes.drain(..n.min(node.runes.len()));
            if node.runes.is_empty() {
                node.op = Op::EmptyMatch;
            }
        }
        id
    }

    /// Go's `leadingRegexp`: the first part of `id`, None for an empty match.
    fn leading_regexp(&self, id: Id) -> Option<Id> {
        let n = &self.nodes[id];
        if n.op == Op::EmptyMatch {
            return None;
        }
        if n.op == Op::Concat && !n.sub.is_empty() {
            let first = n.sub[0];
            if self.op_of(first) == Op::EmptyMatch {
                return None;
            }
            return Some(first);
        }
        Some(id)
    }

    /// Go's `removeLeadingRegexp`: `id` without its first part; with `reuse` the part is given
    /// back.
    fn remove_leading_regexp(&mut self, id: Id, reuse: bool) -> Id {
        if self.op_of(id) == Op::Concat && !self.nodes[id].sub.is_empty() {
            if reuse {
                self.reuse(self.nodes[id].sub[0]);
            }
            self.nodes[id].sub.remove(0);
            match self.nodes[id].sub.len() {
                0 => {
                    self.nodes[id].op = Op::EmptyMatch;
                    self.nodes[id].sub.clear();
                }
                1 => {
                    let only = self.nodes[id].sub[0];
                    self.reuse(id);
                    return only;
                }
                _ => {}
            }
            return id;
        }
        if reuse {
            self.reuse(id);
        }
        self.new_node(Op::EmptyMatch)
    }

    /// Go's `Regexp.Equal`: the same structure.
    pub(super) fn equal(&self, x: Id, y: Id) -> bool {
        let (a, b) = (&self.nodes[x], &self.nodes[y]);
        if a.op != b.op {
            return false;
        }
        stacker::maybe_grow(64 * 1024, 1 << 20, || match a.op {
            Op::EndText => a.flags & WAS_DOLLAR == b.flags & WAS_DOLLAR,
            Op::Literal | Op::CharClass => {
                a.flags & FOLD_CASE == b.flags & FOLD_CASE && a.runes == b.runes
            }
            Op::Alternate | Op::Concat => {
                a.sub.len() == b.sub.len()
                    && a.sub.iter().zip(&b.sub).all(|(&s, &t)| self.equal(s, t))
            }
            Op::Star | Op::Plus | Op::Quest => {
                a.flags & NON_GREEDY == b.flags & NON_GREEDY && self.equal(a.sub[0], b.sub[0])
            }
            Op::Repeat => {
                a.flags & NON_GREEDY == b.flags & NON_GREEDY
                    && a.min == b.min
                    && a.max == b.max
                    && self.equal(a.sub[0], b.sub[0])
            }
            Op::Capture => a.cap == b.cap && a.name == b.name && self.equal(a.sub[0], b.sub[0]),
            _ => true,
        })
    }
}
