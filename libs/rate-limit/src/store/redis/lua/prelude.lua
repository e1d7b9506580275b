-- Shared helpers of the decide script. decide-script.ts assembles each script as one chunk (Redis
-- runs a single chunk per EVAL, so nothing can be required): this prelude, the algorithm files,
-- then decide.lua. Every name below is a local of that chunk, seen by the files after it.
--
-- Provides
--   algorithms              name -> the algorithm's table (contract below); filled by the
--                           algorithm files, read by decide.lua
--   call tonumber tostring type floor ceil max min byte format match sub
--                           redis.call and the globals and library fields used per entry
--   int(n), num(n)          a number as text that reads back as the same double
--   MAX_MS                  the longest expiry or wait kept or reported (ms)
--   to_ms(us)               a time for the reply: rounded up to the ms, at most MAX_MS
--   px(us)                  an expiry for PX: as to_ms, at least 1
--   split2(raw)             "<a>:<b>" -> a, b as numbers; nil, nil for any other text
--   read(key)               GET through the call's cache: the string, or false
--   write(key, value, ttl)  SET or DEL through that cache; decide.lua writes it back once, before
--                           the reply. ttl: ms, KEEP_TTL, or DELETE with value false
--   store(key, value, ttl)  the SET or DEL itself
--   uncached                true: read and write go straight to Redis (decide.lua sets it when
--                           the call's keys are all distinct)
--   KEEP_TTL, DELETE

-- No redis.replicate_commands(): Redis replicates a script's effects by default since 5.0, and
-- these scripts need 6.0 anyway (SET KEEPTTL); the call cost ~2k instructions per decision.

-- Globals and library fields cost a table lookup on every use: the hot ones, once per call.
local call, tonumber, tostring, type = redis.call, tonumber, tostring, type
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local byte, format, match, sub = string.byte, string.format, string.match, string.sub

-- Each algorithm file sets algorithms['<name>'] (the name of its file and of the policy's `algo`):
--   capacity = 'limit' | 'burst'  which threshold bounds one request's cost and is reported as the
--                                 limit (decide.lua turns it into p.capacity)
--   check(p) -> st   reads only (peek runs it too). st is a new table built with every field it
--                    will hold: the common fields allowed, remaining (units), resetUs,
--                    retryAfterUs and reason (0: decide.lua sets it); moved when the algorithm
--                    has move; and what commit needs
--   commit(p, st)    charges p.cost to the state check read
--   refund(p)        gives back p.cost, charged at p.charged
--   move(p, st)      only if check can set st.moved: writes a count carried over a change of
--                    `window` to its new window (expiry included), charging nothing
-- p is the policy's spec, one table per policy per call, pointed at each entry in turn: key (the
-- entry's state key), cost, algo, limit, burst, capacity, windowUs, blockForUs, shadow, now (us),
-- charged (us: when the cost a refund gives back was charged; else now).
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
-- back before the reply. A call whose keys are all distinct (decide.lua sets `uncached`: the
-- usual batch of different clients) reads and writes each key directly instead, which saves
-- the cache's bookkeeping (measured: about 2k of 65k instructions per decision in a batch, 5k
-- of 160k for a lone one). Sorted sets (sliding-window) are read and written directly.
local cached, dirty, dirtyOrder = {}, {}, {}
local uncached = false
local KEEP_TTL, DELETE = 0, -1

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

-- Writes a key in Redis now (ttl as for write).
local function store(key, value, ttl)
  if ttl == DELETE then call('DEL', key)
  elseif ttl == KEEP_TTL then call('SET', key, value, 'KEEPTTL')
  else call('SET', key, value, 'PX', ttl) end
end

-- ttl: expiry in ms, KEEP_TTL (the key's own, or the one a write of this call gave it), or
-- DELETE with a false value.
local function write(key, value, ttl)
  if uncached then return store(key, value, ttl) end
  cached[key] = value
  local prior = dirty[key]
  if prior == nil then dirtyOrder[#dirtyOrder + 1] = key
  elseif ttl == KEEP_TTL and prior > 0 then ttl = prior end
  dirty[key] = ttl
end
