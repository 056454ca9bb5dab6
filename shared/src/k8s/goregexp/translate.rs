//! A Go parse tree as the regex crate's own tree (`regex_syntax::hir::Hir`), matched by the
//! regex crate's engine (`regex_automata::meta`, the engine behind `regex::Regex`), built from
//! the tree directly so nothing is parsed twice.
//!
//! Every class is spelled out as Go's ranges, so `\w` is `[0-9A-Za-z_]`, `\s` is
//! `[\t\n\f\r ]` and `.` is every character but `\n`, as in Go; a case-folded literal is the
//! class of its case orbit; `\b` and `\B` are the ASCII word boundaries, `^`/`$` the text's
//! start and end (`(?m)`: a line's, at `\n`). Captures are left out: only whether a string
//! matches is asked.
//!
//! Bounded: a tree of more than [`MAX_ITEMS`] runes, ranges and operators, or whose automaton
//! would take more than [`NFA_SIZE_LIMIT`] bytes, is refused as too large rather than built.

use std::collections::HashMap;

use regex_automata::meta;
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition};

use super::error::Error;
use super::tree::{Id, Op, Tree, FOLD_CASE, NON_GREEDY};
use super::unicode;

/// At most this many literal runes, class ranges and operators are translated.
pub(super) const MAX_ITEMS: usize = 1 << 18;
/// At most this many bytes of the compiled automaton.
pub(super) const NFA_SIZE_LIMIT: usize = 4 << 20;

/// The matcher of `tree`.
pub(super) fn compile(tree: &Tree) -> Result<meta::Regex, Error> {
    let items: usize = tree
        .nodes
        .iter()
        .map(|n| {
            1 + if n.op == Op::CharClass {
                n.runes.len() / 2
            } else {
                n.runes.len()
            }
        })
        .sum();
    if items > MAX_ITEMS {
        return Err(Error::TooLarge(format!(
            "Go accepts this pattern, but at {items} runes, ranges and operators it is larger than this tool evaluates (at most {MAX_ITEMS})"
        )));
    }
    // The regex crate compiles its tree recursively: give it stack for the tree's height.
    let red_zone = 256 * 1024 + height(tree) * STACK_PER_LEVEL;
    stacker::maybe_grow(red_zone, red_zone.max(1 << 20) * 2, || {
        let mut orbits = HashMap::new();
        let hir = to_hir(tree, tree.root, &mut orbits);
        meta::Regex::builder()
            .configure(
                meta::Config::new()
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                    .which_captures(regex_automata::nfa::thompson::WhichCaptures::None),
            )
            .build_from_hir(&hir)
            .map_err(|e| match e.size_limit() {
                Some(limit) => Error::TooLarge(format!(
                    "Go accepts this pattern, but its automaton is larger than this tool evaluates (at most {limit} bytes)"
                )),
                None => Error::TooLarge(format!(
                    "Go accepts this pattern, but this tool cannot evaluate it: {e}"
                )),
            })
    })
}

/// Stack the regex crate's compiler may take per level of a tree (generous: unoptimised builds
/// have large frames).
const STACK_PER_LEVEL: usize = 32 * 1024;

/// The tree's height, counted without recursion.
fn height(tree: &Tree) -> usize {
    let mut deepest = 0;
    let mut todo = vec![(tree.root, 1)];
    while let Some((id, depth)) = todo.pop() {
        deepest = deepest.max(depth);
        todo.extend(tree.nodes[id].sub.iter().map(|&s| (s, depth + 1)));
    }
    deepest
}

fn to_hir(tree: &Tree, id: Id, orbits: &mut HashMap<i32, Hir>) -> Hir {
    let node = &tree.nodes[id];
    let sub = |orbits: &mut HashMap<i32, Hir>, i: usize| {
        stacker::maybe_grow(256 * 1024, 16 << 20, || to_hir(tree, node.sub[i], orbits))
    };
    match node.op {
        Op::NoMatch => Hir::fail(),
        Op::EmptyMatch => Hir::empty(),
        Op::Literal => {
            let folded = node.flags & FOLD_CASE != 0;
            Hir::concat(
                node.runes
                    .iter()
                    .map(|&r| rune(r, folded, orbits))
                    .collect(),
            )
        }
        Op::CharClass => class(&node.runes),
        Op::AnyCharNotNl => class(&[0, 9, 11, 0x10FFFF]),
        Op::AnyChar => class(&[0, 0x10FFFF]),
        Op::BeginLine => Hir::look(Look::StartLF),
        Op::EndLine => Hir::look(Look::EndLF),
        Op::BeginText => Hir::look(Look::Start),
        Op::EndText => Hir::look(Look::End),
        Op::WordBoundary => Hir::look(Look::WordAscii),
        Op::NoWordBoundary => Hir::look(Look::WordAsciiNegate),
        Op::Capture => sub(orbits, 0),
        Op::Star | Op::Plus | Op::Quest | Op::Repeat => {
            let (min, max) = match node.op {
                Op::Star => (0, None),
                Op::Plus => (1, None),
                Op::Quest => (0, Some(1)),
                _ => (node.min.max(0) as u32, u32::try_from(node.max).ok()),
            };
            Hir::repetition(Repetition {
                min,
                max,
                greedy: node.flags & NON_GREEDY == 0,
                sub: Box::new(sub(orbits, 0)),
            })
        }
        Op::Concat => Hir::concat((0..node.sub.len()).map(|i| sub(orbits, i)).collect()),
        Op::Alternate => Hir::alternation((0..node.sub.len()).map(|i| sub(orbits, i)).collect()),
        // Pseudo-operators never reach a finished tree.
        Op::LeftParen | Op::VerticalBar => Hir::fail(),
    }
}

/// One literal rune: itself, or under `(?i)` the class of its case orbit. A surrogate, which
/// no string holds, matches nothing.
fn rune(r: i32, folded: bool, orbits: &mut HashMap<i32, Hir>) -> Hir {
    if folded {
        return orbits
            .entry(r)
            .or_insert_with(|| {
                let orbit: Vec<i32> = unicode::orbit(r).iter().flat_map(|&o| [o, o]).collect();
                class(&orbit)
            })
            .clone();
    }
    match u32::try_from(r).ok().and_then(char::from_u32) {
        Some(c) => Hir::literal(c.to_string().into_bytes()),
        None => Hir::fail(),
    }
}

/// A class of Go rune pairs; the surrogates, which no string holds, are left out.
fn class(runes: &[i32]) -> Hir {
    let ranges = runes.chunks_exact(2).filter_map(|p| {
        let lo = if (0xD800..=0xDFFF).contains(&p[0]) {
            0xE000
        } else {
            p[0]
        };
        let hi = if (0xD800..=0xDFFF).contains(&p[1]) {
            0xD7FF
        } else {
            p[1]
        };
        let (lo, hi) = (char::from_u32(lo as u32)?, char::from_u32(hi as u32)?);
        (lo <= hi).then(|| ClassUnicodeRange::new(lo, hi))
    });
    Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
}
