-- The sandbox prelude of kubectl-pacto's Argo CD health engine.
--
-- Runs once in every fresh LuaJIT state, before the health script, and makes the state look and
-- fail the way Argo CD's gopher-lua v1.1.2 state does (argo-cd util/lua/lua.go, gopher-lua
-- state.go / vm.go). Returns the two functions the source rewriter routes `..` and `#` through.
--
-- Arguments from the host: open (useOpenLibs), numstr (gopher number formatting), tonum
-- (gopher tonumber), parsenum (gopher arithmetic coercion), printer (collects print output),
-- safe_time, safe_date (Argo's oslib_safe.go), full_time, full_date (gopher's own os.time and
-- os.date), denied (raises the error for a function kubectl-pacto never lets a script call).

local open, numstr, tonum, parsenum, printer, safe_time, safe_date, full_time, full_date, denied = ...

local type, error, rawget, next, select, tostring0, setmt, getmt =
  type, error, rawget, next, select, tostring, debug.setmetatable, debug.getmetatable
local concat0, unpack0, tinsert0 = table.concat, unpack, table.insert

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
setmt(nil, base_mt("nil"))
setmt(false, base_mt("boolean"))
setmt(0, base_mt("number"))
setmt(print, base_mt("function"))
local string_mt = base_mt("string")
if open then string_mt.__index = string end
setmt("", string_mt)

-- Base library as gopher has it.
tostring = function(...)
  if select("#", ...) == 0 then error("bad argument #1 to tostring (value expected)", 2) end
  local v = ...
  local mt = getmt(v)
  if type(v) == "number" and not (mt and rawget(mt, "__tostring")) then return numstr(v) end
  return tostring0(v)
end
tonumber = function(v, base)
  if type(v) == "number" then return v end
  if type(v) == "string" then return tonum(v, base) end
  return nil
end
print = function(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  printer(concat0(parts, "\t"))
end
unpack = function(t, i, j)
  return unpack0(t, i or 1, j or tablelen(t))
end
dofile = function() denied("dofile") end
loadfile = function() denied("loadfile") end

-- table library on gopher's length.
table.getn = glen
table.maxn = tablelen
table.insert = function(t, ...)
  local n = select("#", ...)
  if n == 1 then
    t[tablelen(t) + 1] = ...
    return
  end
  return tinsert0(t, ...)
end
table.remove = function(t, pos)
  local n = tablelen(t)
  if n == 0 then return nil end
  pos = pos or n
  local v = t[pos]
  for i = pos, n - 1 do t[i] = t[i + 1] end
  t[n] = nil
  return v
end
table.concat = function(t, sep, i, j)
  sep = sep or ""
  i = i or 1
  j = j or tablelen(t)
  local parts = {}
  for k = i, j do
    local v = t[k]
    if not canstr(v) then
      error("invalid value (" .. type(v) .. ") at index " .. str(k) .. " in table for concat", 2)
    end
    parts[#parts + 1] = str(v)
  end
  return concat0(parts, sep)
end

-- package: `require` finds only preloaded modules; Lua and C files are never read. The message
-- is gopher-lua's (loadlib.go loLoader/loRequire: "module %s not found:" and the searched places).
local safe_os = { time = safe_time, date = safe_date }
package.preload = { os = function() return safe_os end }
local loaded0 = package.loaded
require = function(name)
  if type(name) ~= "string" then error("bad argument #1 to require (string expected, got " .. type(name) .. ")", 2) end
  local v = loaded0[name]
  if v ~= nil then return v end
  local loader = package.preload[name]
  if loader == nil then
    error("module " .. name .. " not found:\n\tno field package.preload['" .. name .. "']\n\tkubectl-pacto never loads Lua files from disk", 2)
  end
  v = loader(name)
  if v == nil then v = true end
  loaded0[name] = v
  return v
end
package.loadlib = function() denied("package.loadlib") end
package.path, package.cpath = "", ""
local loaded = package.loaded
for _, name in next, { "os", "io", "string", "math", "debug", "coroutine", "jit", "bit" } do
  loaded[name] = nil
end

if open then
  -- gopher's full os library, minus everything that reaches outside the process.
  for _, name in next, { "execute", "exit", "getenv", "remove", "rename", "setenv", "tmpname" } do
    os[name] = function() denied("os." .. name) end
  end
  os.time, os.date = full_time, full_date
  os.setlocale = function() return nil end
  io = setmetatable({}, {
    __index = function(_, k) return function() denied("io." .. tostring0(k)) end end,
  })
  string.gfind = string.gmatch
  math.mod = math.fmod
  math.huge = 1.7976931348623157e308
  loaded.string, loaded.math, loaded.io, loaded.debug = string, math, io, debug
  loaded.os, loaded.coroutine = nil, coroutine
else
  string, math, os, io, debug, coroutine = nil, nil, nil, nil, nil, nil
end
_GOPHER_LUA_VERSION = "GopherLua 0.1"

return gconcat, glen
