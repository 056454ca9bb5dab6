-- Everything a script is refused, in one place. The last file of the prelude (prelude.rs gives
-- the order): it strips the state's own globals, from which the files before it took what they
-- use.
--
-- Restricted mode (an argocd-cm health script without useOpenLibs): argo-cd util/lua/lua.go
-- opens only package, base, table and its own os module (oslib_safe.go) on a state made with
-- SkipOpenLibs, so a script has no `string`, `math`, `os`, `io`, `debug`, `coroutine` or
-- `channel` global, strings have no methods (indexing one fails as indexing any non-table value
-- does, vm.lua), and `require("os")` gives `time` and `date` only (env.lua). The host does its
-- part too: a restricted state loads LuaJIT's table, package and debug libraries only, and gets
-- none of the host's string, format or channel functions (sandbox.rs).
--
-- Open mode (useOpenLibs, and every built-in script) has all of gopher's libraries, except what
-- kubectl-pacto refuses in both modes because the scripts may come from a cluster and run on a
-- workstation: nothing that runs a process, touches files, reads the environment or exits
-- (os.execute, os.exit, os.getenv, os.remove, os.rename, os.setenv, os.tmpname, every io
-- function, dofile, loadfile, package.loadlib, and require never reads a file), nothing that
-- outlives the evaluation (module, which registers in the state's package.loaded; newproxy, the
-- one way to a finalizer, which Lua runs when the state closes, outside any limit), and of
-- gopher's debug library (debuglib.go) only what cannot reach the host.
--
-- From the host (P): open (useOpenLibs), denied (raises the error for a function no script may
-- call), channel (open mode only: the channel library).
local P = ...
local next, tostring0, setmetatable0, getmt = next, tostring, setmetatable, debug.getmetatable
local G = _G
local open, denied, copy, base, TRACK = P.open, P.denied, P.copy, P.base, P.order.track

local function refuse(name) return function() denied(name) end end

-- The libraries each evaluation gets beyond base, table and package, by global name: a
-- function that makes the evaluation's own copy.
local libs = {}
local io_mt_real = { __index = function(_, k) return refuse("io." .. tostring0(k)) end }
local io_mt = { __index = function(_, k) return refuse("io." .. tostring0(k)) end }
if open then
  -- The state's own os, io and debug tables are changed in place, so that no path to them (an
  -- upvalue, the registry) reaches the originals. Open-libs states serve one evaluation only.
  local os = P.oslib()
  for _, name in next, { "execute", "exit", "getenv", "remove", "rename", "setenv", "tmpname" } do
    os[name] = refuse("os." .. name)
  end
  local string = P.stringlib()
  local math = P.mathlib()
  -- Of gopher-lua's debug library (debuglib.go) only what cannot reach the host: no
  -- sethook/gethook/getregistry (the time limit, the registry), no get/setupvalue and
  -- get/setlocal (the prelude's closures hold the real loaders and the deadline check), no
  -- setmetatable/setfenv (finalizers on userdata, the prelude's environments).
  local debug = {}
  for _, name in next, { "getfenv", "getinfo", "getmetatable", "traceback" } do
    debug[name] = G.debug[name]
  end
  debug.getmetatable = function(v)
    local mt = getmt(v)
    if mt == TRACK then return nil end
    return mt
  end
  for name in next, copy(G.debug) do
    if debug[name] == nil then G.debug[name] = nil end
  end
  for name in next, copy(G.io) do
    G.io[name] = nil
  end
  setmetatable0(G.io, io_mt_real)
  local coroutine = P.coroutinelib()
  for name, lib in next, { os = os, string = string, math = math, debug = debug,
    coroutine = coroutine, channel = P.channel } do
    libs[name] = function() return copy(lib) end
  end
  libs.io = function() return setmetatable0({}, io_mt) end
  -- Strings have the string library as methods in open mode only.
  P.string_mt.__index = string
end

-- The base functions no script may call, in both modes.
base.dofile, base.loadfile = refuse("dofile"), refuse("loadfile")
base.module = refuse("module")
base.newproxy = refuse("newproxy")

-- Applied to the globals of every evaluation (env.lua new_env): the mode's libraries and the
-- refused loader of package.
function P.restrict(env)
  for name, make in next, libs do
    env[name] = make()
  end
  env.package.loadlib = refuse("package.loadlib")
end

-- The state's real globals keep nothing a script could use to reach outside its evaluation:
-- scripts never see this table (getfenv answers with their own globals), but upvalues and the
-- registry still lead here.
for _, name in next, { "dofile", "loadfile", "require", "module", "load", "loadstring", "newproxy" } do
  G[name] = refuse(name)
end
G.package.loadlib = refuse("package.loadlib")
G.package.loaders = {}
G.package.path, G.package.cpath = "", ""
if not open then
  G.debug, G.coroutine, G.os, G.io, G.string, G.math = nil, nil, nil, nil, nil, nil
end
