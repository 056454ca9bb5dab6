-- gopher-lua's table library, and its math and coroutine libraries for open mode, for
-- kubectl-pacto's Argo CD health engine: a chunk of its own, which the prelude (prelude.lua)
-- runs once per LuaJIT state with its helpers (raise, argerror, typeerror: gopher's
-- RaiseError/ArgError/TypeError at the script's line; check_table, opt_int: CheckTable and
-- OptInt; tablelen: gopher's `#`; canstr, str: LVCanConvToString and LValue.String; pack;
-- caught: an error value as a script's pcall gets it; expired: past the time limit; parsenum:
-- gopher's parseNumber; luamod: gopher's `%`). It returns the table library and the functions
-- that build the math and coroutine libraries from LuaJIT's (open mode only).
local h = ...
local raise, argerror, typeerror, check_table, opt_int, tablelen, canstr, str, pack, caught,
  expired, parsenum, luamod =
  h.raise, h.argerror, h.typeerror, h.check_table, h.opt_int, h.tablelen, h.canstr, h.str,
  h.pack, h.caught, h.expired, h.parsenum, h.luamod
local type, select, next, error, unpack0, concat0 = type, select, next, error, unpack, table.concat
local G = _G
local M = {}

-- table library as gopher-lua's tablelib.go and table.go (LTable.Append/Insert/Remove/Len) run
-- it on the array part, whose length is gopher's `#`: concat, getn, insert, maxn, remove, sort.
local tablelib = {
  sort = table.sort,
}
tablelib.getn = function(t)
  check_table(t, 1)
  return tablelen(t)
end
tablelib.maxn = function(t)
  check_table(t, 1)
  return tablelen(t)
end
tablelib.insert = function(t, ...)
  check_table(t, 1)
  local nargs = select("#", ...)
  if nargs == 0 then raise("wrong number of arguments") end
  if nargs == 1 then
    local v = ...
    if v ~= nil then t[tablelen(t) + 1] = v end
    return
  end
  local pos, v = ...
  pos = opt_int(pos, 2, nil)
  if pos == nil then typeerror(1, 2, "number", nil) end
  local n = tablelen(t)
  if pos > n or pos <= 0 then
    t[pos] = v
    return
  end
  for k = n, pos, -1 do t[k + 1] = t[k] end
  t[pos] = v
