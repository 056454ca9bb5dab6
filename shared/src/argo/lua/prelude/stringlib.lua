-- gopher-lua's string library (stringlib.go), open mode only: P.stringlib() builds it from the
-- state's string table, whose functions that differ from LuaJIT's the host replaced (strlib.rs,
-- strbyte.rs, fmtlib.rs, on gopher's pattern engine in pattern.rs).
local P = ...
local G = _G
local raise, copy = P.raise, P.copy

function P.stringlib()
  local string = copy(G.string)
  string.gfind = string.gmatch
  -- stringlib.go strDump.
  string.dump = function() raise("GopherLua does not support the string.dump") end
  -- stringlib.go OpenString: the module is the strings' metatable, its own __index.
  string.__index = string
  return string
end
