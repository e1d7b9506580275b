-- Appends an entry to the audit log, capped, and keeps the last audited state of each policy's
-- override, so that a change written straight into the hash (redis-cli) is logged once, by the
-- first instance to notice it. Run on its own by runtime/audit/redis-audit-store.ts.
--
-- Input
--   KEYS[1]  the audit log: a list of JSON entries, newest first
--   KEYS[2]  the last audited state per policy: a hash, field policy name, value the override
--            as canonical JSON ('null': none)
--   ARGV[1]  'api': an entry the admin API made; 'hash': a state an instance read from the hash
--   ARGV[2]  the policy name
--   ARGV[3]  the policy's override state after the change (canonical JSON), or '' (none to keep:
--            a reset or a client override)
--   ARGV[4]  the entry (JSON)
--   ARGV[5]  how many entries the log keeps
-- Output
--   1 when an entry was appended, 0 when not (the state was already audited, or it is the first
--   state seen for the policy: a baseline, not a change).
if ARGV[1] == 'hash' then
  local before = redis.call('HGET', KEYS[2], ARGV[2])
  if before == ARGV[3] then return 0 end
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  if not before then return 0 end
elseif ARGV[3] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
end
redis.call('LPUSH', KEYS[1], ARGV[4])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[5]) - 1)
return 1
