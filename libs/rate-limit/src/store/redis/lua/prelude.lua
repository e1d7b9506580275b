-- Shared helpers of the decide script. decide-script.ts assembles the prelude, the algorithm files
-- and decide.lua into one chunk, in two forms: a script (EVALSHA), whose chunk Redis runs from
-- the top on every call, and a function library (FUNCTION LOAD once, then FCALL), whose chunk
-- runs once, at load, and whose registered function runs per call. Every name below is a local
-- of that chunk, seen by the files after it.
--
-- Provides
--   algorithms              name -> the algorithm's table (contract below); filled by the
--                           algorithm files, read by decide.lua
--   call pcall_redis tonumber type floor ceil max min byte format match sub
--                           redis.call, redis.pcall and the globals and library fields used per
--                           entry (a library cannot read them at load: see begin-call.lua)
--   globals()               those values, read from the globals
--   MAX_MS                  the longest expiry or wait kept or reported (ms)
--   to_ms(us)               a time for the reply: rounded up to the ms, at most MAX_MS
--   px(us)                  an expiry for PX: as to_ms, at least 1
--   split2(raw)             "<a>:<b>" -> a, b as numbers; nil, nil for any other text
--   read(key)               GET through the call's cache: the string, or false
--   write(key, value, ttl, atMs)
--                           SET or DEL through that cache; decide.lua writes it back once, before
--                           the reply. ttl: ms, KEEP_TTL, DELETE with value false, or AT (PXAT
--                           atMs; only when expiry_form)
--   add(key, n)             INCRBY n of a key holding an integer (uncached only); false when
--                           Redis refuses
--   store(key, value, ttl, atMs)  the SET or DEL itself
--   uncached, cache_call()  true until decide.lua calls cache_call() (a key may repeat)
--   expiry_form             whether state may be kept partly in the key's expiry (decide.lua)
--   KEEP_TTL, DELETE, AT
--
-- Cost: as a script, Redis runs this chunk from the top on every call, so every function and
-- table below is made anew each time, and each numeric ARGV or GET value costs a string-to-number
-- conversion (strtod). Measured with callgrind (Redis 7.0): a closure about 400 instructions, a
-- table with ten named fields 4,800 and with ten array slots 2,500, tonumber() of a string
-- 1,000-1,900, a function call from the math library 600; against 4,500 for a GET. So the
-- scripts keep functions few, pass values as arguments and results rather than in tables, and
-- convert only what they use. As a function, the definitions cost nothing per call.

-- No redis.replicate_commands(): Redis replicates a script's effects by default since 5.0, and
-- these scripts need 6.0 anyway (SET KEEPTTL).

-- Globals and library fields cost a table lookup on every use: the hot ones are locals. A
-- library's chunk, run at load, may read none of them: its first call sets them (begin-call.lua).
-- A script's chunk runs per call: decide-script.ts makes the next line `... = globals()`.
-- globals() reads them before the locals of the same names hide them.
local function globals()
  return redis.call, redis.pcall, tonumber, type, math.floor, math.ceil, math.max, math.min,
    string.byte, string.format, string.match, string.sub
end
local call, pcall_redis, tonumber, type, floor, ceil, max, min, byte, format, match, sub

