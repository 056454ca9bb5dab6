//! `table.sort` as gopher-lua v1.1.2 runs it (`tablelib.go` `tableSort`, `table.go`
//! `lValueArraySorter`): Go's `sort.Sort` (pattern-defeating quicksort, Go `sort/zsortinterface.go`
//! and `sort/sort.go`) over the table's array part, comparing with the script's function or with
//! gopher's `lessThan` (`vm.go`): numbers with numbers, strings with strings byte-wise, tables
//! and userdata through one shared `__lt`, anything else `attempt to compare nil with number`.
//! The comparisons a list with holes or an inconsistent comparator leads to are Go's, so the
//! errors (and results) are the ones Argo CD shows.
//!
//! The array part is read as `1..n` with `n` gopher's length (the prelude's, see
//! [`prelude::table_len`]), sorted in a copy and written back, also when a comparison
//! fails half-way (Go sorts in place). Beyond gopher: without a comparator, the deadline is
//! checked every few thousand comparisons; a comparator runs Lua code, which the hook stops.

use super::prelude;
use super::sandbox::where_;
use super::strlib::type_name;
use mlua::{Function, Lua, MultiValue, Table, Value as LuaValue};

/// Installs `sort` in `tablelib`; `expired` tells whether the evaluation's time is up.
pub(super) fn install(
    lua: &Lua,
    tablelib: &Table,
    expired: std::rc::Rc<dyn Fn() -> bool>,
) -> mlua::Result<()> {
    let sort = lua.create_function(move |lua, args: MultiValue| {
        let t = match args.front() {
            Some(LuaValue::Table(t)) => t.clone(),
            other => {
                let got = other.map(type_name).unwrap_or("nil");
                return Err(raise(
                    lua,
                    &format!("bad argument #1 to sort (table expected, got {got})"),
                ));
            }
        };
        let cmp = if args.len() != 1 {
            match args.get(1) {
                Some(LuaValue::Function(f)) => Some(f.clone()),
                other => {
                    let got = other.map(type_name).unwrap_or("nil");
                    return Err(raise(
                        lua,
                        &format!("bad argument #2 to sort (function expected, got {got})"),
                    ));
                }
            }
        } else {
            None
        };
        sort_table(lua, &t, cmp, &*expired)
    })?;
    tablelib.raw_set("sort", sort)
}

fn raise(lua: &Lua, msg: &str) -> mlua::Error {
    mlua::Error::runtime(format!("{}{msg}", where_(lua)))
}

fn sort_table(
    lua: &Lua,
    t: &Table,
    cmp: Option<Function>,
    expired: &dyn Fn() -> bool,
) -> mlua::Result<()> {
    let n = prelude::table_len(lua, t)?;
    let mut values = Vec::with_capacity(n);
    for i in 1..=n {
        values.push(t.raw_get::<LuaValue>(i)?);
    }
    let mut s = Sorter {
        lua,
        values,
        cmp,
        expired,
        count: 0,
    };
    let result = go_sort(&mut s);
    for (i, v) in s.values.into_iter().enumerate() {
        t.raw_set(i + 1, v)?;
    }
    result
}

struct Sorter<'a> {
    lua: &'a Lua,
    values: Vec<LuaValue>,
    cmp: Option<Function>,
    expired: &'a dyn Fn() -> bool,
    count: u32,
}

impl Sorter<'_> {
    fn swap(&mut self, i: usize, j: usize) {
        self.values.swap(i, j);
    }

    /// gopher `lValueArraySorter.Less`.
    fn less(&mut self, i: usize, j: usize) -> mlua::Result<bool> {
        let (a, b) = (self.values[i].clone(), self.values[j].clone());
        if let Some(f) = &self.cmp {
            let r: LuaValue = f.call((a, b))?;
            return Ok(!matches!(r, LuaValue::Nil | LuaValue::Boolean(false)));
        }
        self.count += 1;
        if self.count >= 4096 {
            self.count = 0;
            if (self.expired)() {
                return Err(raise(self.lua, "context deadline exceeded"));
            }
        }
        less_than(self.lua, &a, &b)
    }
}

