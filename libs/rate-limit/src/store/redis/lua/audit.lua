-- Appends an entry to the audit log (capped, and to its policy's own capped log) and keeps what
-- tells a change written straight into a policy's hash (redis-cli) from one the admin API made,
-- so that the first instance to notice a direct write logs it once. Run on its own by
-- runtime/audit/redis-audit-store.ts. Every key has the hash tag {audit}: one Cluster slot.
--
-- Input
--   KEYS[1]  the audit log: a list of JSON entries, newest first
--   KEYS[2]  the last audited state per policy: a hash, field policy name, value the override
--            as canonical JSON ('null': none)
--   KEYS[3]  the policy's own log (a list, newest first)
--   KEYS[4]  the states the admin API wrote for the policy lately: a sorted set, member the
--            state, score when (ms, Redis time); two API writes' appends may land in either
--            order, so the state a refresh reads may be an older API write's
--   ARGV[1]  'api': an entry the admin API made; 'hash': a state an instance read from the hash
--   ARGV[2]  the policy name
--   ARGV[3]  the policy's override state after the change (canonical JSON), or '' (none: a
--            reset or a client override)
--   ARGV[4]  the entry (JSON)
--   ARGV[5]  how many entries the log keeps
--   ARGV[6]  how many entries the policy's log keeps
--   ARGV[7]  how long an API state counts as lately written (ms)
-- Output
--   1 when the entry was appended, 0 when not (a 'hash' state already audited, written by the
--   API lately, or the first state seen for the policy: a baseline, not a change). Each API
--   state excuses one 'hash' read of it, within the window; a direct write forgets them all.
if redis.replicate_commands then redis.replicate_commands() end

local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local windowMs = tonumber(ARGV[7])

redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', nowMs - windowMs)
if ARGV[1] == 'hash' then
  local before = redis.call('HGET', KEYS[2], ARGV[2])
  -- A state read is an API write's at most once: a later direct write back to it is logged.
  local fromApi = redis.call('ZREM', KEYS[4], ARGV[3]) == 1
  if before == ARGV[3] then return 0 end
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  if fromApi or not before then return 0 end
  -- A direct write: whatever the API wrote before it is past.
  redis.call('DEL', KEYS[4])
elseif ARGV[3] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  redis.call('ZADD', KEYS[4], nowMs, ARGV[3])
  redis.call('PEXPIRE', KEYS[4], windowMs)
end
redis.call('LPUSH', KEYS[1], ARGV[4])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[5]) - 1)
redis.call('LPUSH', KEYS[3], ARGV[4])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[6]) - 1)
return 1