-- Each algorithm file sets algorithms['<name>'] (the name of its file and of the policy's `algo`)
-- to { check, commit, move, refund, capacityIsBurst }, in that order (an array: cheaper to build
-- than named fields):
--   check(key, now, limit, windowUs, burst, cost)
--       -> allowed, remaining, resetUs, retryAfterUs, x1, x2, x3, x4
--       reads only (peek runs it too); x1..x4: whatever commit and move need of that reading
--   commit(key, now, limit, windowUs, burst, cost, x1, x2, x3, x4)  charges cost
--   move(key, now, limit, windowUs, burst, cost, x1, x2, x3, x4)    false, or: writes a count
--       carried over a change of `window` to its new window (expiry included), charging nothing;
--       called when x3 is true and the entry is not charged
--   refund(key, now, limit, windowUs, burst, cost, charged)     gives back cost, charged at
--       `charged` (us)
--   capacityIsBurst  true: `burst` bounds one request's cost and is reported as the limit;
--       false: `limit` is
-- Times are microseconds (now, windowUs, charged, results), thresholds as the policy has them.
local algorithms = {}

-- The longest expiry and wait kept or reported, 2^45 ms (about 1,100 years): valid thresholds
-- reach 3e19 ms (a bucket of 1e9 refilled one per 366 days), which Redis cannot take as PX and
-- an integer reply cannot hold. State is forgotten after that long, never a script failure.
local MAX_MS = 35184372088832

-- Rounded to the microsecond first, so float noise (1999000.0000000012 us) does not add a ms.
-- `x % 1` instead of math.floor/ceil: an operator, not a function call.
local function to_ms(us)
  local r = us + 0.5
  r = (r - r % 1) / 1000
  local ms = r - r % 1
  if ms < r then ms = ms + 1 end
  if ms > MAX_MS then return MAX_MS end
  return ms
end

-- An expiry must be at least 1 ms (Redis refuses PX 0): a unit shorter than 0.5 us rounds to 0.
local function px(us)
  local ms = to_ms(us)
  if ms < 1 then return 1 end
  return ms
end

local function split2(raw)
  local a, b = match(raw, '^([^:]+):([^:]+)$')
  return tonumber(a), tonumber(b)
end

-- String state goes through a cache for the whole call when a key may be decided more than once
-- in it (a busy client, or a policy keyed by route, in a batch): one GET and one SET per key,
-- written back before the reply. A call whose keys are all distinct (a lone request, or the
-- usual batch of different clients) reads and writes each key directly and builds no cache:
-- decide.lua calls cache_call() otherwise. Sorted sets (sliding-window) are read and written
-- directly.
local uncached = true
local cached, dirty, dirtyOrder
local KEEP_TTL, DELETE, AT = 0, -1, -2
-- Whether state may be kept partly in its key's expiry (see fixed-window.lua and gcra.lua): set
-- by decide.lua when the call decides on Redis TIME (a test clock's times are not the expiry's)
-- and reads each key once (never with the cache).
local expiry_form = false

local function cache_call()
  uncached = false
  cached, dirty, dirtyOrder = {}, {}, {}
end


-- The value as GET would return it now: a string, or false when there is none.
local function read(key)
  if uncached then return call('GET', key) end
  local value = cached[key]
  if value == nil then
    value = call('GET', key)
    cached[key] = value
  end
  return value
end

-- Writes a key in Redis now (ttl as for write). A number value is written by Redis as %.17g:
-- an integer's digits, a fraction that reads back as the same double.
-- Expiries (whole ms) go as '%d' strings: a number argument is formatted by Redis as %.17g,
-- a floating-point conversion that costs twice as much.
local function store(key, value, ttl, atMs)
  if ttl == KEEP_TTL then call('SET', key, value, 'KEEPTTL')
  elseif ttl == AT then call('SET', key, value, 'PXAT', format('%d', atMs))
  elseif ttl == DELETE then call('DEL', key)
  else call('SET', key, value, 'PX', format('%d', ttl)) end
end

-- ttl: expiry in ms, KEEP_TTL (the key's own, or the one a write of this call gave it), DELETE
-- with a false value, or AT: at atMs, ms since the epoch (only when expiry_form: never cached).
local function write(key, value, ttl, atMs)
  if uncached then return store(key, value, ttl, atMs) end
  cached[key] = value
  local prior = dirty[key]
  if prior == nil then dirtyOrder[#dirtyOrder + 1] = key
  elseif ttl == KEEP_TTL and prior > 0 then ttl = prior end
  dirty[key] = ttl
end

-- INCRBY n of a key holding an integer, which keeps its expiry: far cheaper than a SET with one.
-- False when Redis refuses (a value written by hand as "1e3", say): the caller writes it whole.
-- The usual 1 goes as a string: Lua formats a number argument with sprintf (about 600
-- instructions).
local function add(key, n)
  if n == 1 then n = '1' end
  return type(pcall_redis('INCRBY', key, n)) ~= 'table'
end
