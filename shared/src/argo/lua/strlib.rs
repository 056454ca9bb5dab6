//! The parts of gopher-lua's string library (gopher-lua v1.1.2 `stringlib.go`) that open-libs
//! scripts see differently from LuaJIT's: `find`, `match`, `gmatch`, `gsub` on gopher's pattern
//! engine ([`super::pattern`]), `rep` (Go `strings.Repeat`, no separator), and `lower`/`upper`
//! (Go `strings.ToLower`/`ToUpper`: Unicode, one rune for one rune). Argument errors read as
//! gopher's `LState.TypeError`: `bad argument #1 to find (string expected, got nil)`.
//!
//! Every one of them is bounded: pattern searches stop at the evaluation's deadline and keep
//! matches within the memory cap, and `rep` refuses a result larger than the memory cap, so no
//! library call can outlast the time limit.

use super::pattern::{self, Budget, Match, Pattern, PatternError};
use super::sandbox::where_;
use super::strbyte;
use crate::argo::gopher;
use mlua::{Function, Lua, LuaString, MultiValue, Table, Value as LuaValue};
use std::rc::Rc;

/// What the string functions need from the evaluation: whether its time is up, and its memory cap.
#[derive(Clone)]
pub(super) struct Bounds {
    pub(super) expired: Rc<dyn Fn() -> bool>,
    pub(super) memory_bytes: Rc<std::cell::Cell<usize>>,
}

/// Replaces `find`, `match`, `gmatch`, `gfind`, `gsub`, `rep`, `lower` and `upper` in `string`,
/// and `char`, `byte` and `sub` (`strbyte`).
pub(super) fn install(lua: &Lua, string: &Table, bounds: Bounds) -> mlua::Result<()> {
    let b = bounds.clone();
    string.raw_set(
        "find",
        lua.create_function(move |lua, args: MultiValue| str_find(lua, &args, &b))?,
    )?;
    let b = bounds.clone();
    string.raw_set(
        "match",
        lua.create_function(move |lua, args: MultiValue| str_match(lua, &args, &b))?,
    )?;
    let b = bounds.clone();
    let iter = lua.create_function(|lua, args: MultiValue| gmatch_iter(lua, &args))?;
    let gmatch =
        lua.create_function(move |lua, args: MultiValue| str_gmatch(lua, &args, &b, &iter))?;
    string.raw_set("gmatch", gmatch.clone())?;
    string.raw_set("gfind", gmatch)?;
    let b = bounds.clone();
    string.raw_set(
        "gsub",
        lua.create_function(move |lua, args: MultiValue| str_gsub(lua, &args, &b))?,
    )?;
    let b = bounds;
    string.raw_set(
        "rep",
        lua.create_function(move |lua, args: MultiValue| str_rep(lua, &args, &b))?,
    )?;
    strbyte::install(lua, string)?;
    string.raw_set(
        "lower",
        lua.create_function(|lua, args: MultiValue| {
            let s = check_string(lua, &args, 1)?;
            lua.create_string(go_case(&s.as_bytes(), false))
        })?,
    )?;
    string.raw_set(
        "upper",
        lua.create_function(|lua, args: MultiValue| {
            let s = check_string(lua, &args, 1)?;
            lua.create_string(go_case(&s.as_bytes(), true))
        })?,
    )?;
    Ok(())
}

/// A runtime error at the calling script line, as gopher's `RaiseError` words it.
pub(super) fn raise(lua: &Lua, msg: &str) -> mlua::Error {
    mlua::Error::runtime(format!("{}{msg}", where_(lua)))
}

/// The name the calling line gives the running library function (gopher `rawFrameFuncName`
/// reads it from the call site too).
pub(super) fn fname(lua: &Lua) -> String {
    if let Some(name) = lua
        .inspect_stack(0, |d| d.names().name.map(|n| n.into_owned()))
        .flatten()
    {
        return name;
    }
    // A function a Go function called (pcall) has no call site: gopher names it `(anonymous)`;
    // a call site that does not name it gives `?`.
    let from_c = lua
        .inspect_stack(1, |d| d.source().what == "C")
        .unwrap_or(true);
    if from_c { "(anonymous)" } else { "?" }.into()
}

