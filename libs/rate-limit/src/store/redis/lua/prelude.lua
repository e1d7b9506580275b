-- Shared helpers for the decide script. The script is assembled at load time from this prelude,
-- one file per algorithm and decide.lua, because Redis runs a single chunk per EVAL.

-- Redis 3.2-6 need this before writing after TIME; Redis 7 always replicates effects.
if redis.replicate_commands then redis.replicate_commands() end

-- Globals and library fields cost a table lookup on every use: the hot ones, once per call.
local call, tonumber, tostring, type = redis.call, tonumber, tostring, type
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local byte, format, match, sub = string.byte, string.format, string.match, string.sub

-- name -> { check(p): its state st, reads only; commit(p, st): charges p.cost; refund(p): gives
-- p.cost back; move(p, st), when check sets st.moved: writes a count moved by a change of `window`
-- to its new window, charging nothing }.
local algorithms = {}

-- Integers are written with %d and fractions with %.17g so that a value read back is the exact
-- double that was written: the in-memory store keeps doubles, and both must agree bit for bit.
local function int(n) return format('%d', n) end
local function num(n) return format('%.17g', n) end

-- The longest expiry and wait kept or reported, 2^45 ms (about 1,100 years): valid thresholds
-- reach 3e19 ms (a bucket of 1e9 refilled one per 366 days), which Redis cannot take as PX and
-- an integer reply cannot hold. State is forgotten after that long, never a script failure.
local MAX_MS = 35184372088832

-- Rounded to the microsecond first, so float noise (1999000.0000000012 us) does not add a ms.
local function to_ms(us) return min(MAX_MS, ceil(floor(us + 0.5) / 1000)) end

-- An expiry must be at least 1 ms (Redis refuses PX 0): a unit shorter than 0.5 us rounds to 0.
local function px(us) return max(1, to_ms(us)) end

local function split2(raw)
  local a, b = match(raw, '^([^:]+):([^:]+)$')
  return tonumber(a), tonumber(b)
end

-- String state goes through a cache for the whole call: a key decided many times in one call
-- (a busy client, or a policy keyed by route, in a batch) costs one GET and one SET, written
-- back before the reply. Sorted sets (sliding-window) are read and written directly.
local cached, dirty, dirtyOrder = {}, {}, {}
local KEEP_TTL, DELETE = 0, -1

-- The value as GET would return it now: a string, or false when there is none.
local function read(key)
  local value = cached[key]
  if value == nil then
    value = call('GET', key)
    cached[key] = value
  end
  return value
end

-- ttl: expiry in ms, KEEP_TTL (the key's own, or the one a write of this call gave it), or
-- DELETE with a false value.
local function write(key, value, ttl)
  cached[key] = value
  local prior = dirty[key]
  if prior == nil then dirtyOrder[#dirtyOrder + 1] = key
  elseif ttl == KEEP_TTL and prior > 0 then ttl = prior end
  dirty[key] = ttl
end
