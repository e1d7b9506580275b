-- Shared helpers for the decide script. The script is assembled at load time from this prelude,
-- one file per algorithm and decide.lua, because Redis runs a single chunk per EVAL.

-- Redis 3.2-6 need this before writing after TIME; Redis 7 always replicates effects.
if redis.replicate_commands then redis.replicate_commands() end

local algorithms = {}

-- Integers are written with %d and fractions with %.17g so that a value read back is the exact
-- double that was written: the in-memory store keeps doubles, and both must agree bit for bit.
local function int(n) return string.format('%d', n) end
local function num(n) return string.format('%.17g', n) end

-- Rounded to the microsecond first, so float noise (1999000.0000000012 us) does not add a ms.
local function to_ms(us) return math.ceil(math.floor(us + 0.5) / 1000) end

-- An expiry must be at least 1 ms (Redis refuses PX 0): a unit shorter than 0.5 us rounds to 0.
local function px(us) return math.max(1, to_ms(us)) end

local function split2(raw)
  local a, b = string.match(raw, '^([^:]+):([^:]+)$')
  return tonumber(a), tonumber(b)
end
