-- Records that an instance is alive and answers which instances are (the outage share: while
-- Redis is away, each instance admits its share of a limit among the instances seen here). Run
-- on its own by instance-heartbeat.service.ts, not assembled with the prelude.
--
-- Input
--   KEYS[1]  the sorted set of instances: member instance id, score its last heartbeat (ms,
--            Redis time, so instances with skewed clocks agree)
--   ARGV[1]  this instance's id
--   ARGV[2]  how long an instance counts as alive after its last heartbeat, in ms
-- Output
--   the ids of the live instances (this one included), in no particular order. The set expires
--   with its last instance.
if redis.replicate_commands then redis.replicate_commands() end

local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local aliveMs = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs - aliveMs)
redis.call('ZADD', KEYS[1], nowMs, ARGV[1])
redis.call('PEXPIRE', KEYS[1], aliveMs)
return redis.call('ZRANGE', KEYS[1], 0, -1)
