-- One evaluation: its globals (base, table, package and require as argo-cd util/lua/lua.go opens
-- them: package from gopher-lua loadlib.go; require, loadstring and load from baselib.go; getfenv
-- and setfenv) and `run`, which the host calls with the compiled script and the object. Every
-- evaluation gets its own globals and its own library tables, so nothing a script does to them
-- reaches the next one.
--
-- From the host (P): numstr (gopher number formatting), safe_time, safe_date (argo-cd
-- oslib_safe.go), chunk_cap (the bytes of source a script may compile at run time), compile (a
-- chunk compiled at run time as the script is: through the source rewriter, with gopher's syntax
-- errors), not_found (what gopher's search of package.path reports when no file is there),
-- routed_names (the names of the functions the rewritten source calls, in the order its header
-- declares them: gopher routes.rs ROUTED).
local P = ...
local type, select, next = type, select, next
local concat0, unpack0 = table.concat, unpack
local setfenv0, getfenv0, setmetatable0, newproxy0 = setfenv, getfenv, setmetatable, newproxy
local G = _G
local numstr, safe_time, safe_date, chunk_cap, compile, not_found =
  P.numstr, P.safe_time, P.safe_date, P.chunk_cap, P.compile, P.not_found
local raise, typeerror, copy, order, base, tablelib =
  P.raise, P.typeerror, P.copy, P.order, P.base, P.tablelib

-- The functions a compiled chunk takes (vm.lua's routed), in the order its header declares them.
local routed, names = P.routed, P.routed_names
local fns, nfns = {}, #names
for i = 1, nfns do fns[i] = routed[names[i]] end

-- What package.loaded holds for a module whose loader is running (baselib.go loopdetection).
local LOADING = newproxy0(false)
local thread_env = G

-- The globals of one evaluation.
local function new_env()
  local env = copy(base)
  env._G = env
  env.table = copy(tablelib)
  local preload = { os = function() return { time = safe_time, date = safe_date } end }
  -- Argo reopens package after the other libraries (lua.go): loaded holds _G and table only,
  -- and require finds no other library, in both modes.
  local loaded = { _G = env, table = env.table }
  -- loadlib.go OpenPackage and config.go: gopher's default path (Argo's controller sets no
  -- LUA_PATH); the loaders are the preload loader and the Lua file loader, which here reads no
  -- file (see require).
  local package = {
    preload = preload, loaded = loaded, loaders = {}, cpath = "",
    path = "./?.lua;/usr/local/share/lua/5.1/?.lua;/usr/local/share/lua/5.1/?/init.lua",
    config = "/\n;\n?\n!\n-\n",
    seeall = function(m) return setmetatable0(m, { __index = env }) end,
  }
  env.package = package
  -- The mode's libraries and package.loadlib (refused.lua).
  P.restrict(env)
  -- gopher-lua baselib.go loRequire: the name is CheckString (a number in gopher's format);
  -- a module already loaded (a true value) is returned, one still loading is a loop; else the
  -- loaders: package.preload's function, then the Lua files of package.path, which here are
  -- never read: the search fails the way it fails on Argo's controller, which has none of them
  -- ("stat ./x.lua: no such file or directory" for each place, loFindFile). A loader's result,
  -- or what it left in package.loaded, or true, is the module.
  env.require = function(name)
    if type(name) == "number" then name = numstr(name) elseif type(name) ~= "string" then
      typeerror(1, 1, "string", name)
    end
    local v = loaded[name]
    if v then
      if v == LOADING then raise("loop or previous error loading module: " .. name) end
      return v
    end
    local pkg = env.package
    local pre = type(pkg) == "table" and pkg.preload
    if type(pre) ~= "table" then raise("package.preload must be a table") end
    local loader = pre[name]
    if loader == nil then
      local path = pkg.path
      if type(path) == "number" then path = numstr(path) end
      if type(path) ~= "string" then raise("package.path must be a string") end
      raise("module " .. name .. " not found:\n\tno field package.preload['" .. name .. "']\n\t"
        .. not_found(name, path) .. ", ")
    end
    loaded[name] = LOADING
    local ret = loader(name)
    local now = loaded[name]
    if ret ~= nil and now == LOADING then
      loaded[name] = ret
      return ret
    elseif now == LOADING then
      loaded[name] = true
      return true
    end
    return now
  end
  -- gopher baselib.go loadaux: a chunk compiled at run time goes through the rewrite the
  -- script went through (compile), and sees the script's globals, not the state's. Compiling is
  -- one library call the time limit cannot interrupt: its size is bounded.
  local function load_chunk(src, name)
    if #src > chunk_cap() then
      raise("loadstring: a chunk of " .. #src .. " bytes is over kubectl-pacto's limit of "
        .. chunk_cap() .. " bytes (Limits::max_chunk_bytes)")
    end
    local maker, e = compile(src, name)
    if maker == nil then return nil, e end
    local f = maker(unpack0(fns, 1, nfns))
    setfenv0(f, env)
    return f
  end
  -- baseLoadString: CheckString(1) (a number in gopher's format), OptString(2, "<string>"); the
  -- chunk's positions use the name as it is.
  env.loadstring = function(src, name)
    if type(src) == "number" then src = numstr(src) elseif type(src) ~= "string" then
      typeerror(1, 1, "string", src)
    end
    if name == nil then name = "<string>" elseif type(name) ~= "string" then
      typeerror(1, 2, "string", name)
    end
    return load_chunk(src, name)
  end
  -- baseLoad: CheckFunction(1), OptString(2, "?"); the reader's pieces (strings or numbers) up
  -- to nil or "", anything else ending the load with "reader function must return a string".
  env.load = function(fn, name)
    if type(fn) ~= "function" then typeerror(1, 1, "function", fn) end
    if name == nil then name = "?" elseif type(name) ~= "string" then
      typeerror(1, 2, "string", name)
    end
    local parts, size = {}, 0
    while true do
      local piece = fn()
      if type(piece) == "number" then piece = numstr(piece) end
      if piece == nil or piece == "" then break end
      if type(piece) ~= "string" then return nil, "reader function must return a string" end
      size = size + #piece
      if size > chunk_cap() then
        raise("load: a chunk of more than " .. chunk_cap()
          .. " bytes is over kubectl-pacto's limit (Limits::max_chunk_bytes)")
      end
      parts[#parts + 1] = piece
    end
    return load_chunk(concat0(parts), name)
  end
  -- The state's globals are never handed out: where Lua would answer with them, the script's
  -- own globals stand in (gopher-lua has one global table per state, which is this one here).
  env.getfenv = function(f)
    if f == nil then f = 1 end
    if type(f) == "number" and f > 0 then f = f + 1 end
    local e = getfenv0(f)
    if e == G then return env end
    return e
  end
  env.setfenv = function(f, t)
    if type(f) == "number" and f > 0 then f = f + 1 end
    if f == 0 then
      thread_env = t
      return setfenv0(0, t)
    end
    return setfenv0(f, t)
  end
  return env
end

-- The last of a call's results (what Argo reads with l.Get(-1) after PCall(0, MultRet)).
local function last_of(...)
  local n = select("#", ...)
  if n == 0 then return nil end
  return (select(n, ...))
end

-- One evaluation: what the previous one may have left outside its globals undone (a thread
-- environment set with setfenv(0, t)), fresh globals with `obj` and an empty `actionParams`
-- (lua.go), and the script run in them; returns its last result. Errors pass through unchanged.
local function run(chunk, obj)
  if thread_env ~= G then
    setfenv0(0, G)
    thread_env = G
  end
  local env = new_env()
  env.obj = obj
  env.actionParams = {}
  setfenv0(chunk, env)
  order.reset()
  return last_of(chunk(unpack0(fns, 1, nfns)))
end
P.run = run
