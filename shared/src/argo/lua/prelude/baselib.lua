-- gopher-lua's base library (baselib.go), the functions every evaluation's globals start from:
-- P.base. What of it a script is refused (dofile, loadfile, module, newproxy) is refused.lua's;
-- the loaders (require, loadstring, load) and getfenv/setfenv belong to one evaluation's globals
-- (env.lua).
--
-- From the host (P): numstr (gopher number formatting), tonum (gopher tonumber), printer (collects
-- print output), expired (true once the evaluation is past its wall-clock limit), channel (open
-- mode only: the channel library).
local P = ...
local type, error, rawget, select, tostring0, setmt, getmt =
  type, error, rawget, select, tostring, debug.setmetatable, debug.getmetatable
local concat0, unpack0 = table.concat, unpack
local getmetatable0, setmetatable0 = getmetatable, setmetatable
local G = _G
local getinfo0 = debug.getinfo
local numstr, tonum, printer, expired, order = P.numstr, P.tonum, P.printer, P.expired, P.order
local raise, argerror, typeerror, check_table, opt_int, pack, caught =
  P.raise, P.argerror, P.typeerror, P.check_table, P.opt_int, P.pack, P.caught
local tablelen, TRACK = order.len, order.track

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

-- gopher has no metatables on non-table values in restricted mode; strings index the string
-- library in open mode (the state has one only then, refused.lua). baseGetMetatable: CheckAny.
local function g_getmetatable(...)
  if select("#", ...) == 0 then argerror(1, 1, "value expected") end
  local v = ...
  local t = type(v)
  if t == "table" or t == "userdata" then
    local mt = getmetatable0(v)
    if mt == TRACK then return nil end
    return mt
  end
  if t == "string" and G.string ~= nil then return { __index = G.string } end
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

local base = {}
for _, name in next, { "next", "pairs", "rawequal", "rawget", "rawset", "type", "_VERSION" } do
  base[name] = G[name]
end
base.tostring, base.tonumber, base.print, base.unpack = g_tostring, g_tonumber, g_print, g_unpack
base.getmetatable, base.setmetatable, base.assert = g_getmetatable, g_setmetatable, g_assert
base.ipairs, base.select = g_ipairs, g_select
-- The key order of gopher tables (order.lua): its next, pairs and rawset.
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
-- `run` (P.run, env.lua), below the script's main chunk, is past gopher's stack: the message
-- then starts with the space of gopher's "%v %v" with an empty position.
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
  local run = P.run
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
base._GOPHER_LUA_VERSION = "GopherLua 0.1"
-- baselib.go base_PrintRegs dumps the VM's registers to the process's standard output and
-- returns nothing; there are no gopher registers to dump here (docs/engines.md).
base._printregs = function() end
-- baseCollectGarbage runs Go's collector whatever the arguments and returns nothing; the
-- collector's settings belong to the state, not to one evaluation, so no option changes them.
local collectgarbage0 = collectgarbage
base.collectgarbage = function()
  collectgarbage0("collect")
end

-- gopher channellib.go (open mode, where the host gives the channel library): type() names its
-- values "channel" as gopher's LTChannel.
if P.channel ~= nil then
  local chan_mt = getmt(P.channel.make())
  local type0 = type
  base.type = function(...)
    if select("#", ...) == 0 then argerror(1, 1, "value expected") end
    local t = type0(...)
    if t == "userdata" and getmt((...)) == chan_mt then return "channel" end
    return t
  end
end

P.base = base
