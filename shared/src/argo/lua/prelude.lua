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
-- a script may compile at run time), order (what order.lua returns: gopher's table key order).

local open, numstr, tonum, parsenum, printer, safe_time, safe_date, full_time, full_date, denied,
  expired, chunk_cap, order = ...

local type, error, rawget, next, select, tostring0, setmt, getmt =
  type, error, rawget, next, select, tostring, debug.setmetatable, debug.getmetatable
local concat0, unpack0, tinsert0 = table.concat, unpack, table.insert
local setfenv0, loadstring0, load0, getmetatable0, setmetatable0, newproxy0 =
  setfenv, loadstring, load, getmetatable, setmetatable, newproxy
local G = _G

-- gopher LValue.String(): numbers in gopher's format, everything else as Lua prints it.
local function str(v)
  if type(v) == "number" then return numstr(v) end
  return tostring0(v)
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
  mod = function(a, b) return a % b end,
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
  -- Two numbers take the operator itself, compiled inline.
  local src = "local fold, type, select = ... return function(a, b, ...) "
    .. "if type(a) == 'number' and type(b) == 'number' and select('#', ...) == 0 then "
    .. "return a " .. ({ add = "+", sub = "-", mul = "*", div = "/", mod = "%", pow = "^" })[name]
    .. " b end return fold(a, b, ...) end"
  local fast = loadstring0(src, "=prelude")
  return fast(fold, type, select)
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

-- Base library as gopher has it.
local function g_tostring(...)
  if select("#", ...) == 0 then error("bad argument #1 to tostring (value expected)", 2) end
  local v = ...
  local mt = getmt(v)
  if type(v) == "number" and not (mt and rawget(mt, "__tostring")) then return numstr(v) end
  return tostring0(v)
end
local function g_tonumber(v, base)
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
-- gopher LState.TypeError/ArgError texts: "bad argument #1 to concat (table expected, got nil)".
local function check_table(v, n, fname)
  if type(v) ~= "table" then
    error("bad argument #" .. n .. " to " .. fname .. " (table expected, got " .. type(v) .. ")", 3)
  end
end
local function opt_int(v, n, fname, default)
  if v == nil then return default end
  if type(v) ~= "number" then
    error("bad argument #" .. n .. " to " .. fname .. " (number expected, got " .. type(v) .. ")", 3)
  end
  return v - v % 1
end
-- gopher baselib.go baseUnpack: values are pushed on the registry of 5120 slots (config.go
-- RegistrySize), which growth-disabled states cannot exceed: "registry overflow". What the
-- script's frames already hold is not known here; the bound counts the unpacked values only.
local REGISTRY_SLOTS = 5120
local function g_unpack(t, i, j)
  check_table(t, 1, "unpack")
  i = opt_int(i, 2, "unpack", 1)
  j = opt_int(j, 3, "unpack", tablelen(t))
  if j - i + 1 > REGISTRY_SLOTS then error("registry overflow", 2) end
  if i > j then return end
  return unpack0(t, i, j)
end
-- The key order of gopher tables (order.lua): its constructor and key functions, handed to the
-- script with the others, and its next, pairs and rawset.
local TRACK = order.track

-- gopher has no metatables on non-table values in restricted mode; strings index the string
-- library in open mode.
local function g_getmetatable(v)
  local t = type(v)
  if t == "table" or t == "userdata" then
    local mt = getmetatable0(v)
    if mt == TRACK then return nil end
    return mt
  end
  if open and t == "string" then return { __index = G.string } end
  return nil
end

-- table library as gopher-lua's tablelib.go and table.go (LTable.Append/Insert/Remove/Len) run
-- it on the array part, whose length is gopher's `#`.
local tablelib = {
  sort = table.sort,
  foreach = table.foreach,
  foreachi = table.foreachi,
  setn = table.setn,
}
tablelib.getn = function(t)
  check_table(t, 1, "getn")
  return tablelen(t)
end
tablelib.maxn = function(t)
  check_table(t, 1, "maxn")
  return tablelen(t)
end
tablelib.insert = function(t, ...)
  check_table(t, 1, "insert")
  local nargs = select("#", ...)
  if nargs == 0 then error("wrong number of arguments", 2) end
  if nargs == 1 then
    local v = ...
    if v ~= nil then t[tablelen(t) + 1] = v end
    return
  end
  local pos, v = ...
  pos = opt_int(pos, 2, "insert", nil)
  if pos == nil then
    error("bad argument #2 to insert (number expected, got nil)", 2)
  end
  local n = tablelen(t)
  if pos > n or pos <= 0 then
    t[pos] = v
    return
  end
  for k = n, pos, -1 do t[k + 1] = t[k] end
  t[pos] = v
end
tablelib.remove = function(t, ...)
  check_table(t, 1, "remove")
  local pos = -1
  if select("#", ...) > 0 then
    pos = opt_int((...), 2, "remove", nil)
    if pos == nil then error("bad argument #2 to remove (number expected, got nil)", 2) end
  end
  local n = tablelen(t)
  if n == 0 then return nil end
  local i = pos - 1
  if i >= n then return nil end
  if i == n - 1 or i < 0 then
    local v = t[n]
    t[n] = nil
    return v
  end
  local v = t[pos]
  for k = pos, n - 1 do t[k] = t[k + 1] end
  t[n] = nil
  return v
end
-- tableConcat: i and j are clamped to the length; with exactly three arguments an i outside
-- 1..len gives "".
tablelib.concat = function(t, ...)
  check_table(t, 1, "concat")
  local nargs = select("#", ...)
  local sep, i, j = ...
  if sep == nil then sep = "" elseif not canstr(sep) then
    error("bad argument #2 to concat (string expected, got " .. type(sep) .. ")", 2)
  end
  local len = tablelen(t)
  i = opt_int(i, 3, "concat", 1)
  j = opt_int(j, 4, "concat", len)
  if nargs == 2 and (i > len or i < 1) then return "" end
  if i > len then i = len end
  if i < 1 then i = 1 end
  if j > len then j = len end
  if i > j then return "" end
  local parts = {}
  for k = i, j do
    local v = t[k]
    if not canstr(v) then
      error("invalid value (" .. type(v) .. ") at index " .. str(k) .. " in table for concat", 2)
    end
    parts[#parts + 1] = str(v)
  end
  return concat0(parts, str(sep))
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
local function caught(e)
  if type(e) == "userdata" then
    local text = host_error_text(e)
    if text ~= nil then return text end
  end
  return e
end

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
  local math = copy(G.math)
  math.mod = math.fmod
  math.huge = 1.7976931348623157e308
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
  -- Errors past the deadline cannot be swallowed by a resumed coroutine either.
  local coroutine = copy(G.coroutine)
  local resume0 = coroutine.resume
  coroutine.resume = function(...)
    local r = { resume0(...) }
    if r[1] == false then r[2] = caught(r[2]) end
    if expired() then error("context deadline exceeded", 2) end
    return unpack0(r, 1, maxn0(r))
  end
  coroutine.wrap = function(f)
    local co = G.coroutine.create(f)
    return function(...)
      local r = { coroutine.resume(co, ...) }
      if not r[1] then error(r[2], 0) end
      return unpack0(r, 2, maxn0(r))
    end
  end
  libs = { os = os, string = string, math = math, debug = debug, coroutine = coroutine }
  string_mt.__index = string
end
local io_mt = { __index = function(_, k) return refuse("io." .. tostring0(k)) end }

-- The base functions every environment starts from.
local base = {}
for _, name in next, {
  "assert", "collectgarbage", "gcinfo", "ipairs", "next",
  "pairs", "pcall", "rawequal", "rawget", "rawset", "select", "setmetatable", "type",
  "xpcall", "_VERSION",
} do
  base[name] = G[name]
end
base.tostring, base.tonumber, base.print, base.unpack = g_tostring, g_tonumber, g_print, g_unpack
base.getmetatable = g_getmetatable
base.next, base.pairs, base.rawset = order.next, order.pairs, order.rawset
-- Argo's limit is a cancelled context that every instruction checks; here the deadline error is
-- raised again after any protected call, so a script cannot catch it and run on.
local pcall0, xpcall0, error0 = pcall, xpcall, error
-- gopher baselib.go basePCall: a value that cannot be called is reported without a position, in
-- Lua's own words.
base.pcall = function(...)
  if select("#", ...) == 0 then error("bad argument #1 to pcall (value expected)", 2) end
  local f = ...
  if type(f) ~= "function" then
    local mt = getmt(f)
    if type(f) ~= "table" or not (mt and type(rawget(mt, "__call")) == "function") then
      return false, "attempt to call a " .. type(f) .. " value"
    end
  end
  local r = { pcall0(...) }
  if r[1] == false then r[2] = caught(r[2]) end
  if expired() then error("context deadline exceeded", 2) end
  return unpack0(r, 1, maxn0(r))
end
base.xpcall = function(...)
  local f, h = ...
  local r
  if type(h) == "function" and select("#", ...) == 2 then
    r = { xpcall0(f, function(e) return h(caught(e)) end) }
  else
    r = { xpcall0(...) }
  end
  if expired() then error("context deadline exceeded", 2) end
  return unpack0(r, 1, maxn0(r))
end
-- gopher baselib.go baseError and state.go raiseError/where/GetStack: the value is required
-- (CheckAny), the level must be a number (OptInt); only a string message gets a position, that of
-- gopher frame `level - 1` counted from error's own frame, Go frames skipped outward. So levels
-- 1 and 2 both name the line of the error call, 3 the caller's line (PUC Lua: 2 is the caller).
-- Here C functions and the prelude's stand-ins for gopher's Go functions are the Go frames;
-- `run`, below the script's main chunk, is past gopher's stack: the message then starts with
-- the space of gopher's "%v %v" with an empty position.
local getinfo0 = debug.getinfo
local run
base.error = function(...)
  local nargs = select("#", ...)
  if nargs == 0 then error0("bad argument #1 to error (value expected)", 2) end
  local msg, level = ...
  if level == nil then level = 1 elseif type(level) ~= "number" then
    error0("bad argument #2 to error (number expected, got " .. type(level) .. ")", 2)
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
-- module() registers in the state's own package.loaded, which outlives the evaluation.
base.module = refuse("module")
-- newproxy(true) is the one way to a finalizer, which Lua runs when the state closes, outside
-- any limit.
base.newproxy = refuse("newproxy")
-- The collector's settings belong to the state, not to one evaluation: only "count", "collect"
-- and "step" are honoured; the others do nothing.
local collectgarbage0 = collectgarbage
base.collectgarbage = function(opt, arg)
  if opt == nil or opt == "collect" or opt == "count" or opt == "step" then
    return collectgarbage0(opt, arg)
  end
  return 0
end

-- gopher channellib.go (open mode): the host's channel library (G.channel) goes to every
-- evaluation's globals, and type() names its values "channel" as gopher's LTChannel.
if open and G.channel ~= nil then
  libs.channel = G.channel
  local chan_mt = getmt(G.channel.make())
  local type0 = type
  base.type = function(...)
    if select("#", ...) == 0 then error("bad argument #1 to type (value expected)", 2) end
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

-- Chunks refused as gopher-lua refuses them: it has no binary chunk loader, and LuaJIT trusts
-- its bytecode.
local function text_only(src)
  if type(src) == "string" and src >= "\27" and src < "\28" then
    return nil, "binary chunks are not accepted"
  end
  return src
end

-- The globals of one evaluation.
local function new_env()
  local env = copy(base)
  env._G = env
  env.table = copy(tablelib)
  local preload = { os = function() return { time = safe_time, date = safe_date } end }
  -- Argo reopens package after the other libraries (lua.go): loaded holds _G and table only,
  -- and require finds no other library, in both modes.
  local loaded = { _G = env, table = env.table }
  local package = {
    preload = preload, loaded = loaded, loaders = {}, path = "", cpath = "",
    config = "/\n;\n?\n!\n-\n", loadlib = refuse("package.loadlib"),
    seeall = function(m) return setmetatable0(m, { __index = env }) end,
  }
  env.package = package
  for name, lib in next, libs do
    env[name] = copy(lib)
  end
  if open then env.io = setmetatable0({}, io_mt) end
  -- gopher-lua loadlib.go loRequire: "module %s not found:" and the places searched.
  env.require = function(name)
    if type(name) ~= "string" then
      error("bad argument #1 to require (string expected, got " .. type(name) .. ")", 2)
    end
    local v = loaded[name]
    if v ~= nil then return v end
    local loader = preload[name]
    if loader == nil then
      error("module " .. name .. " not found:\n\tno field package.preload['" .. name
        .. "']\n\tkubectl-pacto never loads Lua files from disk", 2)
    end
    v = loader(name)
    if v == nil then v = true end
    loaded[name] = v
    return v
  end
  -- Chunks compiled by the script see the script's globals, not the state's.
  env.loadstring = function(src, name)
    local ok, e = text_only(src)
    if not ok then return nil, e end
    -- Compiling is one library call the time limit cannot interrupt: its size is bounded.
    if type(src) == "string" and #src > chunk_cap() then
      error("loadstring: a chunk of " .. #src .. " bytes is over kubectl-pacto's limit of "
        .. chunk_cap() .. " bytes (Limits::max_chunk_bytes)", 2)
    end
    -- gopher baselib.go baseLoadString: the chunk is named "<string>" unless a name is given,
    -- and errors show that name as it is.
    if name == nil then name = "<string>" end
    local f
    f, e = loadstring0(src, "=" .. tostring0(name))
    if f then setfenv0(f, env) end
    return f, e
  end
  env.load = function(fn, name)
    if type(fn) ~= "function" then return env.loadstring(fn, name) end
    local parts = {}
    while true do
      local piece = fn()
      if piece == nil or piece == "" then break end
      parts[#parts + 1] = piece
    end
    return env.loadstring(concat0(parts), name)
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
    order.key))
end

return run
