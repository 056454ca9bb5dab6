//! gopher-lua's `channel` library (v1.1.2 `channellib.go`: `channelMake`, `channelSelect`,
//! `channelReceive`, `channelSend`, `channelClose`), present in open mode only (`useOpenLibs`:
//! gopher `linit.go` opens it with every other library; Argo's restricted state has none).
//!
//! A channel is a Go `chan LValue`, whose Lua type is `channel` (gopher `value.go`); here it is a
//! userdata that the prelude's `type` names `channel`, printed as `channel: 0x...`, with the
//! methods `receive`, `send` and `close`. Health scripts run on one goroutine, so nothing but the
//! script itself ever sends or receives, and whether an operation can complete is known at once:
//!
//! * `channel.make([n])`: a channel with room for `n` values (`OptInt`; a negative `n`, or one
//!   whose buffer Go cannot allocate, is Go's `makechan: size out of range` panic; beyond gopher,
//!   a buffer larger than the memory cap is refused before it could be used);
//! * `ch:send(v)`: `v` may not be a function, userdata, thread or table with a metatable
//!   (gopher `isGoroutineSafe`); on a closed channel Go panics (`send on closed channel`); on a
//!   full channel Go blocks without looking at the evaluation's context, so Argo's evaluation
//!   never ends: here that is an error naming the hang;
//! * `ch:receive()`: `true, v` for a buffered value, `false, nil` once the channel is closed and
//!   drained; on an empty open channel gopher waits for the context's deadline and then returns
//!   `false, nil`, and the next instruction fails with `context deadline exceeded`: here the
//!   deadline is reached at once ([`super::hook::expire_now`]) with the same outcome;
//! * `ch:close()`: a second close is Go's `close of closed channel` panic;
//! * `channel.select(case, ...)`: each case a table `{"|<-", ch [, f]}` (receive),
//!   `{"<-|", ch, v [, f]}` (send) or `{"default" [, f]}`; of the cases that can proceed Go picks
//!   one at random, here the first; the case's function (the table's last element, at gopher's
//!   length) is called with `ok, v`, with `v`, or with nothing; returns the case's position, the
//!   value received (or nil) and whether one was received. No case ready and no default: the
//!   deadline, as for `receive`, and no value returned.
//!
//! Argument errors read as gopher's (`bad argument #1 to receive (channel expected, got nil)`,
//! `bad argument #1 to select (invalid select case)`); Go panics read as Argo shows them (see
//! [`super::gopanic`]).

use super::gopanic;
use super::hook;
use super::prelude;
use super::strlib::{arg, as_string, fname, go_int, raise, type_name, Bounds};
use mlua::{
    AnyUserData, Lua, MetaMethod, MultiValue, Table, UserData, UserDataMethods, Value as LuaValue,
};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

/// One channel: its buffered values, its capacity, whether it is closed.
pub(super) struct Channel {
    values: RefCell<VecDeque<LuaValue>>,
    capacity: usize,
    closed: Cell<bool>,
}

impl Channel {
    fn can_send(&self) -> bool {
        self.closed.get() || self.values.borrow().len() < self.capacity
    }
    fn can_receive(&self) -> bool {
        self.closed.get() || !self.values.borrow().is_empty()
    }
}

/// Whether a userdata is a channel.
pub(super) fn is_channel(ud: &AnyUserData) -> bool {
    ud.is::<Channel>()
}

impl UserData for Channel {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_function("receive", |lua, args: MultiValue| receive(lua, &args));
        methods.add_function("send", |lua, args: MultiValue| send(lua, &args));
        methods.add_function("close", |lua, args: MultiValue| close(lua, &args));
        methods.add_meta_function(MetaMethod::ToString, |_, ud: AnyUserData| {
            Ok(format!("channel: {:#x}", ud.to_pointer() as usize))
        });
        // gopher: assigning to a channel indexes a non-table (state.go setField).
        methods.add_meta_function(
            MetaMethod::NewIndex,
            |lua, (_, k, _): (AnyUserData, LuaValue, LuaValue)| -> mlua::Result<()> {
                let key = String::from_utf8_lossy(&as_string(&k)).into_owned();
                Err(raise(
                    lua,
                    &format!("attempt to index a non-table object(channel) with key '{key}'"),
                ))
            },
        );
    }
}

