-- One call of the decide program, in three fragments decide-script.ts places after decide.lua,
-- in this order: decide-call.lua (the lone form, the call's time and its specs),
-- decide-call-entries.lua (the entries of a group, checked), decide-call-groups.lua (each group
-- decided and committed, the reply). They share one scope, in one of two forms. As a script, at
-- the chunk's top level after `local KEYS, ARGV = KEYS, ARGV` (globals, a table lookup at every
-- use: locals instead); as a library, as the body of `decide_call(KEYS, ARGV)`, the function it
-- registers, after begin-call.lua. Either way they run once per call, read KEYS and ARGV as
-- decide.lua's header states and return the reply. Not wrapped in functions in the script: a
-- closure over this many of the chunk's locals would cost a script instructions on every call
-- (see begin-call.lua).
--
-- Uses everything of the prelude, and from decide.lua: the reasons, the override actions,
-- the thresholds' bounds, small(), decide_one().
-- Provides (to the next fragments) op, now, charged, SP (the specs), a (the next ARGV), spTop

local op = ARGV[1]
if ARGV[2] == nil then
  -- The lone form: its spec, parsed once per library load (see lone_specs in decide.lua).
  local consume, algo, limit, windowUs, burst, capacity, shadow, cost
  local L = lone_specs and lone_specs[op]
  if L then
    consume, algo, limit, windowUs, burst, capacity, shadow, cost =
      L[1], L[2], L[3], L[4], L[5], L[6], L[7], L[8]
  else
    local o, name, lim, windowMs, rest = match(op, '^([cp])([%a-]+):(%d+):(%d+)(.*)$')
    algo = algorithms[name]
    if not algo then
      return redis.error_reply('ERR unknown rate limit algorithm or lone spec ' .. tostring(op))
    end
    consume, limit, windowUs = o == 'c', tonumber(lim), windowMs * 1000
    -- burst, shadow and cost follow only when one of them is not its default.
    burst, shadow, cost = limit, false, 1
    if rest ~= '' then
      local b, s, c = match(rest, '^:(%d+):([01]):(%d+)$')
      if not b then return redis.error_reply('ERR bad lone spec ' .. op) end
      burst, shadow, cost = tonumber(b), s == '1', tonumber(c)
    end
    capacity = algo[5] and burst or limit
    if lone_specs then
      if lone_count >= LONE_SPECS_MAX then lone_specs, lone_count = {}, 0 end
      lone_specs[op] = { consume, algo, limit, windowUs, burst, capacity, shadow, cost }
      lone_count = lone_count + 1
    end
  end
  expiry_form = true
  local t = call('TIME')
  local now = t[1] * 1000000 + t[2]
  local head, remaining, resetMs, retryMs, reason = decide_one(consume, algo, KEYS[1], now, limit,
    windowUs, burst, capacity, shadow, cost)
  -- Admitted (the usual reply): head 1, no wait, reason 0 go without saying; one string, which
  -- the client reads for less than an array of integers.
  if reason == 0 then return t[1] .. ':' .. t[2] .. format(':%d:%d', remaining, resetMs) end
  return { now, head, remaining, resetMs, retryMs, reason }
end

local now
if ARGV[2] == '' then
  local t = call('TIME')
  now = t[1] * 1000000 + t[2]
else
  now = tonumber(ARGV[2])
end
local charged = now
if ARGV[3] ~= '' then charged = tonumber(ARGV[3]) end
if ARGV[4] ~= '1' then cache_call() elseif ARGV[2] == '' then expiry_form = true end

-- Specs, 7 values each in one array (no table per spec): algo, limit, windowUs, burst,
-- capacity, blockForUs, shadow. A quota override appends a spec of its own for its entry.
-- Built with room for 3 specs: a table grown one value at a time is rehashed at every power of
-- two, which costs more than filling it (measured: half of filling 3 entries' values).
local SP = { false, false, false, false, false, false, false, false, false, false, false, false,
  false, false, false, false, false, false, false, false, false }
local a = 6
local nspecs = small(ARGV[5])
-- Where a quota override's spec goes (after the others).
local spTop = nspecs * 7
for s = 0, nspecs - 1 do
  local algo = algorithms[ARGV[a]]
  if not algo then
    return redis.error_reply('ERR unknown rate limit algorithm ' .. tostring(ARGV[a]))
  end
  local limit = tonumber(ARGV[a + 1])
  local burst = limit
  if ARGV[a + 3] ~= ARGV[a + 1] then burst = tonumber(ARGV[a + 3]) end
  local blockForUs = 0
  if ARGV[a + 4] ~= '0' then blockForUs = ARGV[a + 4] * 1000 end
  local b = s * 7
  SP[b + 1], SP[b + 2], SP[b + 3], SP[b + 4] = algo, limit, ARGV[a + 2] * 1000, burst
  SP[b + 5], SP[b + 6], SP[b + 7] = algo[5] and burst or limit, blockForUs, ARGV[a + 5] == '1'
  a = a + 6
end
