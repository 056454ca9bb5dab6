-- gopher-lua's os library (oslib.go), open mode only: P.oslib() gives the state's os table
-- gopher's time and date and its setlocale, changed in place (refused.lua says why, and refuses
-- the rest of it). Restricted mode has no os global; `require("os")` gives argo-cd
-- oslib_safe.go's module in both modes (env.lua).
--
-- From the host (P): full_time, full_date (gopher's os.time and os.date, oslib.rs).
local P = ...
local G = _G
local full_time, full_date = P.full_time, P.full_date

function P.oslib()
  local os = G.os
  os.time, os.date = full_time, full_date
  os.setlocale = function() return nil end
  return os
end
