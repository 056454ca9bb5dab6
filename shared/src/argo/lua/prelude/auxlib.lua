-- gopher-lua's error reporting and argument checks, which every later file of the prelude uses
-- (prelude.rs gives the order): state.go RaiseError and `where`, auxlib.go ArgError, TypeError,
-- CheckTable and OptInt, LValue.String, and the error value a script's pcall gets.
--
-- From the host (P): numstr (gopher number formatting), where (`<string>:LINE: ` of the innermost
-- script frame, gopher's `where`), wording (a LuaJIT error text in gopher's words),
-- host_error_text (the text of an error raised by a host library function, nil for any other
-- value).
local P = ...
local type, error, select, next, tostring0 = type, error, select, next, tostring
local getinfo0 = debug.getinfo
local numstr, where, wording, host_error_text = P.numstr, P.where, P.wording, P.host_error_text

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
P.order.install(argerror, raise)
-- Every result of a call, with their count (trailing nils included).
local function pack(...)
  return { n = select("#", ...), ... }
end
-- gopher LVCanConvToString: strings and numbers.
local function canstr(v)
  local t = type(v)
  return t == "string" or t == "number"
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
-- A table's fields in a new table (raw, no metatable).
local function copy(t)
  local c = {}
  for k, v in next, t do c[k] = v end
  return c
end

-- Errors raised by the host's library functions (the string, table and channel functions
-- written in Rust) reach Lua as the host's error objects: a script that catches one gets the
-- text gopher would give it. LuaJIT's own error texts (its C functions, its VM) are given in
-- gopher's words, and a C function's argument error raised where no script line called it
-- (pcall(select, 'x')) gets the script's position and gopher's `(anonymous)`.
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

P.str, P.raise, P.argerror, P.typeerror, P.pack, P.canstr = str, raise, argerror, typeerror, pack,
  canstr
P.check_table, P.opt_int, P.copy, P.caught = check_table, opt_int, copy, caught
