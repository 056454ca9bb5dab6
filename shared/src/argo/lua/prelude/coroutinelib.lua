-- gopher-lua's coroutine library (coroutinelib.go), open mode only: P.coroutinelib() builds it
-- from LuaJIT's.
--
-- From the host (P): expired (true once the evaluation is past its wall-clock limit).
local P = ...
local type, error, unpack0 = type, error, unpack
local G = _G
local raise, typeerror, pack, caught, expired = P.raise, P.typeerror, P.pack, P.caught, P.expired

-- gopher coroutinelib.go: create, resume, running, status, wrap, yield, with gopher's
-- argument checks (CheckThread, CheckFunction) and texts. Errors past the deadline cannot be
-- swallowed by a resumed coroutine either.
function P.coroutinelib()
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