/// The channel library table: `make` and `select`.
pub(super) fn library(lua: &Lua, bounds: Bounds) -> mlua::Result<Table> {
    let lib = lua.create_table()?;
    lib.raw_set(
        "make",
        lua.create_function(move |lua, args: MultiValue| make(lua, &args, &bounds))?,
    )?;
    lib.raw_set(
        "select",
        lua.create_function(|lua, args: MultiValue| select(lua, &args))?,
    )?;
    // What getmetatable answers for a channel: gopher's table of the methods, its own
    // `__index` (channellib.go `OpenChannel`).
    let methods = lua.create_table()?;
    methods.raw_set(
        "receive",
        lua.create_function(|lua, args: MultiValue| receive(lua, &args))?,
    )?;
    methods.raw_set(
        "send",
        lua.create_function(|lua, args: MultiValue| send(lua, &args))?,
    )?;
    methods.raw_set(
        "close",
        lua.create_function(|lua, args: MultiValue| close(lua, &args))?,
    )?;
    methods.raw_set("__index", methods.clone())?;
    let probe = lua.create_userdata(Channel {
        values: RefCell::new(VecDeque::new()),
        capacity: 0,
        closed: Cell::new(false),
    })?;
    let raw_metatable: mlua::Function = lua
        .globals()
        .raw_get::<Table>("debug")?
        .raw_get("getmetatable")?;
    raw_metatable
        .call::<Table>(probe)?
        .raw_set("__metatable", methods)?;
    Ok(lib)
}

/// The size of a Go interface value (`LValue`), what a channel buffers per slot.
const SLOT_BYTES: u64 = 16;
/// Go's largest allocation on linux/amd64 (`runtime.maxAlloc`, 2^48) less `hchanSize`.
const GO_MAX_CHAN_BYTES: u64 = (1 << 48) - 96;

fn make(lua: &Lua, args: &MultiValue, bounds: &Bounds) -> mlua::Result<AnyUserData> {
    let n = match arg(args, 1) {
        LuaValue::Nil => 0,
        LuaValue::Number(x) => go_int(x),
        LuaValue::Integer(i) => i,
        other => {
            return Err(raise(
                lua,
                &format!(
                    "bad argument #1 to {} (number expected, got {})",
                    fname(lua),
                    type_name(&other)
                ),
            ))
        }
    };
    let bytes = (n as u64).checked_mul(SLOT_BYTES);
    if n < 0 || bytes.is_none_or(|b| b > GO_MAX_CHAN_BYTES) {
        return Err(gopanic::raise(lua, "makechan: size out of range"));
    }
    let cap = bounds.memory_bytes.get();
    if bytes.is_some_and(|b| b > cap as u64) {
        return Err(mlua::Error::MemoryError(format!(
            "channel.make({n}) would allocate {} bytes, more than the memory cap of {cap} bytes",
            n as u64 * SLOT_BYTES
        )));
    }
    lua.create_userdata(Channel {
        values: RefCell::new(VecDeque::new()),
        capacity: n as usize,
        closed: Cell::new(false),
    })
}

/// gopher `checkChannel`: argument 1 must be a channel.
fn check_channel(lua: &Lua, args: &MultiValue) -> mlua::Result<AnyUserData> {
    match arg(args, 1) {
        LuaValue::UserData(ud) if is_channel(&ud) => Ok(ud),
        other => Err(raise(
            lua,
            &format!(
                "bad argument #1 to {} (channel expected, got {})",
                fname(lua),
                lua_type(&other)
            ),
        )),
    }
}

/// The type gopher gives a value: channels are `channel`.
pub(super) fn lua_type(v: &LuaValue) -> &'static str {
    match v {
        LuaValue::UserData(ud) if is_channel(ud) => "channel",
        other => type_name(other),
    }
}

