//! Go's bounds on a parse (`regexp/syntax/parse.go`: `checkLimits`, `checkSize`, `calcSize`,
//! `checkHeight`, `calcHeight`, `repeatIsValid`): at most 33,554,432 class runes in all
//! (`maxRunes`, about 26,000 `\pL`), at most 3,355,443 compiled instructions (`maxSize`: 128 MB
//! of Go's 40-byte instructions), a tree at most 1,000 levels high (`maxHeight`), and no
//! repetition that, nested in others, makes more than 1,000 copies of what it repeats.
//!
//! As in Go, size and height are only measured once enough nodes exist to possibly exceed them,
//! and each node's measure is remembered from when it was first taken; the same nodes are
//! measured at the same points, so a pattern is refused exactly when Go refuses it.

use super::error::{Error, ErrorCode};
use super::tree::{Id, Op, Parser};

const MAX_HEIGHT: usize = 1000;
/// Go's `maxSize`: `128 << 20 / instSize` with 40-byte instructions.
const MAX_SIZE: i64 = (128 << 20) / 40;
/// Go's `maxRunes`: `128 << 20 / runeSize` with 4-byte runes.
const MAX_RUNES: usize = (128 << 20) / 4;
/// At most this many copies of anything nested repetitions make (Go's `repeatIsValid(re, 1000)`).
pub(super) const MAX_REPEAT: i32 = 1000;

impl Parser<'_> {
    /// Go's `checkLimits`, after a node is pushed or built.
    pub(super) fn check_limits(&mut self, id: Id) -> Result<(), Error> {
        if self.num_runes > MAX_RUNES {
            return Err(self.too_large(ErrorCode::Large));
        }
        self.check_size(id)?;
        self.check_height(id)
    }

    fn too_large(&self, code: ErrorCode) -> Error {
        Error::syntax(code, self.whole)
    }

    fn check_size(&mut self, id: Id) -> Result<(), Error> {
        if self.size.is_none() {
            // Not measuring yet: the product of all repeat counts so far bounds how large the
            // nodes made so far can be.
            if self.repeats == 0 {
                self.repeats = 1;
            }
            let node = &self.nodes[id];
            if node.op == Op::Repeat {
                let mut n = if node.max == -1 { node.min } else { node.max };
                if n <= 0 {
                    n = 1;
                }
                if i64::from(n) > MAX_SIZE / self.repeats {
                    self.repeats = MAX_SIZE;
                } else {
                    self.repeats *= i64::from(n);
                }
            }
            if (self.num_regexp() as i64) < MAX_SIZE / self.repeats {
                return Ok(());
            }
            self.size = Some(Default::default());
            for sid in self.stack.clone() {
                self.check_size(sid)?;
            }
        }
        if self.calc_size(id, true) > MAX_SIZE {
            return Err(self.too_large(ErrorCode::Large));
        }
        Ok(())
    }

    /// The instructions `id` compiles to, remembered per node (`force` measures again).
    fn calc_size(&mut self, id: Id, force: bool) -> i64 {
        if !force {
            if let Some(s) = self.size.as_ref().and_then(|m| m.get(id)) {
                return s;
            }
        }
        let node = &self.nodes[id];
        let (op, min, max) = (node.op, i64::from(node.min), i64::from(node.max));
        let subs = node.sub.clone();
        let runes = node.runes.len() as i64;
        let size = stacker::maybe_grow(64 * 1024, 1 << 20, || match op {
            Op::Literal => runes,
            Op::Capture | Op::Star => 2 + self.calc_size(subs[0], false),
            Op::Plus | Op::Quest => 1 + self.calc_size(subs[0], false),
            Op::Concat => subs.iter().map(|&s| self.calc_size(s, false)).sum(),
            Op::Alternate => {
                let sum: i64 = subs.iter().map(|&s| self.calc_size(s, false)).sum();
                sum + (subs.len() as i64 - 1).max(0)
            }
            Op::Repeat => {
                let sub = self.calc_size(subs[0], false);
                if max == -1 {
                    if min == 0 {
                        2 + sub
                    } else {
                        1 + min * sub
                    }
                } else {
                    max * sub + (max - min)
                }
            }
            _ => 0,
        })
        .max(1);
        if let Some(m) = &mut self.size {
            m.insert(id, size);
        }
        size
    }

    fn check_height(&mut self, id: Id) -> Result<(), Error> {
        if self.num_regexp() < MAX_HEIGHT {
            return Ok(());
        }
        if self.height.is_none() {
            self.height = Some(Default::default());
            for sid in self.stack.clone() {
                self.check_height(sid)?;
            }
        }
        if self.calc_height(id, true) > MAX_HEIGHT as i64 {
            return Err(self.too_large(ErrorCode::NestingDepth));
        }
        Ok(())
    }

    fn calc_height(&mut self, id: Id, force: bool) -> i64 {
        if !force {
            if let Some(h) = self.height.as_ref().and_then(|m| m.get(id)) {
                return h;
            }
        }
        let subs = self.nodes[id].sub.clone();
        let h = stacker::maybe_grow(64 * 1024, 1 << 20, || {
            subs.iter()
                .map(|&s| 1 + self.calc_height(s, false))
                .fold(1, i64::max)
        });
        if let Some(m) = &mut self.height {
            m.insert(id, h);
        }
        h
    }

    /// Go's `repeatIsValid`: whether the repetitions in `id`, nested, make at most `n` copies
    /// of what they repeat.
    pub(super) fn repeat_is_valid(&self, id: Id, mut n: i32) -> bool {
        let node = &self.nodes[id];
        if node.op == Op::Repeat {
            let mut m = node.max;
            if m == 0 {
                return true;
            }
            if m < 0 {
                m = node.min;
            }
            if m > n {
                return false;
            }
            if m > 0 {
                n /= m;
            }
        }
        stacker::maybe_grow(64 * 1024, 1 << 20, || {
            node.sub.iter().all(|&s| self.repeat_is_valid(s, n))
        })
    }
}
