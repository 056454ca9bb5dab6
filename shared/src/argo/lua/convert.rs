//! Values between JSON and Lua: the object handed to a script as argo-cd `util/lua/lua.go`
//! `decodeValue` converts it, and the script's result table encoded as gopher-json
//! (layeh.com/gopher-json 97fed8d) `jsonValue.MarshalJSON` encodes it for `ExecuteHealthLua`.

use super::result::LuaResult;
use crate::argo::gopher;
use mlua::{Lua, Table, Value as LuaValue};
use serde_json::Value;

/// Converts an object as argo-cd `decodeValue` does: every number a Lua number (float64), JSON
/// nulls inside arrays dropped (gopher `LTable.Append` ignores nil), null map values absent.
///
/// The walk keeps its own stack (no recursion on the calling thread). Beyond Argo: an object
/// nested more than `max_depth` levels is refused with an error naming the limit.
pub(super) fn to_lua(lua: &Lua, v: &Value, max_depth: usize) -> mlua::Result<LuaValue> {
    let root = match container(lua, v)? {
        Some(t) => t,
        None => return scalar(lua, v),
    };
    let mut stack: Vec<(Table, Children)> = vec![(root.clone(), Children::of(v))];
    while let Some((table, children)) = stack.last_mut() {
        let Some((key, child)) = children.next() else {
            stack.pop();
            continue;
        };
        let table = table.clone();
        let value = match container(lua, child)? {
            Some(t) => {
                if stack.len() >= max_depth {
                    return Err(mlua::Error::runtime(
                        "the object is nested too deeply to convert (kubectl-pacto's limit; raise Limits::max_object_depth)",
                    ));
                }
                stack.push((t.clone(), Children::of(child)));
                LuaValue::Table(t)
            }
            None => scalar(lua, child)?,
        };
        match key {
            Key::Index(i) => table.raw_set(i, value)?,
            Key::Name(k) => table.raw_set(k, value)?,
        }
    }
    Ok(LuaValue::Table(root))
}

/// A new table for an array or object, sized for it.
fn container(lua: &Lua, v: &Value) -> mlua::Result<Option<Table>> {
    Ok(match v {
        Value::Array(items) => Some(lua.create_table_with_capacity(items.len(), 0)?),
        Value::Object(map) => Some(lua.create_table_with_capacity(0, map.len())?),
        _ => None,
    })
}

