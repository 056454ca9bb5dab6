//! The values of the fast evaluator and cel-go's equality and ordering on them.

use super::super::bounds::json_size;
use serde_json::{Map, Value as Json};
use std::rc::Rc;

/// A value of the subset, borrowing from the object or the program.
#[derive(Debug, Clone)]
pub(super) enum V<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(&'a str),
    Json(&'a [Json]),
    Obj(&'a Map<String, Json>),
    Items(Rc<Vec<V<'a>>>),
}

/// Doubles represent every integer up to this magnitude exactly; beyond it, int/double
/// comparisons are left to the cel-rust path.
const EXACT_INT: i64 = 1 << 53;

/// How deep `==` follows nested lists and maps before giving up (the stack stays small).
const MAX_EQUAL_DEPTH: usize = 64;

/// The entry `k` of `m`: small maps (most of a Kubernetes object's) are scanned, which is
/// faster than hashing the key.
pub(crate) fn get<'a>(m: &'a Map<String, Json>, k: &str) -> Option<&'a Json> {
    if m.len() <= 8 {
        m.iter().find(|(key, _)| same(key, k)).map(|(_, v)| v)
    } else {
        m.get(k)
    }
}

/// String equality for the short strings of field names and enum-like values, compared a word
/// at a time in place (no library call).
#[inline]
pub(super) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    for (x, y) in (&mut ca).zip(&mut cb) {
        let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().expect("eight bytes"));
        if word(x) != word(y) {
            return false;
        }
    }
    ca.remainder()
        .iter()
        .zip(cb.remainder())
        .all(|(x, y)| x == y)
}

pub(super) fn json<'a>(v: &'a Json) -> V<'a> {
    match v {
        Json::Null => V::Null,
        Json::Bool(b) => V::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => V::Int(i),
            None => V::Double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => V::Str(s),
        Json::Array(items) => V::Json(items),
        Json::Object(m) => V::Obj(m),
    }
}

/// `bounds::val_size` of the CEL value `v` stands for.
pub(super) fn v_size(v: &V<'_>) -> u64 {
    match v {
        V::Str(s) => s.len() as u64,
        V::Json(items) => items
            .iter()
            .fold(0u64, |acc, e| acc.saturating_add(8 + json_size(e))),
        V::Obj(m) => m.iter().fold(0u64, |acc, (k, v)| {
            acc.saturating_add(16 + k.len() as u64 + json_size(v))
        }),
        V::Items(items) => items
            .iter()
            .fold(0u64, |acc, e| acc.saturating_add(8 + v_size(e))),
        _ => 8,
    }
}

/// `x in list`: cel-go's `Contains`, heterogeneous equality element by element.
pub(super) fn contains<'a>(items: impl Iterator<Item = V<'a>>, x: &V<'a>) -> Option<bool> {
    let mut known = true;
    for item in items {
        match equal(&item, x, 0) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => known = false,
        }
    }
    known.then_some(false)
}

fn int_double_exact(i: i64, d: f64) -> Option<(f64, f64)> {
    (i.unsigned_abs() <= EXACT_INT as u64 && d.is_finite()).then_some((i as f64, d))
}

/// cel-go v0.26 heterogeneous equality (`common/types` `Equal`): numbers compare across int and
/// double, values of different kinds are unequal, lists and maps compare element by element.
/// Nested values deeper than [`MAX_EQUAL_DEPTH`] are left to the cel-rust path.
pub(super) fn equal(a: &V<'_>, b: &V<'_>, depth: usize) -> Option<bool> {
    if depth > MAX_EQUAL_DEPTH {
        return None;
    }
    Some(match (a, b) {
        (V::Null, V::Null) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Int(x), V::Int(y)) => x == y,
        (V::Double(x), V::Double(y)) => x == y,
        (V::Int(i), V::Double(d)) | (V::Double(d), V::Int(i)) => {
            let (x, y) = int_double_exact(*i, *d)?;
            x == y
        }
        (V::Str(x), V::Str(y)) => same(x, y),
        (V::Obj(x), V::Obj(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let mut known = true;
            for (k, v) in x.iter() {
                let Some(w) = y.get(k) else {
                    return Some(false);
                };
                match equal(&json(v), &json(w), depth + 1) {
                    Some(true) => {}
                    Some(false) => return Some(false),
                    None => known = false,
                }
            }
            return known.then_some(true);
        }
        (V::Json(_) | V::Items(_), V::Json(_) | V::Items(_)) => {
            let xs = list_items(a);
            let ys = list_items(b);
            if xs.len() != ys.len() {
                return Some(false);
            }
            let mut known = true;
            for (x, y) in xs.iter().zip(ys.iter()) {
                match equal(x, y, depth + 1) {
                    Some(true) => {}
                    Some(false) => return Some(false),
                    None => known = false,
                }
            }
            return known.then_some(true);
        }
        // A map against a list, a string against a number, ...: different kinds
        (V::Obj(_), V::Json(_) | V::Items(_)) | (V::Json(_) | V::Items(_), V::Obj(_)) => false,
        _ if kind(a) != kind(b) => false,
        _ => return None,
    })
}

fn list_items<'a>(v: &V<'a>) -> Vec<V<'a>> {
    match v {
        V::Json(items) => items.iter().map(json).collect(),
        V::Items(items) => items.as_ref().clone(),
        _ => Vec::new(),
    }
}

fn kind(v: &V<'_>) -> u8 {
    match v {
        V::Null => 0,
        V::Bool(_) => 1,
        V::Int(_) | V::Double(_) => 2,
        V::Str(_) => 3,
        V::Json(_) | V::Items(_) => 4,
        V::Obj(_) => 5,
    }
}

/// cel-go's ordering: numbers across int and double (`CrossTypeNumericComparisons`), strings
/// bytewise, bools (`false < true`); anything else is an error (not known here).
pub(super) fn order(a: &V<'_>, b: &V<'_>) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        (V::Double(x), V::Double(y)) => x.partial_cmp(y),
        (V::Int(i), V::Double(d)) => {
            let (x, y) = int_double_exact(*i, *d)?;
            x.partial_cmp(&y)
        }
        (V::Double(d), V::Int(i)) => {
            let (y, x) = int_double_exact(*i, *d)?;
            x.partial_cmp(&y)
        }
        (V::Str(x), V::Str(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (V::Bool(x), V::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}
