-- gopher-lua's VM where a script's operators and statements see it (gopher vm.go, state.go): `#`,
-- `..`, arithmetic and unary minus, the errors of indexing, calling or computing with a value
-- that has no such operation (the metatables of the types that are not tables), the numeric
-- `for`, and the `arg` table of vararg functions.
--
-- The source rewriter (gopher routes.rs) routes these constructs through functions; `routed`, at
-- the end, gives each of them under the name the rewriter calls it by, and the sandbox checks
-- that the two agree when it prepares a state.
--
-- From the host (P): parsenum (gopher's parseNumber, the arithmetic coercion of strings), luamod
-- (gopher's `%`, luaModulo).
local P = ...
local type, error, rawget, next, select = type, error, rawget, next, select
local setmt, getmt, loadstring0 = debug.setmetatable, debug.getmetatable, loadstring
local concat0 = table.concat
local parsenum, luamod, order = P.parsenum, P.luamod, P.order
local str, raise, canstr, tablelen = P.str, P.raise, P.canstr, order.len

-- The raw metatable's handler for an event, first operand first (gopher state.go metaOp2).
local function metaop2(a, b, event)
  local mt = getmt(a)
  local h = mt and rawget(mt, event)
  if h ~= nil then return h end
  mt = getmt(b)
  return mt and rawget(mt, event)
end

-- OP_LEN (gopher vm.go objLen): strings by bytes, then a __len handler, then tables (order.lua's
-- length), else an error.
local function glen(v)
  if type(v) == "string" then return #v end
  local mt = getmt(v)
  local h = mt and rawget(mt, "__len")
  if type(h) == "function" then return (h(v)) end
  if type(v) == "table" then return tablelen(v) end
  error("__len undefined", 2)
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
-- Strings index as the other values do; open mode gives them the string library as methods
-- (refused.lua).
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

P.string_mt = string_mt
-- What the rewritten source calls, by the name it calls it (gopher routes.rs ROUTED).
P.routed = {
  __pacto_concat = gconcat, __pacto_len = glen,
  __pacto_add = g_add, __pacto_sub = g_sub, __pacto_mul = g_mul, __pacto_div = g_div,
  __pacto_mod = g_mod, __pacto_pow = g_pow, __pacto_unm = g_unm,
  __pacto_tab = order.tab, __pacto_key = order.key, __pacto_arg = g_arg,
  __pacto_for = g_for, __pacto_forlimit = g_forlimit, __pacto_forstep = g_forstep,
}
