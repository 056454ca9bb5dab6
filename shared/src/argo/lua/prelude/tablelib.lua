-- gopher-lua's table library (tablelib.go, and table.go for the array part): P.tablelib, the
-- `table` of every evaluation's globals, in both modes.
--
-- Its sort is the state's table.sort, which the host replaced by gopher's (Go's pdqsort,
-- sortlib.rs).
local P = ...
local type, select = type, select
local concat0 = table.concat
local raise, typeerror, check_table, opt_int, canstr, str =
  P.raise, P.typeerror, P.check_table, P.opt_int, P.canstr, P.str
local tablelen = P.order.len

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
P.tablelib = tablelib
