-- gopher-lua's array part and key order, the first file of the prelude (see prelude.rs for the
-- order): the length rule below is the only one in the engine; the host's table.sort and
-- channel.select read it through `len`, and the other files through P.order.
--
-- gopher-lua v1.1.2 (gopher table.go RawSet/RawSetString/RawSetH, Len, Next; baselib.go
-- basePairs/pairsaux/baseNext): positive integer keys below MaxArrayIndex live in the array part
-- and come first, in ascending order; every other key is appended to `keys` the first time it is
-- set to a non-nil value and keeps that place even after it is set to nil and set again; `next`
-- and `pairs` visit the array part, then `keys` in that order, skipping nil values. LuaJIT keeps
-- no insertion order, so the order is recorded here: the source rewriter routes every table
-- constructor through `gtab`, which gives the table the `TRACK` metatable and records the keyed
-- fields in source order; `TRACK.__newindex` records every later new key. Tables that did not
-- come from the script's constructors (`obj`, whose keys Argo's decodeValue sets in Go's random
-- map order) are visited in LuaJIT's order after their array part.
local P = ...
local MAX_ARRAY_INDEX = 67108864
local type, error, rawget, rawset0, rawequal0, next, select = type, error, rawget, rawset, rawequal, next, select
local setmetatable0, getmetatable0, sort0 = setmetatable, getmetatable, table.sort
local ORDER = setmetatable({}, { __mode = "k" })
-- Whether `k` is a key of gopher's array part.
local function arraykey(k)
  return type(k) == "number" and k >= 1 and k < MAX_ARRAY_INDEX and k % 1 == 0
end
-- `#t` of a gopher table (vm.go objLen, table.go Len): the highest key of the array part that
-- holds a value, because LTable.RawSetInt pads the array part with nils, so that a table with
-- holes has the length of its last element. Also what table.getn/insert/remove/concat, unpack,
-- table.sort and channel.select take as the array's end.
local function len(t)
  local n = 0
  for k in next, t do
    if type(k) == "number" and k > n and arraykey(k) then n = k end
  end
  return n
end
local function record(t, k)
  local o = ORDER[t]
  if o == nil then
    o = { n = 0, at = {} }
    ORDER[t] = o
  end
  if o.at[k] == nil then
    local n = o.n + 1
    o.n = n
    o[n] = k
    o.at[k] = n
  end
end
local TRACK = {}
TRACK.__newindex = function(t, k, v)
  if k == nil then error("table index is nil", 2) end
  if k ~= k then error("table index is NaN", 2) end
  rawset0(t, k, v)
  if v ~= nil and not arraykey(k) then record(t, k) end
end
-- The dynamic keys (`[k] = v`) of the constructors being built, innermost last, with their count
-- in `n`: one stack per coroutine (open mode has coroutines; `coroutine.running` is nil on the
-- main thread in Lua 5.1), so that a constructor suspended by a yield keeps its keys.
local running0 = coroutine and coroutine.running
local main_stack = { n = 0 }
local STACKS = setmetatable({}, { __mode = "k" })
local function stack()
  local co = running0 and running0()
  if co == nil then return main_stack end
  local p = STACKS[co]
  if p == nil then
    p = { n = 0 }
    STACKS[co] = p
  end
  return p
end
local function gkey(k)
  local p = stack()
  local n = p.n + 1
  p.n = n
  p[n] = k
  return k
end
-- `__pacto_tab(t, ...)`: the constructor's keyed fields in source order, a name for `name = v`,
-- false for the next dynamic key; more than a few dozen come as one table.
local function gtab(t, ...)
  setmetatable0(t, TRACK)
  local n = select("#", ...)
  if n == 0 then return t end
  local spec = ...
  if type(spec) ~= "table" then spec = { ... } else n = #spec end
  local dynamic = 0
  for i = 1, n do
    if spec[i] == false then dynamic = dynamic + 1 end
  end
  local p = stack()
  local npending = p.n
  local base_ = npending - dynamic
  if base_ < 0 then base_ = 0 end
  local d = base_
  for i = 1, n do
    local k = spec[i]
    if k == false then
      d = d + 1
      k = p[d]
    end
    if k ~= nil and k == k and not arraykey(k) and rawget(t, k) ~= nil then record(t, k) end
  end
  for i = base_ + 1, npending do p[i] = nil end
  p.n = base_
  return t
end
-- Where the current coroutine's pending keys stand, and going back there: a protected call that
-- fails drops the keys of the constructors its error interrupted (baselib.lua pcall, xpcall).
local function mark()
  return stack().n
end
local function restore(m)
  local p = stack()
  for i = m + 1, p.n do p[i] = nil end
  if p.n > m then p.n = m end