end
tablelib.remove = function(t, ...)
  check_table(t, 1)
  local pos = -1
  if select("#", ...) > 0 then
    pos = opt_int((...), 2, nil)
    if pos == nil then typeerror(1, 2, "number", nil) end
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
-- tableConcat: the separator is OptString (a string, not a number); i and j are clamped to the
-- length; with exactly three arguments an i outside 1..len gives "".
tablelib.concat = function(t, ...)
  check_table(t, 1)
  local nargs = select("#", ...)
  local sep, i, j = ...
  if sep == nil then sep = "" elseif type(sep) ~= "string" then typeerror(1, 2, "string", sep) end
  local len = tablelen(t)
  i = opt_int(i, 3, 1)
  j = opt_int(j, 4, len)
  if nargs == 2 and (i > len or i < 1) then return "" end
  if i > len then i = len end
  if i < 1 then i = 1 end
  if j > len then j = len end
  if i > j then return "" end
  local parts = {}
  for k = i, j do
    local v = t[k]
    if not canstr(v) then
      raise("invalid value (" .. type(v) .. ") at index " .. str(k) .. " in table for concat")
    end
    parts[#parts + 1] = str(v)
  end
  return concat0(parts, sep)
end
M.table = tablelib

-- gopher-lua mathlib.go: Go's math functions over CheckNumber (a number, or a string gopher's
-- parseNumber reads: "010" is 8) and CheckInt (a number only, truncated); `log` ignores a
-- base, `max`/`min` need an argument and keep the first of equal or unordered values (NaN),
-- `mod` is gopher's `%` (luaModulo: the sign of the divisor) where `fmod` is Go's math.Mod (the
-- sign of the dividend), `modf` of an infinity has a NaN fraction, `deg`/`rad` multiply then
-- divide.
function M.math()
  local m0 = G.math
  local floor0, modf0, huge = m0.floor, m0.modf, 1 / 0
  local function checknum(v, n)
    if type(v) == "number" then return v end
    if type(v) == "string" then
      local x = parsenum(v)
      if x ~= nil then return x end
    end
    typeerror(2, n, "number", v)
  end
  local function checkint(v, n)
    if type(v) ~= "number" then typeerror(2, n, "number", v) end
    if v < 0 then return -floor0(-v) end
    return floor0(v)
  end
  local m = { pi = m0.pi, huge = 1.7976931348623157e308, random = m0.random,
    randomseed = m0.randomseed }
  for _, name in next, { "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "exp", "floor",
    "log10", "sin", "sinh", "sqrt", "tan", "tanh", "frexp" } do
    local f = m0[name]
    m[name] = function(x) return f(checknum(x, 1)) end
  end
  for _, name in next, { "atan2", "fmod", "pow" } do
    local f = m0[name]
    m[name] = function(x, y)
      x = checknum(x, 1)
      return f(x, checknum(y, 2))
    end
  end
  local log0, ldexp0, pi = m0.log, m0.ldexp, m0.pi
  m.log = function(x) return log0(checknum(x, 1)) end
  m.ldexp = function(x, e)
    x = checknum(x, 1)
    return ldexp0(x, checkint(e, 2))
  end
  m.deg = function(x) return checknum(x, 1) * 180 / pi end
  m.rad = function(x) return checknum(x, 1) * pi / 180 end
  m.modf = function(x)
    x = checknum(x, 1)
    if x == huge or x == -huge then return x, 0 / 0 end
    return modf0(x)
  end
  m.mod = function(x, y)
    x = checknum(x, 1)
    return luamod(x, checknum(y, 2))
  end
  m.max = function(...)
    local n = select("#", ...)
    if n == 0 then raise("wrong number of arguments") end
    local best = checknum((...), 1)
    for i = 2, n do
      local v = checknum((select(i, ...)), i)
      if v > best then best = v end
    end
    return best
  end
  m.min = function(...)
    local n = select("#", ...)
    if n == 0 then raise("wrong number of arguments") end
    local best = checknum((...), 1)
    for i = 2, n do
      local v = checknum((select(i, ...)), i)
      if v < best then best = v end
    end
    return best
  end
  return m
end

-- gopher coroutinelib.go: create, resume, running, status, wrap, yield, with gopher's
-- argument checks (CheckThread, CheckFunction) and texts. Errors past the deadline cannot be
-- swallowed by a resumed coroutine either.
function M.coroutine()
  local co0 = G.coroutine
  local create0, resume0, status0, yield0, running0 =
    co0.create, co0.resume, co0.status, co0.yield, co0.running
  local function resumed(co, wrapped, ...)
    local r = pack(resume0(co, ...))
    if r[1] == false then
      local e = caught(r[2])
      if e == "cannot resume dead coroutine" then
        e = "can not resume a dead thread"
        if wrapped then raise(e) end
      elseif e == "cannot resume non-suspended coroutine" then
        e = "can not resume a running thread"
        if wrapped then raise(e) end
      end
      r[2] = e
    end
    if expired() then error("context deadline exceeded", 3) end
    return r
  end
  local coroutine = {
    create = function(f)
      if type(f) ~= "function" then typeerror(1, 1, "function", f) end
      return create0(f)
    end,
    resume = function(co, ...)
      if type(co) ~= "thread" then typeerror(1, 1, "thread", co) end
      local r = resumed(co, false, ...)
      return unpack0(r, 1, r.n)
    end,
    running = running0,
    status = function(co)
      if type(co) ~= "thread" then typeerror(1, 1, "thread", co) end
      return status0(co)
    end,
    wrap = function(f)
      if type(f) ~= "function" then typeerror(1, 1, "function", f) end
      local co = create0(f)
      return function(...)
        local r = resumed(co, true, ...)
        if not r[1] then error(r[2], 0) end
        return unpack0(r, 2, r.n)
      end
    end,
    yield = function(...)
      if running0() == nil then raise("can not yield from outside of a coroutine") end
      return yield0(...)
    end,
  }
  return coroutine
end

return M