pub(super) fn type_name(v: &LuaValue) -> &'static str {
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

pub(super) fn arg(args: &MultiValue, n: usize) -> LuaValue {
    args.get(n - 1).cloned().unwrap_or(LuaValue::Nil)
}

pub(super) fn type_error(lua: &Lua, args: &MultiValue, n: usize, want: &str) -> mlua::Error {
    raise(
        lua,
        &format!(
            "bad argument #{n} to {} ({want} expected, got {})",
            fname(lua),
            type_name(&arg(args, n))
        ),
    )
}

/// gopher `CheckString`: a string, or a number in gopher's format.
pub(super) fn check_string(lua: &Lua, args: &MultiValue, n: usize) -> mlua::Result<LuaString> {
    match arg(args, n) {
        LuaValue::String(s) => Ok(s),
        LuaValue::Number(x) => lua.create_string(gopher::number_to_string(x)),
        LuaValue::Integer(i) => lua.create_string(gopher::number_to_string(i as f64)),
        _ => Err(type_error(lua, args, n, "string")),
    }
}

/// gopher `OptInt`/`CheckInt`: a number (numeric strings are refused), truncated as Go's
/// `int(LNumber)`.
pub(super) fn opt_int(
    lua: &Lua,
    args: &MultiValue,
    n: usize,
    default: Option<i64>,
) -> mlua::Result<i64> {
    match (arg(args, n), default) {
        (LuaValue::Nil, Some(d)) => Ok(d),
        (LuaValue::Number(x), _) => Ok(go_int(x)),
        (LuaValue::Integer(i), _) => Ok(i),
        _ => Err(type_error(lua, args, n, "number")),
    }
}