/// gopher `isGoroutineSafe`: no function, userdata, thread, or table with a metatable.
fn goroutine_safe(v: &LuaValue) -> bool {
    match v {
        LuaValue::Function(_) | LuaValue::Thread(_) | LuaValue::LightUserData(_) => false,
        LuaValue::UserData(ud) => is_channel(ud),
        LuaValue::Table(t) => t.metatable().is_none(),
        _ => true,
    }
}

const UNSAFE_VALUE: &str =
    "can not send a function, userdata, thread or table that has a metatable";

fn send(lua: &Lua, args: &MultiValue) -> mlua::Result<()> {
    let ud = check_channel(lua, args)?;
    if args.len() < 2 {
        return Err(raise(
            lua,
            &format!("bad argument #2 to {} (value expected)", fname(lua)),
        ));
    }
    let v = arg(args, 2);
    if !goroutine_safe(&v) {
        return Err(raise(
            lua,
            &format!("bad argument #2 to {} ({UNSAFE_VALUE})", fname(lua)),
        ));
    }
    let ch = ud.borrow::<Channel>()?;
    if ch.closed.get() {
        return Err(gopanic::raise(lua, "send on closed channel"));
    }
    if !ch.can_send() {
        return Err(blocks_forever(lua));
    }
    ch.values.borrow_mut().push_back(v);
    Ok(())
}

/// A send that Go would block on for ever: nothing else runs to receive.
fn blocks_forever(lua: &Lua) -> mlua::Error {
    raise(
        lua,
        "channel send blocks for ever: nothing else runs to receive (gopher-lua does not look at the evaluation's deadline there, so Argo CD's evaluation would hang)",
    )
}

fn receive(lua: &Lua, args: &MultiValue) -> mlua::Result<MultiValue> {
    let ud = check_channel(lua, args)?;
    let ch = ud.borrow::<Channel>()?;
    let next = ch.values.borrow_mut().pop_front();
    Ok(match next {
        Some(v) => MultiValue::from_iter([LuaValue::Boolean(true), v]),
        None => {
            if !ch.closed.get() {
                hook::expire_now(lua)?;
            }
            MultiValue::from_iter([LuaValue::Boolean(false), LuaValue::Nil])
        }
    })
}

fn close(lua: &Lua, args: &MultiValue) -> mlua::Result<()> {
    let ud = check_channel(lua, args)?;
    let ch = ud.borrow::<Channel>()?;
    if ch.closed.replace(true) {
        return Err(gopanic::raise(lua, "close of closed channel"));
    }
    Ok(())
}

/// One select case as gopher's `channelSelect` reads it.
enum Case {
    Send(AnyUserData, LuaValue),
    Receive(AnyUserData),
    Default,
}