end
-- One traversal's view of a table: its array keys in ascending order (`top` the highest, past
-- which keys appended since are found by probing) and the keys that are neither array keys nor
-- recorded, in LuaJIT's order; `phase`/`i`/`last` say where the last
-- `next` stopped, so that a loop costs one pass.
local ITER = setmetatable({}, { __mode = "k" })
local function snapshot(t)
  local ints, ni, rest, nr, sorted, prev = {}, 0, {}, 0, true, 0
  local o = ORDER[t]
  local at = o and o.at
  for k in next, t do
    if arraykey(k) then
      ni = ni + 1
      ints[ni] = k
      if k < prev then sorted = false end
      prev = k
    elseif not (at and at[k]) then
      nr = nr + 1
      rest[nr] = k
    end
  end
  if not sorted then sort0(ints) end
  local s = { ints = ints, ni = ni, rest = rest, nr = nr, phase = 1, i = 0, top = prev }
  if not sorted then s.top = ints[ni] end
  ITER[t] = s
  return s
end
local function position(s, t, k)
  if arraykey(k) then
    local lo, hi = 1, s.ni
    while lo <= hi do
      local mid = (lo + hi - (lo + hi) % 2) / 2
      local v = s.ints[mid]
      if v == k then return 1, mid end
      if v < k then lo = mid + 1 else hi = mid - 1 end
    end
    if k > s.top then s.top = k end
    return 1, lo - 1
  end
  local o = ORDER[t]
  local at = o and k == k and k ~= nil and o.at[k]
  if at then return 2, at end
  for i = 1, s.nr do
    if rawequal0(s.rest[i], k) then return 3, i end
  end
  -- Next: a key gopher cannot place (k2i answers 0) continues after the first of `keys`.
  return 2, 1
end
-- The first key of `list[i + 1 .. n]` that holds a value in `t`: its index, the key and the value.
local function scan(t, list, i, n)
  while i < n do
    i = i + 1
    local key = list[i]
    local v = rawget(t, key)
    if v ~= nil then return i, key, v end
  end
  return nil
end
-- gopher LTable.Next over the recorded order: the key after `k` and its value, or nil. Phase 1
-- is the array part, 2 the recorded keys, 3 the keys recorded nowhere.
local function gnext(t, k)
  local s, phase, i
  if k == nil then
    s = snapshot(t)
    phase, i = 1, 0
  else
    s = ITER[t]
    if s ~= nil and rawequal0(s.last, k) then
      phase, i = s.phase, s.i
    else
      s = s or snapshot(t)
      phase, i = position(s, t, k)
    end
  end
  local key, v
  if phase == 1 then
    i, key, v = scan(t, s.ints, i, s.ni)
    if i == nil then
      -- gopher's array part is walked live: items appended during the traversal are visited.
      i, key = s.ni, s.top + 1
      v = key < MAX_ARRAY_INDEX and rawget(t, key) or nil
      if v ~= nil then s.top = key end
    end
    if v ~= nil then
      s.phase, s.i, s.last = 1, i, key
      return key, v
    end
    phase, i = 2, 0
  end
  if phase == 2 then
    local o = ORDER[t]
    if o ~= nil then i, key, v = scan(t, o, i, o.n) end
    if v ~= nil then
      s.phase, s.i, s.last = 2, i, key
      return key, v
    end
    i = 0
  end
  i, key, v = scan(t, s.rest, i, s.nr)
  if v ~= nil then
    s.phase, s.i, s.last = 3, i, key
    return key, v
  end
  s.phase, s.i, s.last = 3, s.nr, nil
  return nil
end
-- The prelude's error functions (auxlib.lua argerror, raise): gopher auxlib.go ArgError/
-- TypeError and RaiseError at the script's line, the function named as the calling line names
-- it. Set by `install` before any script runs.
local argerror, raise = error, error
local function install(a, r)
  argerror, raise = a, r
end
-- CheckTable(1) for the function that called check_table_arg (a missing argument is nil).
local function check_table_arg(t)
  if type(t) ~= "table" then argerror(2, 1, "table expected, got " .. type(t)) end
end
local function g_next(t, k)
  check_table_arg(t)
  return gnext(t, k)
end
local function pairsaux(t, k)
  if type(t) ~= "table" then
    raise("bad argument #1 to ? (table expected, got " .. type(t) .. ")")
  end
  local key, v = gnext(t, k)
  if key == nil then return end
  return key, v
end
local function g_pairs(t)
  check_table_arg(t)
  return pairsaux, t, nil
end
-- gopher baselib.go baseRawSet: CheckTable, CheckAny, CheckAny; no results.
local function g_rawset(...)
  local t, k, v = ...
  local n = select("#", ...)
  check_table_arg(t)
  if n < 3 then argerror(1, n + 1, "value expected") end
  if k == nil then raise("table index is nil") end
  if k ~= k then raise("table index is NaN") end
  rawset0(t, k, v)
  if v ~= nil and getmetatable0(t) == TRACK and not arraykey(k) then record(t, k) end
end

-- A new evaluation: constructors an error interrupted in the last one left their keys.
local function reset()
  for i = 1, main_stack.n do main_stack[i] = nil end
  main_stack.n = 0
end

P.order = {
  tab = gtab, key = gkey, next = g_next, pairs = g_pairs, rawset = g_rawset, track = TRACK,
  reset = reset, install = install, mark = mark, restore = restore, len = len,
}