fn scalar(lua: &Lua, v: &Value) -> mlua::Result<LuaValue> {
    Ok(match v {
        Value::Bool(b) => LuaValue::Boolean(*b),
        Value::Number(n) => LuaValue::Number(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => LuaValue::String(lua.create_string(s)?),
        _ => LuaValue::Nil,
    })
}

enum Key<'a> {
    Index(usize),
    Name(&'a str),
}

/// The non-null children of an array (numbered from 1 as they are appended) or an object.
enum Children<'a> {
    Array(std::slice::Iter<'a, Value>, usize),
    Object(serde_json::map::Iter<'a>),
    None,
}

impl<'a> Children<'a> {
    fn of(v: &'a Value) -> Self {
        match v {
            Value::Array(items) => Children::Array(items.iter(), 0),
            Value::Object(map) => Children::Object(map.iter()),
            _ => Children::None,
        }
    }

    fn next(&mut self) -> Option<(Key<'a>, &'a Value)> {
        match self {
            Children::Array(items, n) => {
                let item = items.find(|x| !x.is_null())?;
                *n += 1;
                Some((Key::Index(*n), item))
            }
            Children::Object(map) => map
                .find(|(_, x)| !x.is_null())
                .map(|(k, x)| (Key::Name(k.as_str()), x)),
            Children::None => None,
        }
    }
}

pub(super) fn to_result(v: LuaValue) -> mlua::Result<LuaResult> {
    Ok(match v {
        LuaValue::Nil => LuaResult::Nil,
        LuaValue::Table(t) => {
            let mut budget = ENCODE_BUDGET;
            LuaResult::Table(encode_table(&t, &mut Vec::new(), 0, &mut budget))
        }
        other => LuaResult::Other(type_name(&other)),
    })
}

fn type_name(v: &LuaValue) -> &'static str {
    match v {
        LuaValue::Nil => "nil",
        LuaValue::Boolean(_) => "boolean",
        LuaValue::Integer(_) | LuaValue::Number(_) => "number",
        LuaValue::String(_) => "string",
        LuaValue::Table(_) => "table",
        LuaValue::Function(_) => "function",
        LuaValue::Thread(_) => "thread",
        _ => "userdata",
    }
}

const MARSHAL_PREFIX: &str = "json: error calling MarshalJSON for type json.jsonValue: ";

/// Values the result encoding visits at most: a table shared along many paths would otherwise be
/// expanded on each (a DAG of 40 levels is 2^40 values). Beyond Argo, which has no such bound.
const ENCODE_BUDGET: usize = 1_000_000;

/// gopher-json `jsonValue.MarshalJSON` (layeh.com/gopher-json 97fed8d) over a result table: an
/// empty table is `[]`; a table whose first key is a number must be the sequence 1..n
/// (`cannot encode sparse array`), one whose first key is a string must have only string keys
/// (`cannot encode mixed or invalid key types`); functions and other non-data values cannot be
/// encoded; a table met again on the way down is `cannot encode recursively nested tables to
/// JSON`; NaN and infinities are rejected by Go's encoder. Each nesting level adds Go's
/// `MarshalerError` prefix, as encoding/json wraps the error of every `MarshalJSON` call.
fn encode_table(
    t: &Table,
    seen: &mut Vec<*const std::ffi::c_void>,
    depth: usize,
    budget: &mut usize,
) -> Result<Value, String> {
    let wrap = |msg: &str| format!("{}{msg}", MARSHAL_PREFIX.repeat(depth + 1));
    if depth > 1_000 {
        return Err(wrap("the returned table is nested more than 1000 levels deep (kubectl-pacto's encoding limit)"));
    }
    let ptr = t.to_pointer();
    if seen.contains(&ptr) {
        return Err(wrap("cannot encode recursively nested tables to JSON"));
    }
    let mut pairs: Vec<(LuaValue, LuaValue)> = Vec::new();
    for pair in t.clone().pairs::<LuaValue, LuaValue>() {
        pairs.push(pair.map_err(|e| e.to_string())?);
        if *budget == 0 {
            return Err(format!(
                "the returned table has more than {ENCODE_BUDGET} values (kubectl-pacto's encoding limit)"
            ));
        }
        *budget -= 1;
    }
    seen.push(ptr);
    let result = encode_pairs(pairs, seen, depth, &wrap, budget);
    seen.pop();
    result
}

/// The key rules of gopher-json's table encoding. gopher iterates the array part (positive
/// integer keys, ascending) before the hash part, so the first key is a number whenever a 1..n
/// key exists; what the hash part holds first (insertion order) cannot be seen from LuaJIT, so a
/// table mixing strings with other keys is reported as mixed.
fn encode_pairs(
    pairs: Vec<(LuaValue, LuaValue)>,
    seen: &mut Vec<*const std::ffi::c_void>,
    depth: usize,
    wrap: &dyn Fn(&str) -> String,
    budget: &mut usize,
) -> Result<Value, String> {
    if pairs.is_empty() {
        return Ok(Value::Array(Vec::new()));
    }
    let is_number = |k: &LuaValue| matches!(k, LuaValue::Integer(_) | LuaValue::Number(_));
    let all_strings = pairs.iter().all(|(k, _)| matches!(k, LuaValue::String(_)));
    if all_strings {
        let mut entries: Vec<(String, &LuaValue)> =
            pairs.iter().map(|(k, v)| (lua_string(k), v)).collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = serde_json::Map::new();
        for (k, v) in entries {
            out.insert(k, encode_value(v, seen, depth, budget)?);
        }
        return Ok(Value::Object(out));
    }
    let all_numbers = pairs.iter().all(|(k, _)| is_number(k));
    let mut ints: Vec<(i64, &LuaValue)> = pairs
        .iter()
        .filter_map(|(k, v)| positive_int(k).map(|i| (i, v)))
        .collect();
    if ints.is_empty() && !all_numbers {
        return Err(wrap("cannot encode mixed or invalid key types"));
    }
    ints.sort_by_key(|(i, _)| *i);
    let contiguous = ints
        .iter()
        .enumerate()
        .all(|(n, (i, _))| *i == n as i64 + 1);
    if !contiguous || (ints.len() < pairs.len() && all_numbers) {
        return Err(wrap("cannot encode sparse array"));
    }
    if ints.len() < pairs.len() {
        return Err(wrap("cannot encode mixed or invalid key types"));
    }
    let mut out = Vec::with_capacity(ints.len());
    for (_, v) in ints {
        out.push(encode_value(v, seen, depth, budget)?);
    }
    Ok(Value::Array(out))
}

fn encode_value(
    v: &LuaValue,
    seen: &mut Vec<*const std::ffi::c_void>,
    depth: usize,
    budget: &mut usize,
) -> Result<Value, String> {
    let wrap = |msg: &str| format!("{}{msg}", MARSHAL_PREFIX.repeat(depth + 2));
    match v {
        LuaValue::Nil => Ok(Value::Null),
        LuaValue::Boolean(b) => Ok(Value::Bool(*b)),
        LuaValue::Integer(i) => Ok(Value::from(*i)),
        LuaValue::Number(n) => serde_json::Number::from_f64(*n)
            .map(Value::Number)
            .ok_or_else(|| {
                format!(
                    "{}json: unsupported value: {}",
                    MARSHAL_PREFIX.repeat(depth + 1),
                    gopher::number_to_string(*n)
                )
            }),
        LuaValue::String(s) => Ok(Value::String(s.to_string_lossy())),
        LuaValue::Table(t) => encode_table(t, seen, depth + 1, budget),
        other => Err(wrap(&format!("cannot encode {} to JSON", type_name(other)))),
    }
}

fn positive_int(k: &LuaValue) -> Option<i64> {
    match k {
        LuaValue::Integer(i) if *i >= 1 => Some(*i),
        LuaValue::Number(n) if *n >= 1.0 && n.fract() == 0.0 && *n < 9.0e15 => Some(*n as i64),
        _ => None,
    }
}

fn lua_string(k: &LuaValue) -> String {
    match k {
        LuaValue::String(s) => s.to_string_lossy(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    //! Every expected value here comes from argo-cd `util/lua/lua.go` (at 37ee0097) and gopher-lua
    //! v1.1.2, measured on Argo's own VM setup; each test names the upstream function it follows
    //! (docs/upstream.md, "Argo CD health").
    use crate::argo::lua::testing::eval_with;
    use serde_json::json;

    /// argo-cd `decodeValue`: numbers are floats, nulls in arrays dropped, null map values absent,
    /// {} and [] both empty tables.
    #[test]
    fn object_conversion() {
        let obj = json!({"a": [1, null, 3], "m": {"x": null, "y": 2}, "e": {}, "l": [], "big": 9007199254740993_i64, "f": 1.5});
        let src = "return {status = 'Healthy', message = #obj.a .. ' ' .. obj.a[2] .. ' ' .. tostring(obj.m.x) .. ' ' .. #obj.e .. #obj.l .. ' ' .. tostring(next(obj.e)) .. ' ' .. obj.big .. ' ' .. obj.f}";
        assert_eq!(
            eval_with(src, &obj, false).unwrap().message,
            "2 3 nil 00 nil 9007199254740992 1.5"
        );
    }
}