fn number(v: &LuaValue) -> Option<f64> {
    match v {
        LuaValue::Number(x) => Some(*x),
        LuaValue::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// gopher `vm.go` `lessThan` and `objectRationalWithError`.
fn less_than(lua: &Lua, a: &LuaValue, b: &LuaValue) -> mlua::Result<bool> {
    let fail = || {
        raise(
            lua,
            &format!("attempt to compare {} with {}", type_name(a), type_name(b)),
        )
    };
    if let Some(x) = number(a) {
        return number(b).map(|y| x < y).ok_or_else(fail);
    }
    if type_name(a) != type_name(b) {
        return Err(fail());
    }
    match (a, b) {
        (LuaValue::String(x), LuaValue::String(y)) => Ok(x.as_bytes() < y.as_bytes()),
        (LuaValue::Table(x), LuaValue::Table(y)) => {
            let h1 = x.metatable().map(|m| m.raw_get::<LuaValue>("__lt"));
            let h2 = y.metatable().map(|m| m.raw_get::<LuaValue>("__lt"));
            match (h1, h2) {
                (Some(Ok(LuaValue::Function(f))), Some(Ok(LuaValue::Function(g)))) if f == g => {
                    let r: LuaValue = f.call((a.clone(), b.clone()))?;
                    Ok(!matches!(r, LuaValue::Nil | LuaValue::Boolean(false)))
                }
                _ => Err(fail()),
            }
        }
        _ => Err(fail()),
    }
}

/// Go `sort.Sort`: `pdqsort(data, 0, n, bits.Len(n))`.
fn go_sort(s: &mut Sorter) -> mlua::Result<()> {
    let n = s.values.len();
    if n <= 1 {
        return Ok(());
    }
    let limit = usize::BITS - n.leading_zeros();
    pdqsort(s, 0, n, limit)
}

fn insertion_sort(s: &mut Sorter, a: usize, b: usize) -> mlua::Result<()> {
    for i in a + 1..b {
        let mut j = i;
        while j > a && s.less(j, j - 1)? {
            s.swap(j, j - 1);
            j -= 1;
        }
    }
    Ok(())
}

fn sift_down(s: &mut Sorter, lo: usize, hi: usize, first: usize) -> mlua::Result<()> {
    let mut root = lo;
    loop {
        let mut child = 2 * root + 1;
        if child >= hi {
            return Ok(());
        }
        if child + 1 < hi && s.less(first + child, first + child + 1)? {
            child += 1;
        }
        if !s.less(first + root, first + child)? {
            return Ok(());
        }
        s.swap(first + root, first + child);
        root = child;
    }
}

fn heap_sort(s: &mut Sorter, a: usize, b: usize) -> mlua::Result<()> {
    let (first, lo, hi) = (a, 0, b - a);
    let mut i = (hi as isize - 1) / 2;
    while i >= 0 {
        sift_down(s, i as usize, hi, first)?;
        i -= 1;
    }
    let mut i = hi as isize - 1;
    while i >= 0 {
        s.swap(first, first + i as usize);
        sift_down(s, lo, i as usize, first)?;
        i -= 1;
    }
    Ok(())
}

#[derive(PartialEq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

fn pdqsort(s: &mut Sorter, mut a: usize, mut b: usize, mut limit: u32) -> mlua::Result<()> {
    const MAX_INSERTION: usize = 12;
    let (mut was_balanced, mut was_partitioned) = (true, true);
    loop {
        let length = b - a;
        if length <= MAX_INSERTION {
            return insertion_sort(s, a, b);
        }
        if limit == 0 {
            return heap_sort(s, a, b);
        }
        if !was_balanced {
            break_patterns(s, a, b);
            limit -= 1;
        }
        let (mut pivot, mut hint) = choose_pivot(s, a, b)?;
        if hint == Hint::Decreasing {
            reverse_range(s, a, b);
            pivot = (b - 1) - (pivot - a);
            hint = Hint::Increasing;
        }
        if was_balanced
            && was_partitioned
            && hint == Hint::Increasing
            && partial_insertion_sort(s, a, b)?
        {
            return Ok(());
        }
        if a > 0 && !s.less(a - 1, pivot)? {
            a = partition_equal(s, a, b, pivot)?;
            continue;
        }
        let (mid, already) = partition(s, a, b, pivot)?;
        was_partitioned = already;
        let (left, right) = (mid - a, b - mid);
        let threshold = length / 8;
        if left < right {
            was_balanced = left >= threshold;
            pdqsort(s, a, mid, limit)?;
            a = mid + 1;
        } else {
            was_balanced = right >= threshold;
            pdqsort(s, mid + 1, b, limit)?;
            b = mid;
        }
    }
}

fn partition(s: &mut Sorter, a: usize, b: usize, pivot: usize) -> mlua::Result<(usize, bool)> {
    s.swap(a, pivot);
    let (mut i, mut j) = (a as isize + 1, b as isize - 1);
    while i <= j && s.less(i as usize, a)? {
        i += 1;
    }
    while i <= j && !s.less(j as usize, a)? {
        j -= 1;
    }
    if i > j {
        s.swap(j as usize, a);
        return Ok((j as usize, true));
    }
    s.swap(i as usize, j as usize);
    i += 1;
    j -= 1;
    loop {
        while i <= j && s.less(i as usize, a)? {
            i += 1;
        }
        while i <= j && !s.less(j as usize, a)? {
            j -= 1;
        }
        if i > j {
            break;
        }
        s.swap(i as usize, j as usize);
        i += 1;
        j -= 1;
    }
    s.swap(j as usize, a);
    Ok((j as usize, false))
}

fn partition_equal(s: &mut Sorter, a: usize, b: usize, pivot: usize) -> mlua::Result<usize> {
    s.swap(a, pivot);
    let (mut i, mut j) = (a as isize + 1, b as isize - 1);
    loop {
        while i <= j && !s.less(a, i as usize)? {
            i += 1;
        }
        while i <= j && s.less(a, j as usize)? {
            j -= 1;
        }
        if i > j {
            break;
        }
        s.swap(i as usize, j as usize);
        i += 1;
        j -= 1;
    }
    Ok(i as usize)
}

fn partial_insertion_sort(s: &mut Sorter, a: usize, b: usize) -> mlua::Result<bool> {
    const MAX_STEPS: usize = 5;
    const SHORTEST_SHIFTING: usize = 50;
    let mut i = a + 1;
    for _ in 0..MAX_STEPS {
        while i < b && !s.less(i, i - 1)? {
            i += 1;
        }
        if i == b {
            return Ok(true);
        }
        if b - a < SHORTEST_SHIFTING {
            return Ok(false);
        }
        s.swap(i, i - 1);
        if i - a >= 2 {
            let mut j = i - 1;
            while j >= 1 {
                if !s.less(j, j - 1)? {
                    break;
                }
                s.swap(j, j - 1);
                j -= 1;
            }
        }
        if b - i >= 2 {
            let mut j = i + 1;
            while j < b {
                if !s.less(j, j - 1)? {
                    break;
                }
                s.swap(j, j - 1);
                j += 1;
            }
        }
    }
    Ok(false)
}

fn break_patterns(s: &mut Sorter, a: usize, b: usize) {
    let length = b - a;
    if length >= 8 {
        let mut random = length as u64;
        let modulus = 1usize << (usize::BITS - length.leading_zeros());
        let first = a + (length / 4) * 2 - 1;
        for idx in first..=a + (length / 4) * 2 + 1 {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            let mut other = (random as usize) & (modulus - 1);
            if other >= length {
                other -= length;
            }
            s.swap(idx, a + other);
        }
    }
}

fn choose_pivot(s: &mut Sorter, a: usize, b: usize) -> mlua::Result<(usize, Hint)> {
    const SHORTEST_NINTHER: usize = 50;
    const MAX_SWAPS: usize = 4 * 3;
    let l = b - a;
    let mut swaps = 0;
    let (mut i, mut j, mut k) = (a + l / 4, a + l / 4 * 2, a + l / 4 * 3);
    if l >= 8 {
        if l >= SHORTEST_NINTHER {
            i = median(s, i - 1, i, i + 1, &mut swaps)?;
            j = median(s, j - 1, j, j + 1, &mut swaps)?;
            k = median(s, k - 1, k, k + 1, &mut swaps)?;
        }
        j = median(s, i, j, k, &mut swaps)?;
    }
    Ok(match swaps {
        0 => (j, Hint::Increasing),
        MAX_SWAPS => (j, Hint::Decreasing),
        _ => (j, Hint::Unknown),
    })
}

fn order2(s: &mut Sorter, a: usize, b: usize, swaps: &mut usize) -> mlua::Result<(usize, usize)> {
    if s.less(b, a)? {
        *swaps += 1;
        return Ok((b, a));
    }
    Ok((a, b))
}

fn median(s: &mut Sorter, a: usize, b: usize, c: usize, swaps: &mut usize) -> mlua::Result<usize> {
    let (a, b) = order2(s, a, b, swaps)?;
    let (b, c) = order2(s, b, c, swaps)?;
    let (_, b) = order2(s, a, b, swaps)?;
    let _ = c;
    Ok(b)
}

fn reverse_range(s: &mut Sorter, a: usize, b: usize) {
    let (mut i, mut j) = (a, b - 1);
    while i < j {
        s.swap(i, j);
        i += 1;
        j -= 1;
    }
}

#[cfg(test)]
mod tests {
    //! Expected values follow gopher-lua v1.1.2 `tablelib.go`/`table.go`/`vm.go` and Go's
    //! `sort.Sort` (insertion sort below 13 elements, pdqsort above).
    use crate::argo::lua::testing::{eval, msg};

    #[test]
    fn sort_as_gopher() {
        for (expr, want) in [
            ("(function() local t = {3, 1, 2} table.sort(t) return table.concat(t, ',') end)()", "1,2,3"),
            ("(function() local t = {'b', 'a', 'C'} table.sort(t) return table.concat(t, ',') end)()", "C,a,b"),
            ("(function() local t = {1, 3, 2} table.sort(t, function(a, b) return a > b end) return table.concat(t, ',') end)()", "3,2,1"),
            // 100 numbers in reverse: pdqsort's decreasing hint path.
            ("(function() local t = {} for i = 100, 1, -1 do t[#t + 1] = i end table.sort(t) return t[1] .. ',' .. t[50] .. ',' .. t[100] end)()", "1,50,100"),
            // An inconsistent comparator: Go's sort gives an order, no error (PUC Lua raises
            // "invalid order function for sorting").
            ("(function() local t = {} for i = 1, 40 do t[i] = i % 7 end table.sort(t, function(a, b) return true end) return tostring(#t) end)()", "40"),
        ] {
            assert_eq!(msg(expr, false), want, "{expr}");
        }
    }

    #[test]
    fn sort_errors_as_gopher() {
        // A hole: insertion sort compares t[2] (nil) with t[1] first.
        assert_eq!(
            eval("local t = {3, nil, 1} table.sort(t)").unwrap_err(),
            "<string>:1: attempt to compare nil with number"
        );
        assert_eq!(
            eval("local t = {1, 'x'} table.sort(t)").unwrap_err(),
            "<string>:1: attempt to compare string with number"
        );
        assert_eq!(
            eval("local t = {{}, {}} table.sort(t)").unwrap_err(),
            "<string>:1: attempt to compare table with table"
        );
        assert_eq!(
            eval("table.sort(nil)").unwrap_err(),
            "<string>:1: bad argument #1 to sort (table expected, got nil)"
        );
    }
}