/// Go's `int(float64)` on amd64: truncation, with NaN and out-of-range values giving the
/// minimum int64.
pub(super) fn go_int(x: f64) -> i64 {
    if x.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

pub(super) fn truthy(v: &LuaValue) -> bool {
    !matches!(v, LuaValue::Nil | LuaValue::Boolean(false))
}

/// gopher `LValue.String()`: strings as they are, numbers in gopher's format, anything else as
/// `table: 0x...`, `true`, `nil`.
pub(super) fn as_string(v: &LuaValue) -> Vec<u8> {
    match v {
        LuaValue::String(s) => s.as_bytes().to_vec(),
        LuaValue::Number(x) => gopher::number_to_string(*x).into_bytes(),
        LuaValue::Integer(i) => gopher::number_to_string(*i as f64).into_bytes(),
        LuaValue::Boolean(b) => b.to_string().into_bytes(),
        LuaValue::Nil => b"nil".to_vec(),
        other => format!("{}: {:p}", type_name(other), other.to_pointer()).into_bytes(),
    }
}

/// gopher `LVAsString` (value.go): strings as they are, numbers in gopher's format, anything
/// else the empty string.
fn lv_as_string(v: &LuaValue) -> Vec<u8> {
    match v {
        LuaValue::String(_) | LuaValue::Number(_) | LuaValue::Integer(_) => as_string(v),
        _ => Vec::new(),
    }
}

/// gopher `luaIndex2StringIndex` for a start position.
fn start_index(len: usize, i: i64) -> i64 {
    let mut i = if i != 0 { i - 1 } else { i };
    if i < 0 {
        i += len as i64 + 1;
    }
    i.max(0)
}

fn search(
    lua: &Lua,
    pattern: &[u8],
    src: &[u8],
    offset: usize,
    limit: i64,
    bounds: &Bounds,
) -> mlua::Result<Vec<Match>> {
    let compiled = Pattern::compile(pattern).map_err(|e| pattern_error(lua, e, bounds))?;
    let expired = bounds.expired.clone();
    let check = move || expired();
    let mut budget = Budget {
        steps: 0,
        expired: &check,
        bytes: bounds.memory_bytes.get(),
    };
    pattern::find(&compiled, src, offset, limit, &mut budget)
        .map_err(|e| pattern_error(lua, e, bounds))
}

fn pattern_error(lua: &Lua, e: PatternError, bounds: &Bounds) -> mlua::Error {
    match e {
        PatternError::Pattern(m) => raise(lua, &m),
        PatternError::Expired => raise(lua, "context deadline exceeded"),
        PatternError::TooLarge => mlua::Error::MemoryError(format!(
            "the matches of one pattern search need more than {} bytes",
            bounds.memory_bytes.get()
        )),
    }
}

/// The captures of a match as values: strings, or numbers for position captures.
fn captures(lua: &Lua, m: &Match, src: &[u8], from: usize) -> mlua::Result<MultiValue> {
    let mut out = MultiValue::new();
    let mut i = from;
    while i + 1 < m.len() {
        out.push_back(capture_value(lua, m, src, i)?);
        i += 2;
    }
    Ok(out)
}

fn capture_value(lua: &Lua, m: &Match, src: &[u8], i: usize) -> mlua::Result<LuaValue> {
    Ok(if m.is_position(i) {
        LuaValue::Number(m.at(i) as f64)
    } else {
        LuaValue::String(lua.create_string(slice(src, m.at(i), m.at(i + 1)))?)
    })
}

fn slice(src: &[u8], a: usize, b: usize) -> &[u8] {
    src.get(a..b).unwrap_or(&[])
}

/// gopher `strFind`: an empty pattern gives `1, 0` wherever `init` points; `plain` only when a
/// fourth argument is given; no match gives one `nil`.
fn str_find(lua: &Lua, args: &MultiValue, bounds: &Bounds) -> mlua::Result<MultiValue> {
    let s = check_string(lua, args, 1)?;
    let p = check_string(lua, args, 2)?;
    let (s, p) = (s.as_bytes(), p.as_bytes());
    if p.is_empty() {
        return Ok(MultiValue::from_iter([
            LuaValue::Number(1.0),
            LuaValue::Number(0.0),
        ]));
    }
    let init = start_index(s.len(), opt_int(lua, args, 3, Some(1))?);
    if args.len() == 4 && truthy(&arg(args, 4)) {
        let init = init as usize;
        if init > s.len() {
            // A Go panic in gopher (its text, no position; gopher's traceback when uncaught).
            return Err(super::gopanic::raise(
                lua,
                &format!(
                    "runtime error: slice bounds out of range [{init}:{}]",
                    s.len()
                ),
            ));
        }
        let found = find_bytes(&s[init..], &p, &*bounds.expired)
            .map_err(|_| raise(lua, "context deadline exceeded"))?;
        return Ok(match found {
            None => MultiValue::from_iter([LuaValue::Nil]),
            Some(pos) => MultiValue::from_iter([
                LuaValue::Number((init + pos + 1) as f64),
                LuaValue::Number((init + pos + p.len()) as f64),
            ]),
        });
    }
    let found = search(lua, &p, &s, init as usize, 1, bounds)?;
    let Some(m) = found.first() else {
        return Ok(MultiValue::from_iter([LuaValue::Nil]));
    };
    let mut out = MultiValue::from_iter([
        LuaValue::Number((m.at(0) + 1) as f64),
        LuaValue::Number(m.at(1) as f64),
    ]);
    out.extend(captures(lua, m, &s, 2)?);
    Ok(out)
}

/// Go `strings.Index`, asking for the deadline every few thousand positions: a long needle
/// that almost matches everywhere costs its length at each position.
/// `Err(())` when the deadline passed first.
fn find_bytes(hay: &[u8], needle: &[u8], expired: &dyn Fn() -> bool) -> Result<Option<usize>, ()> {
    for (i, w) in hay.windows(needle.len()).enumerate() {
        if w == needle {
            return Ok(Some(i));
        }
        if i % 1024 == 1023 && expired() {
            return Err(());
        }
    }
    Ok(None)
}

/// gopher `strMatch`: no match returns no value at all (not `nil`).
fn str_match(lua: &Lua, args: &MultiValue, bounds: &Bounds) -> mlua::Result<MultiValue> {
    let s = check_string(lua, args, 1)?;
    let p = check_string(lua, args, 2)?;
    let (s, p) = (s.as_bytes(), p.as_bytes());
    let mut offset = opt_int(lua, args, 3, Some(1))?;
    if offset < 0 {
        offset += s.len() as i64 + 1;
    }
    let offset = (offset - 1).max(0) as usize;
    let found = search(lua, &p, &s, offset, 1, bounds)?;
    let Some(m) = found.first() else {
        return Ok(MultiValue::new());
    };
    if m.len() / 2 == 1 {
        return Ok(MultiValue::from_iter([capture_value(lua, m, &s, 0)?]));
    }
    captures(lua, m, &s, 2)
}

/// The state value of a `gmatch` (gopher `strMatchData`, a userdata): the subject, its
/// matches, and the next one to hand out.
struct GmatchState {
    src: Vec<u8>,
    matches: Vec<Match>,
    next: std::cell::Cell<usize>,
}

impl mlua::UserData for GmatchState {}

/// gopher `strGmatch`: every match is found first (within the evaluation's deadline and memory
/// cap); returns gopher's one iterator function and a userdata holding the matches.
fn str_gmatch(
    lua: &Lua,
    args: &MultiValue,
    bounds: &Bounds,
    iter: &Function,
) -> mlua::Result<MultiValue> {
    let s = check_string(lua, args, 1)?;
    let p = check_string(lua, args, 2)?;
    let src = s.as_bytes().to_vec();
    let matches = search(lua, &p.as_bytes(), &src, 0, -1, bounds)?;
    let state = lua.create_userdata(GmatchState {
        src,
        matches,
        next: std::cell::Cell::new(0),
    })?;
    Ok(MultiValue::from_iter([
        LuaValue::Function(iter.clone()),
        LuaValue::UserData(state),
    ]))
}

/// gopher `strGmatchIter`: argument 1 must be the state userdata (`CheckUserData`); hands out
/// the next match (the whole match when the pattern has no capture, else its captures), then
/// nothing, then Go's index panic for every later call.
fn gmatch_iter(lua: &Lua, args: &MultiValue) -> mlua::Result<MultiValue> {
    let state = match arg(args, 1) {
        LuaValue::UserData(ud) if ud.is::<GmatchState>() => ud,
        other => {
            return Err(raise(
                lua,
                &format!(
                    "bad argument #1 to {} (userdata expected, got {})",
                    fname(lua),
                    super::channel::lua_type(&other)
                ),
            ))
        }
    };
    let state = state.borrow::<GmatchState>()?;
    let i = state.next.get();
    state.next.set(i + 1);
    let len = state.matches.len();
    if i == len {
        return Ok(MultiValue::new());
    }
    let Some(m) = state.matches.get(i) else {
        return Err(super::gopanic::raise(
            lua,
            &format!("runtime error: index out of range [{i}] with length {len}"),
        ));
    };
    if m.len() == 2 {
        return Ok(MultiValue::from_iter([capture_value(
            lua, m, &state.src, 0,
        )?]));
    }
    captures(lua, m, &state.src, 2)
}

/// gopher `capturedString` with `checkCaptureIndex`: `%1` without captures is the whole match.
fn captured(lua: &Lua, m: &Match, src: &[u8], idx: usize) -> mlua::Result<Vec<u8>> {
    if idx > 2 && idx >= m.len() {
        return Err(raise(lua, "invalid capture index"));
    }
    let idx = if idx >= m.len() && idx == 2 { 0 } else { idx };
    Ok(if m.is_position(idx) {
        m.at(idx).to_string().into_bytes()
    } else {
        slice(src, m.at(idx), m.at(idx + 1)).to_vec()
    })
}

/// gopher `strGsub`: the replacement must be a string, table or function (numbers are refused);
/// every match is found first, then replaced: `%0`-`%9` in a string, the first capture (or the
/// whole match) as the key of a table or the arguments of a function, whose false or nil result
/// keeps the match. Returns the new string and the number of matches.
fn str_gsub(lua: &Lua, args: &MultiValue, bounds: &Bounds) -> mlua::Result<MultiValue> {
    let s = check_string(lua, args, 1)?;
    let p = check_string(lua, args, 2)?;
    let repl = arg(args, 3);
    if !matches!(
        repl,
        LuaValue::String(_) | LuaValue::Table(_) | LuaValue::Function(_)
    ) {
        return Err(raise(
            lua,
            &format!(
                "bad argument #3 to {} (string or table or function expected, got {})",
                fname(lua),
                type_name(&repl)
            ),
        ));
    }
    let limit = opt_int(lua, args, 4, Some(-1))?;
    let src = s.as_bytes();
    let found = search(lua, &p.as_bytes(), &src, 0, limit, bounds)?;
    if found.is_empty() {
        return Ok(MultiValue::from_iter([
            LuaValue::String(s.clone()),
            LuaValue::Number(0.0),
        ]));
    }
    let cap = bounds.memory_bytes.get();
    let mut out: Vec<u8> = Vec::with_capacity(src.len());
    let mut last = 0;
    for m in &found {
        let (start, end) = (m.at(0), m.at(1));
        let replacement: Option<Vec<u8>> = match &repl {
            LuaValue::String(r) => Some(expand(lua, &r.as_bytes(), m, &src)?),
            LuaValue::Table(t) => {
                let idx = if m.len() > 2 { 2 } else { 0 };
                let v: LuaValue = if m.is_position(idx) {
                    t.get(m.at(idx) as f64)?
                } else {
                    t.get(lua.create_string(slice(&src, m.at(idx), m.at(idx + 1)))?)?
                };
                truthy(&v).then(|| lv_as_string(&v))
            }
            LuaValue::Function(f) => {
                let fargs = if m.len() > 2 {
                    let mut a = MultiValue::new();
                    let mut i = 2;
                    while i < m.len() {
                        a.push_back(if m.is_position(i) {
                            LuaValue::Number(m.at(i) as f64)
                        } else {
                            LuaValue::String(lua.create_string(captured(lua, m, &src, i)?)?)
                        });
                        i += 2;
                    }
                    a
                } else {
                    MultiValue::from_iter([LuaValue::String(
                        lua.create_string(captured(lua, m, &src, 0)?)?,
                    )])
                };
                let v: LuaValue = Function::call(f, fargs)?;
                truthy(&v).then(|| lv_as_string(&v))
            }
            _ => None,
        };
        if let Some(r) = replacement {
            out.extend_from_slice(slice(&src, last, start));
            out.extend_from_slice(&r);
            last = end.max(last);
            if out.len() > cap {
                return Err(mlua::Error::MemoryError(format!(
                    "the result of gsub would exceed {cap} bytes"
                )));
            }
        }
    }
    out.extend_from_slice(slice(&src, last, src.len()));
    Ok(MultiValue::from_iter([
        LuaValue::String(lua.create_string(&out)?),
        LuaValue::Number(found.len() as f64),
    ]))
}

/// gopher `strGsubStr` over gopher's `flagScanner`: `%%` is `%`, `%d` a capture, `%x` any other
/// byte kept with its `%`, a lone trailing `%` kept.
fn expand(lua: &Lua, repl: &[u8], m: &Match, src: &[u8]) -> mlua::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(repl.len());
    let mut i = 0;
    while i < repl.len() {
        let c = repl[i];
        if c == b'%' && i + 1 < repl.len() {
            let d = repl[i + 1];
            if d == b'%' {
                out.push(b'%');
            } else if d.is_ascii_digit() {
                out.extend(captured(lua, m, src, 2 * (d - b'0') as usize)?);
            } else {
                out.extend([b'%', d]);
            }
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

/// gopher `strRep`: Go `strings.Repeat(s, n)`, `""` for a negative count, no separator.
/// Beyond gopher: a result larger than the memory cap is refused before it is built.
fn str_rep(lua: &Lua, args: &MultiValue, bounds: &Bounds) -> mlua::Result<LuaString> {
    let s = check_string(lua, args, 1)?;
    let n = opt_int(lua, args, 2, None)?;
    let s = s.as_bytes();
    if n <= 0 || s.is_empty() {
        return lua.create_string("");
    }
    let cap = bounds.memory_bytes.get();
    match s.len().checked_mul(n as usize) {
        Some(total) if total <= cap => lua.create_string(s.repeat(n as usize)),
        _ => Err(mlua::Error::MemoryError(format!(
            "string.rep would build {} x {n} bytes, more than the memory cap of {cap} bytes",
            s.len()
        ))),
    }
}

/// Go `strings.ToLower`/`ToUpper`: ASCII strings byte by byte; otherwise rune by rune with
/// `unicode.ToLower`/`ToUpper` (simple case mapping: a rune whose full mapping is several runes
/// keeps its simple mapping or stays as it is), invalid UTF-8 bytes becoming U+FFFD as Go's
/// `strings.Map` writes them.
pub(super) fn go_case(s: &[u8], upper: bool) -> Vec<u8> {
    if s.is_ascii() {
        return if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_ascii_lowercase()
        };
    }
    let mut out = String::with_capacity(s.len());
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            out.push(simple_case(c, upper));
        }
        for _ in chunk.invalid() {
            out.push('\u{FFFD}');
        }
    }
    out.into_bytes()
}

