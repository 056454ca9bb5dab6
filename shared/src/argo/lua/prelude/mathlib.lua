-- gopher-lua's math library (mathlib.go), open mode only: P.mathlib() builds it from LuaJIT's.
--
-- From the host (P): parsenum (gopher's parseNumber), luamod (gopher's `%`, luaModulo).
local P = ...
local type, select, next = type, select, next
local G = _G
local raise, typeerror, parsenum, luamod = P.raise, P.typeerror, P.parsenum, P.luamod

-- gopher-lua mathlib.go: Go's math functions over CheckNumber (a number, or a string gopher's
-- parseNumber reads: "010" is 8) and CheckInt (a number only, truncated); `log` ignores a
-- base, `max`/`min` need an argument and keep the first of equal or unordered values (NaN),
-- `mod` is gopher's `%` (luaModulo: the sign of the divisor) where `fmod` is Go's math.Mod (the
-- sign of the dividend), `modf` of an infinity has a NaN fraction, `deg`/`rad` multiply then
-- divide.
function P.mathlib()
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