fn select(lua: &Lua, args: &MultiValue) -> mlua::Result<MultiValue> {
    let bad = |i: usize, what: &str| {
        raise(
            lua,
            &format!("bad argument #{i} to {} ({what})", fname(lua)),
        )
    };
    let mut cases = Vec::with_capacity(args.len());
    let mut tables = Vec::with_capacity(args.len());
    for (k, v) in args.iter().enumerate() {
        let i = k + 1;
        let LuaValue::Table(t) = v else {
            return Err(bad(i, &format!("table expected, got {}", lua_type(v))));
        };
        let LuaValue::String(dir) = t.raw_get::<LuaValue>(1)? else {
            return Err(bad(i, "invalid select case"));
        };
        let channel_at_2 = || match t.raw_get::<LuaValue>(2) {
            Ok(LuaValue::UserData(ud)) if is_channel(&ud) => Ok(ud),
            _ => Err(bad(i, "invalid select case")),
        };
        let case = match &*dir.as_bytes() {
            b"<-|" => {
                let ud = channel_at_2()?;
                let v: LuaValue = t.raw_get(3)?;
                if !goroutine_safe(&v) {
                    return Err(bad(i, UNSAFE_VALUE));
                }
                Case::Send(ud, v)
            }
            b"|<-" => Case::Receive(channel_at_2()?),
            b"default" => Case::Default,
            other => {
                return Err(bad(
                    i,
                    &format!(
                        "invalid channel direction:{}",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        };
        cases.push(case);
        tables.push(t.clone());
    }
    // Go's select: one ready case (Go picks at random; the first here), else the default.
    let mut chosen = None;
    for (k, case) in cases.iter().enumerate() {
        let ready = match case {
            Case::Send(ud, _) => ud.borrow::<Channel>()?.can_send(),
            Case::Receive(ud) => ud.borrow::<Channel>()?.can_receive(),
            Case::Default => false,
        };
        if ready {
            chosen = Some(k);
            break;
        }
    }
    if chosen.is_none() {
        chosen = cases.iter().position(|c| matches!(c, Case::Default));
    }
    let Some(pos) = chosen else {
        // Nothing can proceed: gopher waits for the context's deadline and returns nothing.
        hook::expire_now(lua)?;
        return Ok(MultiValue::new());
    };
    let (value, ok) = match &cases[pos] {
        Case::Send(ud, v) => {
            let ch = ud.borrow::<Channel>()?;
            if ch.closed.get() {
                return Err(gopanic::raise(lua, "send on closed channel"));
            }
            ch.values.borrow_mut().push_back(v.clone());
            (LuaValue::Nil, false)
        }
        Case::Receive(ud) => {
            let next = ud.borrow::<Channel>()?.values.borrow_mut().pop_front();
            match next {
                Some(v) => (v, true),
                None => (LuaValue::Nil, false),
            }
        }
        Case::Default => (LuaValue::Nil, false),
    };
    let t = &tables[pos];
    if let LuaValue::Function(f) = t.raw_get::<LuaValue>(prelude::table_len(lua, t)?)? {
        match &cases[pos] {
            Case::Receive(_) => f.call::<()>((ok, value.clone()))?,
            Case::Send(..) => f.call::<()>(t.raw_get::<LuaValue>(3)?)?,
            Case::Default => f.call::<()>(())?,
        }
    }
    Ok(MultiValue::from_iter([
        LuaValue::Number((pos + 1) as f64),
        value,
        LuaValue::Boolean(ok),
    ]))
}

#[cfg(test)]
mod tests {
    //! Expected values follow gopher-lua v1.1.2 `channellib.go`, `auxlib.go`
    //! (`CheckChannel`/`ArgError` texts), `utils.go` (`isGoroutineSafe`), `state.go` (`PCall`
    //! turning a Go panic into its text; `stackTrace`), Go's channel semantics (a receive from
    //! a closed, drained channel yields the zero value and false; send on a closed channel and a
    //! second close panic), and argo-cd `util/lua/lua.go` (a 1 s context on the state; only
    //! `ApiErrorRun` errors lose their traceback).
    use crate::argo::lua::testing::{eval_with, msg};
    use serde_json::json;

    fn open_err(src: &str) -> String {
        eval_with(src, &json!({}), true).unwrap_err()
    }
    fn run(src: &str) -> String {
        msg(&format!("(function() {src} end)()"), true)
    }

    #[test]
    fn channels_as_gopher() {
        for (src, want) in [
            ("return type(channel.make())", "channel"),
            ("return tostring(channel.make()):sub(1, 11)", "channel: 0x"),
            ("local c = channel.make(2) c:send(1) c:send('x') local a, b = c:receive() local d, e = c:receive() return tostring(a) .. tostring(b) .. tostring(d) .. tostring(e)", "true1truex"),
            // A closed channel still hands out what it buffered, then false, nil.
            ("local c = channel.make(1) c:send(5) c:close() local a, b = c:receive() local x, y = c:receive() return tostring(a) .. ',' .. tostring(b) .. ',' .. tostring(x) .. ',' .. tostring(y)", "true,5,false,nil"),
            ("local c = channel.make(2) local r = {} for i = 1, 2 do c:send(i * 10) end c:close() while true do local ok, v = c:receive() if not ok then break end r[#r + 1] = v end return table.concat(r, ',')", "10,20"),
            ("local c = channel.make(1) c:send(nil) local ok, v = c:receive() return tostring(ok) .. tostring(v)", "truenil"),
            ("local c = channel.make(1) c:send(c) local ok, v = c:receive() return tostring(v == c)", "true"),
            ("local c1, c2 = channel.make(), channel.make() return tostring(c1 == c2) .. tostring(c1 == c1)", "falsetrue"),
            ("local c = channel.make() return tostring(c.foo)", "nil"),
            // getmetatable: gopher's table of the methods, its own __index.
            ("local mt = getmetatable(channel.make()) return tostring(mt.__index == mt) .. tostring(mt.receive ~= nil)", "truetrue"),
            // select: the ready case, its function called; the position, the value, ok.
            ("local c = channel.make(1) c:send(1) return table.concat({tostring(channel.select({'|<-', c}))}, ',')", "1"),
            ("local c = channel.make(1) local a, b, d = channel.select({'<-|', c, 7}) return tostring(a) .. tostring(b) .. tostring(d) .. tostring(select(2, c:receive()))", "1nilfalse7"),
            ("local c = channel.make() local a, b, d = channel.select({'|<-', c}, {'default'}) return tostring(a) .. tostring(b) .. tostring(d)", "2nilfalse"),
            ("local c = channel.make() local r = {} channel.select({'|<-', c}, {'default', function(...) r[1] = select('#', ...) end}) return tostring(r[1])", "0"),
            ("local c = channel.make(1) c:send(3) local r = {} channel.select({'|<-', c, function(...) r = {...} end}) return tostring(r[1]) .. tostring(r[2])", "true3"),
            ("local c = channel.make(1) local r = {} channel.select({'<-|', c, 9, function(...) r = {...} end}) return tostring(#r) .. tostring(r[1])", "19"),
            ("local c = channel.make(1) local r = {} local a, b, d = channel.select({'|<-', c, function(ok, v) r[1] = 'recv' end}, {'<-|', c, 'x', function(v) r[1] = 'sent ' .. v end}) return tostring(a) .. ',' .. tostring(b) .. ',' .. tostring(d) .. ',' .. r[1]", "2,nil,false,sent x"),
            ("local c = channel.make(1) c:send('y') local a, b, d = channel.select({'|<-', c}, {'default'}) return tostring(a) .. ',' .. tostring(b) .. ',' .. tostring(d)", "1,y,true"),
            ("local c = channel.make(1) c:close() local a, b, d = channel.select({'|<-', c}) return tostring(a) .. tostring(b) .. tostring(d)", "1nilfalse"),
            // A Go panic caught by pcall is its text alone.
            ("local c = channel.make(1) c:close() return select(2, pcall(c.send, c, 1))", "send on closed channel"),
            ("local c = channel.make() local ok, e = pcall(function() c:close() c:close() end) return e", "close of closed channel"),
        ] {
            assert_eq!(run(src), want, "{src}");
        }
    }

    #[test]
    fn channel_errors_as_gopher() {
        for (src, want) in [
            ("local c = channel.make(1)\nc:send(function() end)", "<string>:2: bad argument #2 to send (can not send a function, userdata, thread or table that has a metatable)"),
            ("local c = channel.make(1)\nc:send(setmetatable({}, {}))", "<string>:2: bad argument #2 to send (can not send a function, userdata, thread or table that has a metatable)"),
            ("local c = channel.make(1)\nc:send()", "<string>:2: bad argument #2 to send (value expected)"),
            ("local c = channel.make(1)\nc.send()", "<string>:2: bad argument #1 to send (channel expected, got nil)"),
            ("local c = channel.make(1)\nc.receive(5)", "<string>:2: bad argument #1 to receive (channel expected, got number)"),
            ("channel.make('2')", "<string>:1: bad argument #1 to make (number expected, got string)"),
            ("channel.select(5)", "<string>:1: bad argument #1 to select (table expected, got number)"),
            ("channel.select({})", "<string>:1: bad argument #1 to select (invalid select case)"),
            ("channel.select({'x'})", "<string>:1: bad argument #1 to select (invalid channel direction:x)"),
            ("channel.select({'|<-', 5})", "<string>:1: bad argument #1 to select (invalid select case)"),
            ("local c = channel.make(1)\nchannel.select({'<-|', c, function() end})", "<string>:2: bad argument #1 to select (can not send a function, userdata, thread or table that has a metatable)"),
            ("local c = channel.make()\nc.foo = 1", "<string>:2: attempt to index a non-table object(channel) with key 'foo'"),
            // Go panics: their text and gopher's traceback (Argo keeps it for panics).
            ("local c = channel.make(1)\nc:close()\nc:send(1)", "send on closed channel\nstack traceback:\n\t[G]: in function 'send'\n\t<string>:3: in main chunk\n\t[G]: ?"),
            ("local c = channel.make(1)\nc:close()\nlocal function f()\n  c:close()\nend\nf()", "close of closed channel\nstack traceback:\n\t[G]: in function 'close'\n\t<string>:4: in function 'f'\n\t<string>:6: in main chunk\n\t[G]: ?"),
            ("channel.make(1e18)", "makechan: size out of range\nstack traceback:\n\t[G]: in function 'make'\n\t<string>:1: in main chunk\n\t[G]: ?"),
            ("channel.make(-1)", "makechan: size out of range\nstack traceback:\n\t[G]: in function 'make'\n\t<string>:1: in main chunk\n\t[G]: ?"),
            ("local c = channel.make(1)\nc:close()\nchannel.select({'<-|', c, 1})", "send on closed channel\nstack traceback:\n\t[G]: in function 'select'\n\t<string>:3: in main chunk\n\t[G]: ?"),
            // Caught, then raised again as a Lua error: no traceback (an ApiErrorRun).
            ("local c = channel.make()\nc:close()\nlocal ok, e = pcall(c.close, c)\nerror(e, 0)", "close of closed channel"),
            // Nothing can ever send: gopher's receive and select wait for the context's
            // deadline, return, and the next instruction fails.
            ("local c = channel.make()\nlocal ok, v = c:receive()\nlocal x = 1\nreturn tostring(ok)", "<string>:3: context deadline exceeded"),
            ("local c = channel.make()\nlocal ok, v = c:receive() return tostring(ok)", "<string>:2: context deadline exceeded"),
            ("local c = channel.make()\nlocal n = select('#', channel.select({'|<-', c}))\nlocal y = 2\nreturn n", "<string>:2: context deadline exceeded"),
            ("channel.select()\nreturn 1", "<string>:2: context deadline exceeded"),
        ] {
            assert_eq!(open_err(src), want, "{src}");
        }
        // Nothing can ever receive: gopher's send blocks for ever and Argo's evaluation hangs;
        // here it ends at once with an error naming the hang.
        for src in [
            "local c = channel.make()\nc:send(1)",
            "local c = channel.make(1)\nc:send(1)\nc:send(2)",
        ] {
            let e = open_err(src);
            assert!(
                e.contains("channel send blocks for ever") && e.contains("hang"),
                "{src}: {e}"
            );
        }
        // Beyond gopher: a buffer larger than the memory cap.
        let e = open_err("channel.make(1e12)");
        assert!(e.starts_with("memory limit exceeded"), "{e}");
    }

    /// Restricted mode (Argo's default for custom scripts) has no channel library; open mode's
    /// `require` finds none of the libraries (Argo reopens `package` after them: lua.go).
    #[test]
    fn channel_library_only_in_open_mode() {
        assert_eq!(msg("type(channel)", false), "nil");
        assert_eq!(msg("type(channel)", true), "table");
        let e = open_err("return require('channel')");
        assert!(
            e.starts_with("<string>:1: module channel not found:"),
            "{e}"
        );
    }
}