fn simple_case(c: char, upper: bool) -> char {
    let mut it: Box<dyn Iterator<Item = char>> = if upper {
        Box::new(c.to_uppercase())
    } else {
        Box::new(c.to_lowercase())
    };
    let first = it.next().unwrap_or(c);
    if it.next().is_none() {
        return first;
    }
    // Several runes in the full mapping: U+0130 lowers to 'i' in Go's simple mapping; the others
    // (ß, ŉ, ligatures, ...) have no simple mapping and stay.
    if c == '\u{130}' && !upper {
        'i'
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    //! Expected values follow gopher-lua v1.1.2 `stringlib.go` and `pm/pm.go` (with Go's `fmt` and
    //! `strings` underneath), measured on gopher-lua v1.1.2.
    use crate::argo::lua::testing::{eval_with, msg};
    use serde_json::json;

    fn open_err(src: &str) -> String {
        eval_with(src, &json!({}), true).unwrap_err()
    }

    #[test]
    fn find_match_gmatch_gsub_as_gopher() {
        for (expr, want) in [
            // stringlib.go strFind: an empty pattern is 1, 0 whatever init says.
            ("table.concat({string.find('abc', '', 10)}, ',')", "1,0"),
            ("table.concat({string.find('hello world', 'o w')}, ',')", "5,7"),
            ("table.concat({string.find('key=val', '(%w+)=(%w+)')}, ',')", "1,7,key,val"),
            ("table.concat({string.find('a.b', '.', 1, true)}, ',')", "2,2"),
            ("table.concat({string.find('abc', '()b()')}, ',')", "2,2,2,3"),
            // pm.go: %f is not a frontier but the byte 'f' ("fox" at 13).
            ("tostring(string.find('THE (quick) fox', '%f[%a]%a+'))", "13"),
            // strMatch: whole match, captures, negative init.
            ("string.match('  trim  ', '^%s*(.-)%s*$')", "trim"),
            ("string.match('2024-02-29', '(%d+)-(%d+)-(%d+)')", "2024"),
            ("string.match('abc', '.', -1)", "c"),
            // strMatch with no match returns no value at all.
            ("tostring(select('#', string.match('abc', 'x')))", "0"),
            // strGsub: all matches first, empty matches included, %0 / %1 / %% / %x.
            ("(string.gsub('hello world', 'o', '0'))", "hell0 w0rld"),
            ("(string.gsub('abc', '%w*', '-'))", "--"),
            ("(string.gsub('ab c', '%w*', '<%0>'))", "<ab><> <c><>"),
            ("(string.gsub('abc', 'b', '%1%%%x'))", "ab%%xc"),
            ("(string.gsub('k=v', '(%w)=(%w)', '%2=%1'))", "v=k"),
            ("tostring(select(2, string.gsub('aaa', 'a', 'b', 2)))", "2"),
            // gopher counts matches against the limit only once one is found: 0 means all.
            ("(string.gsub('aaa', 'a', 'b', 0))", "bbb"),
            ("(string.gsub('$name!', '%$(%w+)', {name = 'pacto'}))", "pacto!"),
            ("(string.gsub('a b', '%w', function(w) if w == 'a' then return 1.5 end end))", "1.5 b"),
            // strGmatch: whole matches without captures.
            ("(function() local r = {} for w in string.gmatch('one two', '%a+') do r[#r + 1] = w end return table.concat(r, '|') end)()", "one|two"),
            ("(function() local r = {} for k, v in string.gmatch('a=1,b=2', '(%w+)=(%w+)') do r[#r + 1] = k .. v end return table.concat(r, '|') end)()", "a1|b2"),
            // strRep: Go strings.Repeat, no separator.
            ("string.rep('ab', 3, ',')", "ababab"),
            ("string.rep('x', -1)", ""),
            // Go strings.ToLower/ToUpper are Unicode-aware (gopher `strLower`: 'ÄB' → 'äb').
            ("string.lower('ÄB')", "äb"),
            ("string.upper('straße')", "STRAßE"),
            ("('ÉCOLE'):lower()", "école"),
        ] {
            assert_eq!(msg(expr, true), want, "{expr}");
        }
    }

    /// gopher stringlib.go strGmatch returns its one iterator function (OpenString's upvalue)
    /// and a userdata holding every match, found at once; strGmatchIter checks that argument 1
    /// is a userdata (auxlib.go CheckUserData: "bad argument #1 to NAME (userdata expected, got
    /// TYPE)", NAME as the call site names it, `?` when it does not), returns nothing once the
    /// matches are handed out, and indexes past them on the next call (a Go panic: its text and
    /// gopher's traceback, which Argo keeps for panics).
    #[test]
    fn gmatch_iterator_and_state_as_gopher() {
        for (expr, want) in [
            ("tostring(select('#', string.gmatch('a', 'a')))", "2"),
            ("type(select(2, string.gmatch('a', 'a')))", "userdata"),
            ("tostring(string.gmatch('a', 'a') == string.gfind('b', 'b'))", "true"),
            ("(function() local f, s = string.gmatch('ab', 'a') local g, t = string.gmatch('ab', 'b') return f(t) .. g(s) end)()", "ba"),
            ("(function() local f, s = string.gmatch('a', 'a') f(s) return tostring(select('#', f(s))) end)()", "0"),
            ("(function() local r = {} for a, b in string.gmatch('abc', '()(.)') do r[#r + 1] = a .. b end return table.concat(r, ',') end)()", "1a,2b,3c"),
        ] {
            assert_eq!(msg(expr, true), want, "{expr}");
        }
        for (src, want) in [
            ("string.gmatch('a', 'a')()", "<string>:1: bad argument #1 to ? (userdata expected, got nil)"),
            ("local f = string.gmatch('a', 'a')\nreturn f(1)", "<string>:2: bad argument #1 to f (userdata expected, got number)"),
            ("local f = string.gmatch('a', 'a')\nreturn f(channel.make())", "<string>:2: bad argument #1 to f (userdata expected, got channel)"),
            ("local f, s = string.gmatch('a', 'a')\nf(s)\nf(s)\nf(s)", "runtime error: index out of range [2] with length 1\nstack traceback:\n\t[G]: in function 'f'\n\t<string>:4: in main chunk\n\t[G]: ?"),
        ] {
            assert_eq!(open_err(src), want, "{src}");
        }
    }

    #[test]
    fn string_library_errors_as_gopher() {
        for (src, want) in [
            // strFind plain with init past the end slices past it: a Go panic, reported with
            // gopher's traceback (Argo keeps it for panics), and its text alone under pcall.
            ("return string.find('abc', 'b', 10, true)", "runtime error: slice bounds out of range [9:3]\nstack traceback:\n\t[G]: in function 'find'\n\t<string>:1: in main chunk\n\t[G]: ?"),
            ("local ok, e = pcall(string.find, 'abc', 'b', 10, true)\nerror(e, 0)", "runtime error: slice bounds out of range [9:3]"),
            ("string.find('abc', '[a')", "<string>:1: unexpected EOS at 1"),
            ("string.find('abc', '(a')", "<string>:1: unfinished capture at EOS"),
            ("string.match('abc', 'a)')", "<string>:1: invalid ')' at 0"),
            ("string.gsub('abc', '(a)', '%2')", "<string>:1: invalid capture index"),
            ("string.gsub('abc', 'a', 1)", "<string>:1: bad argument #3 to gsub (string or table or function expected, got number)"),
            ("string.rep(nil, 2)", "<string>:1: bad argument #1 to rep (string expected, got nil)"),
            ("string.rep('x', '2')", "<string>:1: bad argument #2 to rep (number expected, got string)"),
        ] {
            assert_eq!(open_err(src), want, "{src}");
        }
    }
}
