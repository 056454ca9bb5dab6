-- The sandbox prelude of kubectl-pacto's Argo CD health engine.
--
-- Runs once in a fresh LuaJIT state and makes it look and fail the way Argo CD's gopher-lua
-- v1.1.2 state does (argo-cd util/lua/lua.go, gopher-lua state.go / vm.go). Returns `run`, which
-- runs one evaluation of a compiled script in fresh globals (`new_env`), handing the script the
-- two functions the source rewriter routes `..` and `#` through: every evaluation gets its own
-- globals and its own library tables, so nothing a script does to them reaches the next one. No function defined here reads a
-- global: each uses upvalues only, so a script that changes its environment changes nothing here.
--
-- Arguments from the host: open (useOpenLibs), numstr (gopher number formatting), tonum
-- (gopher tonumber), parsenum (gopher arithmetic coercion), printer (collects print output),
-- safe_time, safe_date (Argo's oslib_safe.go), full_time, full_date (gopher's own os.time and
-- os.date), denied (raises the error for a function kubectl-pacto never lets a script call),
-- expired (true once the evaluation is past its wall-clock limit), chunk_cap (the bytes of source
-- a script may compile at run time), order (what order.lua returns: gopher's table key order),
-- luamod (gopher's `%`, luaModulo), not_found (what gopher's search of package.path reports
-- when no file is there), libs_chunk (libs.lua: gopher's table, math and coroutine libraries),
-- where (`<string>:LINE: ` of the innermost script frame, gopher's `where`), wording (a LuaJIT
-- error text in gopher's words), compile (a chunk compiled at run time as the script is: through
-- the source rewriter, with gopher's syntax errors).

local open, numstr, tonum, parsenum, printer, safe_time, safe_date, full_time, full_date, denied,
  expired, chunk_cap, order, where, wording, compile, luamod, not_found, libs_chunk = ...

local type, error, rawget, next, select, tostring0, setmt, getmt =
  type, error, rawget, next, select, tostring, debug.setmetatable, debug.getmetatable
local concat0, unpack0, tinsert0 = table.concat, unpack, table.insert
local setfenv0, loadstring0, load0, getmetatable0, setmetatable0, newproxy0 =
  setfenv, loadstring, load, getmetatable, setmetatable, newproxy
local G = _G
local getinfo0 = debug.getinfo

-- gopher LValue.String(): numbers in gopher's format, everything else as Lua prints it.
local function str(v)
  if type(v) == "number" then return numstr(v) end
  return tostring0(v)
end

-- gopher state.go raiseError (RaiseError): the message at the position of the innermost script
-- frame, which is what gopher's `where` finds when it skips Go functions; the prelude's
-- stand-ins for gopher's Go functions and LuaJIT's C functions are skipped the same way.
local function raise(msg)
  error(where() .. msg, 0)
end
-- gopher auxlib.go ArgError/TypeError: `bad argument #N to NAME (MSG)`, NAME being what the
-- calling line calls the function (state.go rawFrameFuncName reads it from the call site:
-- `ipairs`, `insert` for `table.insert`, `f` for a local alias), `?` when the line does not name
-- it, `(anonymous)` when a Go function (pcall) called it. `lvl` counts the frames from
-- argerror's caller up to the library function (1: the caller is the library function).
local function argerror(lvl, n, msg)
  local info = getinfo0(lvl + 1, "n")
  local name = info and info.name
  if name == nil then
    local caller = getinfo0(lvl + 2, "S")
    name = (caller == nil or caller.what == "C") and "(anonymous)" or "?"
  end
  raise("bad argument #" .. n .. " to " .. name .. " (" .. msg .. ")")
end
local function typeerror(lvl, n, want, v)
  argerror(lvl + 1, n, want .. " expected, got " .. type(v))
end
order.install(argerror, raise)
-- Every result of a call, with their count (trailing nils included).
local function pack(...)
  return { n = select("#", ...), ... }
end

-- The raw metatable's handler for an event, first operand first (gopher state.go metaOp2).
local function metaop2(a, b, event)
  local mt = getmt(a)
  local h = mt and rawget(mt, event)
  if h ~= nil then return h end
  mt = getmt(b)
  return mt and rawget(mt, event)
end

-- `#t` of a gopher table: the highest positive integer key below MaxArrayIndex that holds a
-- value, because LTable.RawSetInt pads the array part with nils (gopher table.go Len).
local function tablelen(t)
  local n = 0
  for k in next, t do
    if type(k) == "number" and k > n and k < 67108864 and k % 1 == 0 then n = k end
  end
  return n
end

-- OP_LEN (gopher vm.go): strings by bytes, then a __len handler, then tables, else an error.
local function glen(v)
  if type(v) == "string" then return #v end
  local mt = getmt(v)
  local h = mt and rawget(mt, "__len")
  if type(h) == "function" then return (h(v)) end
  if type(v) == "table" then return tablelen(v) end
  error("__len undefined", 2)
end

local function canstr(v)
  local t = type(v)
  return t == "string" or t == "number"
end

-- OP_CONCAT (gopher vm.go stringConcat): right to left, numbers in gopher's format, __concat
-- for the first pair that is not two strings/numbers, else an error naming both types.
local function gconcat(...)
  local n = select("#", ...)
  local args = { ... }
  local rhs = args[n]
  local i = n - 1
  while i >= 1 do
    local lhs = args[i]
    if not (canstr(lhs) and canstr(rhs)) then
      local h = metaop2(lhs, rhs, "__concat")
      if type(h) == "function" then
        rhs = h(lhs, rhs)
      else
        error("cannot perform concat operation between " .. type(lhs) .. " and " .. type(rhs), 2)
      end
      i = i - 1
    else
      local parts, k = { str(rhs) }, 1
      while i >= 1 and canstr(args[i]) do
        k = k + 1
        parts[k] = str(args[i])
        i = i - 1
      end
      local lo, hi = 1, k
      while lo < hi do
        parts[lo], parts[hi] = parts[hi], parts[lo]
        lo, hi = lo + 1, hi - 1
      end
      rhs = concat0(parts)
    end
  end
  return rhs
end

-- Base metatables: what gopher raises when a script indexes, calls or does arithmetic on a value
-- that is not a table (state.go getField/setField/callR, vm.go objectArith).
local function index_error(kind)
  return function(_, k)
    error("attempt to index a non-table object(" .. kind .. ") with key '" .. str(k) .. "'", 2)
  end
end
local function call_error()
  error("attempt to call a non-function object", 2)
end
local ops = { __add = "add", __sub = "sub", __mul = "mul", __div = "div", __mod = "mod", __pow = "pow" }
local arith = {
  add = function(a, b) return a + b end,
  sub = function(a, b) return a - b end,
  mul = function(a, b) return a * b end,
  div = function(a, b) return a / b end,
  mod = luamod,
  pow = function(a, b) return a ^ b end,
}
local function base_mt(kind)
  local mt = {
    __index = index_error(kind),
    __newindex = index_error(kind),
    __call = call_error,
  }
  for event, name in next, ops do
    mt[event] = function(a, b)
      if type(a) == "string" then a = parsenum(a) or a end
      if type(b) == "string" then b = parsenum(b) or b end
      if type(a) == "number" and type(b) == "number" then return arith[name](a, b) end
      error("cannot perform " .. name .. " operation between " .. type(a) .. " and " .. type(b), 2)
    end
  end
  return mt
end
-- Arithmetic as gopher's vm.go runs it, which the front end routes every `+ - * / % ^` and
-- unary `-` through (numerals alone excepted): numbers directly; otherwise the operands' __add
-- (... __pow) handler first (metaOp2), then strings read by gopher's parseNumber (Go ParseInt
-- with base prefixes, so "010" is 8, then ParseFloat), else "cannot perform add operation
-- between string and nil". `%` is luaModulo (Go math.Mod, sign of the divisor).
-- Only tables and userdata carry handlers a script set: the metatables of the other types are
-- the prelude's own stand-ins for gopher's errors.
local function user_handler(v, event)
  local t = type(v)
  if t ~= "table" and t ~= "userdata" then return nil end
  local mt = getmt(v)
  return mt and rawget(mt, event)
end
local function make_arith(name, f)
  local event = "__" .. name
  local function op2(a, b)
    if type(a) == "number" and type(b) == "number" then return f(a, b) end
    local h = user_handler(a, event)
    if h == nil then h = user_handler(b, event) end
    if type(h) == "function" then return (h(a, b)) end
    if type(a) == "string" then a = parsenum(a) or a end
    if type(b) == "string" then b = parsenum(b) or b end
    if type(a) == "number" and type(b) == "number" then return f(a, b) end
    -- Level 3: op2, fold (tail-called by the inline function), the script.
    error("cannot perform " .. name .. " operation between " .. type(a) .. " and " .. type(b), 3)
  end
  -- A run of one operator (`a + b + c`) arrives as one call, folded left to right.
  local function fold(a, b, ...)
    local r = op2(a, b)
    for i = 1, select("#", ...) do r = op2(r, (select(i, ...))) end
    return r
  end
  -- Two numbers take the operator itself, compiled inline (`%` is gopher's luaModulo, LuaJIT's
  -- `a - floor(a/b)*b` differing from it for infinite divisors and large operands).
  local op = ({ add = "a + b", sub = "a - b", mul = "a * b", div = "a / b", mod = "f(a, b)",
    pow = "a ^ b" })[name]
  local src = "local fold, type, select, f = ... return function(a, b, ...) "
    .. "if type(a) == 'number' and type(b) == 'number' and select('#', ...) == 0 then "
    .. "return " .. op .. " end return fold(a, b, ...) end"
  local fast = loadstring0(src, "=prelude")
  return fast(fold, type, select, f)
end
local g_add, g_sub, g_mul, g_div, g_mod, g_pow =
  make_arith("add", arith.add), make_arith("sub", arith.sub), make_arith("mul", arith.mul),
  make_arith("div", arith.div), make_arith("mod", arith.mod), make_arith("pow", arith.pow)
-- OP_UNM: numbers; the operand's __unm; a string through parseNumber; else "__unm undefined".
local function g_unm(a)
  if type(a) == "number" then return -a end
  local h = user_handler(a, "__unm")
  if type(h) == "function" then return (h(a)) end
  if type(a) == "string" then
    local n = parsenum(a)
    if n then return -n end
  end
  error("__unm undefined", 2)
end

setmt(nil, base_mt("nil"))
setmt(false, base_mt("boolean"))
setmt(0, base_mt("number"))
setmt(print, base_mt("function"))
local string_mt = base_mt("string")
setmt("", string_mt)

-- The `arg` local of a vararg function (the source rewriter declares it, see gopher compat.rs):
-- its varargs and their count `n` (gopher state.go initCallFrame, CompatVarArg).
local function g_arg(...)
  return order.tab({ n = select("#", ...), ... }, "n")
end
-- A numeric for's control values as gopher's OP_FORPREP/OP_FORLOOP take them (gopher compat.rs
-- rewrites `for i = a, b, c` to `for i = g_for(a, b, c), g_forlimit(), g_forstep()`): numbers
-- only, checked in the order init, step, limit; a zero step loops for ever when the initial
-- value is at least the limit, and not at all otherwise.
local for_limit, for_step = 0, 0
local function g_for(...)
  local init, limit, step = ...
  if select("#", ...) < 3 then step = 1 end
  if type(init) ~= "number" then raise("for statement init must be a number") end
  if type(step) ~= "number" then raise("for statement step must be a number") end
  if type(limit) ~= "number" then raise("for statement limit must be a number") end
  if step == 0 then
    step = 0
    if init >= limit then limit = 1 / 0 else limit = -1 / 0 end
  end
  for_limit, for_step = limit, step
  return init
end
local function g_forlimit() return for_limit end
local function g_forstep() return for_step end

-- Base library as gopher has it (baselib.go).
-- baseToString: CheckAny; LState.ToStringMeta calls a __tostring that is a function (one
-- result) and ignores any other value there; numbers in gopher's format.
local function g_tostring(...)
  if select("#", ...) == 0 then argerror(1, 1, "value expected") end
  local v = ...
  local mt = getmt(v)
  local h = mt and rawget(mt, "__tostring")
  if type(h) == "function" then return (h(v)) end
  if type(v) == "number" then return numstr(v) end
  if h ~= nil then
    setmt(v, nil)
    local s = tostring0(v)
    setmt(v, mt)
    return s
  end
  return tostring0(v)
end
-- baseToNumber: the base is OptInt(2, 10) (a number or nil), read before CheckAny(1).
local function g_tonumber(...)
  local v, base = ...
  if base ~= nil and type(base) ~= "number" then typeerror(1, 2, "number", base) end
  if select("#", ...) == 0 then argerror(1, 1, "value expected") end
  if type(v) == "number" then return v end
  if type(v) == "string" then return tonum(v, base) end
  return nil
end
local function g_print(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = g_tostring((select(i, ...))) end
  printer(concat0(parts, "\t"))
end
-- gopher CheckTable and OptInt/CheckInt (numbers only, truncated toward zero as Go's int()), for
-- the library function that called them.
local function check_table(v, n)
  if type(v) ~= "table" then typeerror(2, n, "table", v) end
end
local function opt_int(v, n, default)
  if v == nil then return default end
  if type(v) ~= "number" then typeerror(2, n, "number", v) end
  if v < 0 then return -((-v) - (-v) % 1) end
  return v - v % 1
end
-- gopher baselib.go baseUnpack: values are pushed on the registry of 5120 slots (config.go
-- RegistrySize), which growth-disabled states cannot exceed: "registry overflow". What the
-- script's frames already hold is not known here; the bound counts the unpacked values only.
local REGISTRY_SLOTS = 5120
local function g_unpack(t, i, j)
  check_table(t, 1)
  i = opt_int(i, 2, 1)
  j = opt_int(j, 3, tablelen(t))
  if j - i + 1 > REGISTRY_SLOTS then raise("registry overflow") end
  if i > j then return end
  return unpack0(t, i, j)
end
-- The key order of gopher tables (order.lua): its constructor and key functions, handed to the
-- script with the others, and its next, pairs and rawset.
local TRACK = order.track

-- gopher has no metatables on non-table values in restricted mode; strings index the string
-- library in open mode. baseGetMetatable: CheckAny.
local function g_getmetatable(...)
  if select("#", ...) == 0 then argerror(1, 1, "value expected") end
  local v = ...
  local t = type(v)
  if t == "table" or t == "userdata" then
    local mt = getmetatable0(v)
    if mt == TRACK then return nil end
    return mt
  end
  if open and t == "string" then return { __index = G.string } end
  return nil
end
-- baseSetMetatable: CheckTypes(2, nil, table), no nil object, no protected metatable, returns
-- its first argument only. gopher sets the metatable of every value of a type when given a
-- value that is not a table (LState.SetMetatable, builtinMts): that is accepted and has no
-- effect here (docs/engines.md, known differences).
local function g_setmetatable(...)
  local obj, mt = ...
  local tm = type(mt)
  if tm ~= "nil" and tm ~= "table" then argerror(1, 2, "nil or table expected, got " .. tm) end
  if obj == nil then raise("cannot set metatable to a nil object.") end
  local old = getmt(obj)
  if type(old) == "table" and rawget(old, "__metatable") ~= nil then
    raise("cannot change a protected metatable")
  end
  -- Clearing a metatable the script cannot see keeps the key order's (order.lua).
  if type(obj) == "table" and not (mt == nil and old == TRACK) then setmetatable0(obj, mt) end
  return obj
end
-- baseAssert: a false first value raises OptString(2, "assertion failed!") at the caller's line
-- (a message that is not a string is a bad argument); otherwise every argument is returned.
local function g_assert(...)
  local v, m = ...
  if not v then
    if m == nil then m = "assertion failed!" elseif type(m) ~= "string" then
      typeerror(1, 2, "string", m)
    end
    raise(m)
  end
  return ...
end
-- baseIpairs: CheckTable(1), a missing argument being nil.
local ipairs0 = ipairs
local function g_ipairs(...)
  local t = ...
  if type(t) ~= "table" then typeerror(1, 1, "table", t) end
  return ipairs0(t)
end
-- baseSelect: CheckTypes(1, number, string); a string other than "#" is an invalid string (it
-- is not read as a number).
local select0 = select
local function g_select(n, ...)
  local t = type(n)
  if t == "string" then
    if n ~= "#" then argerror(1, 1, "invalid string '" .. n .. "'") end
  elseif t ~= "number" then
    argerror(1, 1, "number or string expected, got " .. t)
  end
  return select0(n, ...)
end

local function copy(t)
  local c = {}
  for k, v in next, t do c[k] = v end
  return c
end

-- Errors raised by the host's library functions (the string, table and channel functions
-- written in Rust) reach Lua as the host's error objects: a script that catches one gets the
-- text gopher would give it (host_error_text answers nil for any other value).
local host_error_text = rawget(G, "host_error_text")
G.host_error_text = nil
-- LuaJIT's own error texts (its C functions, its VM) are given in gopher's words, and a C
-- function's argument error raised where no script line called it (pcall(select, 'x')) gets the
-- script's position and gopher's `(anonymous)`.
local function caught(e)
  local t = type(e)
  if t == "userdata" then
    local text = host_error_text(e)
    if text ~= nil then return text end
  elseif t == "string" then
    return wording(e)
  end
  return e
end

-- gopher's table library, and its math and coroutine libraries for open mode (libs.lua).
local lib = libs_chunk({
  raise = raise, argerror = argerror, typeerror = typeerror, check_table = check_table,
  opt_int = opt_int, tablelen = tablelen, canstr = canstr, str = str, pack = pack,
  caught = caught, expired = expired, parsenum = parsenum, luamod = luamod,
})
local tablelib = lib.table

-- Everything outside the process is refused, even with open libraries.
local function refuse(name) return function() denied(name) end end
local maxn0 = table.maxn
local io_mt_real = { __index = function(_, k) return refuse("io." .. tostring0(k)) end }
local libs = {}
if open then
  -- The state's own os, io and debug tables are changed in place, so that no path to them (an
  -- upvalue, the registry) reaches the originals. Open-libs states serve one evaluation only.
  local os = G.os
  for _, name in next, { "execute", "exit", "getenv", "remove", "rename", "setenv", "tmpname" } do
    os[name] = refuse("os." .. name)
  end
  os.time, os.date = full_time, full_date
  os.setlocale = function() return nil end
  local string = copy(G.string)
  string.gfind = string.gmatch
  -- stringlib.go strDump.
  string.dump = function() raise("GopherLua does not support the string.dump") end
  local math = lib.math()
  -- Of gopher-lua's debug library (debuglib.go) only what cannot reach the host: no
  -- sethook/gethook/getregistry (the time limit, the registry), no get/setupvalue and
  -- get/setlocal (the prelude's closures hold the real loaders and the deadline check), no
  -- setmetatable/setfenv (finalizers on userdata, the prelude's environments).
  local debug = {}
  for _, name in next, { "getfenv", "getinfo", "getmetatable", "traceback" } do
    debug[name] = G.debug[name]
  end
  debug.getmetatable = function(v)
    local mt = getmt(v)
    if mt == TRACK then return nil end
    return mt
  end
  for name in next, copy(G.debug) do
    if debug[name] == nil then G.debug[name] = nil end
  end
  for name in next, copy(G.io) do
    G.io[name] = nil
  end
  setmetatable0(G.io, io_mt_real)
  local coroutine = lib.coroutine()
  libs = { os = os, string = string, math = math, debug = debug, coroutine = coroutine }
  string_mt.__index = string
  -- stringlib.go OpenString: the module is the strings' metatable, its own __index.
  string.__index = string
end
local io_mt = { __index = function(_, k) return refuse("io." .. tostring0(k)) end }

-- The base functions every environment starts from.
local base = {}
for _, name in next, { "next", "pairs", "rawequal", "rawget", "rawset", "type", "_VERSION" } do
  base[name] = G[name]
end
base.tostring, base.tonumber, base.print, base.unpack = g_tostring, g_tonumber, g_print, g_unpack
base.getmetatable, base.setmetatable, base.assert = g_getmetatable, g_setmetatable, g_assert
base.ipairs, base.select = g_ipairs, g_select
base.next, base.pairs, base.rawset = order.next, order.pairs, order.rawset
-- Argo's limit is a cancelled context that every instruction checks; here the deadline error is
-- raised again after any protected call, so a script cannot catch it and run on.
local pcall0, xpcall0, error0 = pcall, xpcall, error
-- gopher baselib.go basePCall: a value that cannot be called is reported without a position, in
-- Lua's own words.
base.pcall = function(...)
  if select("#", ...) == 0 then argerror(1, 1, "value expected") end
  local f = ...
  if type(f) ~= "function" then
    local mt = getmt(f)
    if type(f) ~= "table" or not (mt and type(rawget(mt, "__call")) == "function") then
      return false, "attempt to call a " .. type(f) .. " value"
    end
  end
  local m = order.mark()
  local r = pack(pcall0(...))
  if r[1] == false then
    r[2] = caught(r[2])
    order.restore(m)
  end
  if expired() then error("context deadline exceeded", 2) end
  return unpack0(r, 1, r.n)
end
-- baseXPCall: CheckFunction(1), CheckFunction(2); the function is called without arguments;
-- the handler's one result is the error value, and an error in the handler is the error value
-- itself.
base.xpcall = function(...)
  local f, h = ...
  if type(f) ~= "function" then typeerror(1, 1, "function", f) end
  if type(h) ~= "function" then typeerror(1, 2, "function", h) end
  local m = order.mark()
  local r = pack(xpcall0(f, function(e)
    local ok, v = pcall0(h, caught(e))
    if ok then return v end
    return caught(v)
  end))
  if r[1] == false then order.restore(m) end
  if expired() then error("context deadline exceeded", 2) end
  return unpack0(r, 1, r.n)
end
-- gopher baselib.go baseError and state.go raiseError/where/GetStack: the value is required
-- (CheckAny), the level must be a number (OptInt); only a string message gets a position, that of
-- gopher frame `level - 1` counted from error's own frame, Go frames skipped outward. So levels
-- 1 and 2 both name the line of the error call, 3 the caller's line (PUC Lua: 2 is the caller).
-- Here C functions and the prelude's stand-ins for gopher's Go functions are the Go frames;
-- `run`, below the script's main chunk, is past gopher's stack: the message then starts with
-- the space of gopher's "%v %v" with an empty position.
local run
base.error = function(...)
  local nargs = select("#", ...)
  if nargs == 0 then argerror(1, 1, "value expected") end
  local msg, level = ...
  if level == nil then level = 1 elseif type(level) ~= "number" then
    typeerror(1, 2, "number", level)
  end
  level = level - level % 1
  if type(msg) ~= "string" or level <= 0 then error0(msg, 0) end
  -- getinfo level 1 is this function, standing for error's own (Go) frame, gopher frame 0.
  local k = level
  while true do
    local info = getinfo0(k, "Slf")
    if info == nil or info.func == run then error0(" " .. msg, 0) end
    if k > 1 and info.what ~= "C" and info.source ~= "=prelude" then
      error0(info.short_src .. ":" .. info.currentline .. ": " .. msg, 0)
    end
    k = k + 1
  end
end
base.dofile, base.loadfile = refuse("dofile"), refuse("loadfile")
base._GOPHER_LUA_VERSION = "GopherLua 0.1"
-- baselib.go base_PrintRegs dumps the VM's registers to the process's standard output and
-- returns nothing; there are no gopher registers to dump here (docs/engines.md).
base._printregs = function() end
-- module() registers in the state's own package.loaded, which outlives the evaluation.
base.module = refuse("module")
-- newproxy(true) is the one way to a finalizer, which Lua runs when the state closes, outside
-- any limit.
base.newproxy = refuse("newproxy")
-- baseCollectGarbage runs Go's collector whatever the arguments and returns nothing; the
-- collector's settings belong to the state, not to one evaluation, so no option changes them.
local collectgarbage0 = collectgarbage
base.collectgarbage = function()
  collectgarbage0("collect")
end

-- gopher channellib.go (open mode): the host's channel library (G.channel) goes to every
-- evaluation's globals, and type() names its values "channel" as gopher's LTChannel.
if open and G.channel ~= nil then
  libs.channel = G.channel
  local chan_mt = getmt(G.channel.make())
  local type0 = type
  base.type = function(...)
    if select("#", ...) == 0 then argerror(1, 1, "value expected") end
    local t = type0(...)
    if t == "userdata" and getmt((...)) == chan_mt then return "channel" end
    return t
  end
end

-- The state's real globals keep nothing a script could use to reach outside its evaluation:
-- scripts never see this table (getfenv answers with their own globals), but upvalues and the
-- registry still lead here.
for _, name in next, { "dofile", "loadfile", "require", "module", "load", "loadstring", "newproxy" } do
  G[name] = refuse(name)
end
G.package.loadlib = refuse("package.loadlib")
G.package.loaders = {}
G.package.path, G.package.cpath = "", ""
if not open then
  G.debug, G.coroutine, G.os, G.io, G.string, G.math = nil, nil, nil, nil, nil, nil
end
local getfenv0, thread_env = getfenv, G

-- What package.loaded holds for a module whose loader is running (loadlib.go loopdetection).
local LOADING = newproxy0(false)

-- The globals of one evaluation.
local function new_env()
  local env = copy(base)
  env._G = env
  env.table = copy(tablelib)
  local preload = { os = function() return { time = safe_time, date = safe_date } end }
  -- Argo reopens package after the other libraries (lua.go): loaded holds _G and table only,
  -- and require finds no other library, in both modes.
  local loaded = { _G = env, table = env.table }
  -- loadlib.go OpenPackage and config.go: gopher's default path (Argo's controller sets no
  -- LUA_PATH); the loaders are the preload loader and the Lua file loader, which here reads no
  -- file (see require).
  local package = {
    preload = preload, loaded = loaded, loaders = {}, cpath = "",
    path = "./?.lua;/usr/local/share/lua/5.1/?.lua;/usr/local/share/lua/5.1/?/init.lua",
    config = "/\n;\n?\n!\n-\n", loadlib = refuse("package.loadlib"),
    seeall = function(m) return setmetatable0(m, { __index = env }) end,
  }
  env.package = package
  for name, lib in next, libs do
    env[name] = copy(lib)
  end
  if open then env.io = setmetatable0({}, io_mt) end
  -- gopher-lua loadlib.go loRequire: the name is CheckString (a number in gopher's format);
  -- a module already loaded (a true value) is returned, one still loading is a loop; else the
  -- loaders: package.preload's function, then the Lua files of package.path, which here are
  -- never read: the search fails the way it fails on Argo's controller, which has none of them
  -- ("stat ./x.lua: no such file or directory" for each place, loFindFile). A loader's result,
  -- or what it left in package.loaded, or true, is the module.
  env.require = function(name)
    if type(name) == "number" then name = numstr(name) elseif type(name) ~= "string" then
      typeerror(1, 1, "string", name)
    end
    local v = loaded[name]
    if v then
      if v == LOADING then raise("loop or previous error loading module: " .. name) end
      return v
    end
    local pkg = env.package
    local pre = type(pkg) == "table" and pkg.preload
    if type(pre) ~= "table" then raise("package.preload must be a table") end
    local loader = pre[name]
    if loader == nil then
      local path = pkg.path
      if type(path) == "number" then path = numstr(path) end
      if type(path) ~= "string" then raise("package.path must be a string") end
      raise("module " .. name .. " not found:\n\tno field package.preload['" .. name .. "']\n\t"
        .. not_found(name, path) .. ", ")
    end
    loaded[name] = LOADING
    local ret = loader(name)
    local now = loaded[name]
    if ret ~= nil and now == LOADING then
      loaded[name] = ret
      return ret
    elseif now == LOADING then
      loaded[name] = true
      return true
    end
    return now
  end
  -- gopher baselib.go loadaux: a chunk compiled at run time goes through the rewrite the
  -- script went through (compile), and sees the script's globals, not the state's. Compiling is
  -- one library call the time limit cannot interrupt: its size is bounded.
  local function load_chunk(src, name)
    if #src > chunk_cap() then
      raise("loadstring: a chunk of " .. #src .. " bytes is over kubectl-pacto's limit of "
        .. chunk_cap() .. " bytes (Limits::max_chunk_bytes)")
    end
    local maker, e = compile(src, name)
    if maker == nil then return nil, e end
    local f = maker(gconcat, glen, g_add, g_sub, g_mul, g_div, g_mod, g_pow, g_unm, order.tab,
      order.key, g_arg, g_for, g_forlimit, g_forstep)
    setfenv0(f, env)
    return f
  end
  -- baseLoadString: CheckString(1) (a number in gopher's format), OptString(2, "<string>"); the
  -- chunk's positions use the name as it is.
  env.loadstring = function(src, name)
    if type(src) == "number" then src = numstr(src) elseif type(src) ~= "string" then
      typeerror(1, 1, "string", src)
    end
    if name == nil then name = "<string>" elseif type(name) ~= "string" then
      typeerror(1, 2, "string", name)
    end
    return load_chunk(src, name)
  end
  -- baseLoad: CheckFunction(1), OptString(2, "?"); the reader's pieces (strings or numbers) up
  -- to nil or "", anything else ending the load with "reader function must return a string".
  env.load = function(fn, name)
    if type(fn) ~= "function" then typeerror(1, 1, "function", fn) end
    if name == nil then name = "?" elseif type(name) ~= "string" then
      typeerror(1, 2, "string", name)
    end
    local parts, size = {}, 0
    while true do
      local piece = fn()
      if type(piece) == "number" then piece = numstr(piece) end
      if piece == nil or piece == "" then break end
      if type(piece) ~= "string" then return nil, "reader function must return a string" end
      size = size + #piece
      if size > chunk_cap() then
        raise("load: a chunk of more than " .. chunk_cap()
          .. " bytes is over kubectl-pacto's limit (Limits::max_chunk_bytes)")
      end
      parts[#parts + 1] = piece
    end
    return load_chunk(concat0(parts), name)
  end
  -- The state's globals are never handed out: where Lua would answer with them, the script's
  -- own globals stand in (gopher-lua has one global table per state, which is this one here).
  env.getfenv = function(f)
    if f == nil then f = 1 end
    if type(f) == "number" and f > 0 then f = f + 1 end
    local e = getfenv0(f)
    if e == G then return env end
    return e
  end
  env.setfenv = function(f, t)
    if type(f) == "number" and f > 0 then f = f + 1 end
    if f == 0 then
      thread_env = t
      return setfenv0(0, t)
    end
    return setfenv0(f, t)
  end
  return env
end

-- The last of a call's results (what Argo reads with l.Get(-1) after PCall(0, MultRet)).
local function last_of(...)
  local n = select("#", ...)
  if n == 0 then return nil end
  return (select(n, ...))
end

-- One evaluation: what the previous one may have left outside its globals undone (a thread
-- environment set with setfenv(0, t)), fresh globals with `obj` and an empty `actionParams`
-- (lua.go), and the script run in them; returns its last result. Errors pass through unchanged.
function run(chunk, obj)
  if thread_env ~= G then
    setfenv0(0, G)
    thread_env = G
  end
  local env = new_env()
  env.obj = obj
  env.actionParams = {}
  setfenv0(chunk, env)
  order.reset()
  return last_of(chunk(gconcat, glen, g_add, g_sub, g_mul, g_div, g_mod, g_pow, g_unm, order.tab,
    order.key, g_arg, g_for, g_forlimit, g_forstep))
end

return run
