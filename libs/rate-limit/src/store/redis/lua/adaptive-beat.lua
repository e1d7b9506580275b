-- Adaptive protection's heartbeat (SPEC section 15): stores this instance's load, keeps or
-- takes the fleet loop's lease, and answers what the instance needs for its next second. One
-- call per instance per second, none per request. Run on its own by the adaptive heartbeat,
-- not assembled with the prelude. All keys share one hash tag (one Cluster slot).
--
-- Input
--   KEYS[1]  hash of loads: field instance id, value "<reportedAtMs>,<load>" (load as the
--            instance encodes it; the time is Redis time, so skewed clocks agree)
--   KEYS[2]  the lease: the leading instance's id, expiring after ARGV[3] ms
--   KEYS[3]  the published state (string, as the leader encoded it; may be absent)
--   KEYS[4]  operators' controls (hash, written by the admin API): `frozenUntil` (Redis time,
--            ms) while the level and boost are to stay, `reset` (a counter) bumped by each reset
--   ARGV[1]  this instance's id
--   ARGV[2]  this instance's load, as it encodes it (stored after the time and a comma)
--   ARGV[3]  the lease's length in ms (a leader that stops beating loses it after this long)
--   ARGV[4]  how long a load counts, in ms (older fields are deleted here)
-- Output
--   { nowMs, leading (1 or 0), state or false, loads, controls }: loads is the flat list of
--   id, "<reportedAtMs>,<load>" pairs of every fresh instance, only when leading (else empty);
--   controls the values of frozenUntil and reset (false when unset).
if redis.replicate_commands then redis.replicate_commands() end

local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local id = ARGV[1]
local leaseMs = tonumber(ARGV[3])
local freshMs = tonumber(ARGV[4])

redis.call('HSET', KEYS[1], id, nowMs .. ',' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], freshMs)

local leader = redis.call('GET', KEYS[2])
local leading = 0
if leader == id then
  redis.call('PEXPIRE', KEYS[2], leaseMs)
  leading = 1
elseif not leader then
  redis.call('SET', KEYS[2], id, 'PX', leaseMs)
  leading = 1
end

local loads = {}
if leading == 1 then
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local at = tonumber(string.match(all[i + 1], '^(%d+),'))
    if at == nil or nowMs - at > freshMs then
      redis.call('HDEL', KEYS[1], all[i])
    else
      loads[#loads + 1] = all[i]
      loads[#loads + 1] = all[i + 1]
    end
  end
end

-- Every instance reads the controls, so one that takes the lease knows which reset it has seen.
local controls = redis.call('HMGET', KEYS[4], 'frozenUntil', 'reset')
return { nowMs, leading, redis.call('GET', KEYS[3]), loads, controls }
