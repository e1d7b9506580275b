-- The fleet loop's leader publishes its state (SPEC section 15), only while it still holds the
-- lease: a leader that lost it (paused, cut off, replaced) writes nothing. Each write takes the
-- next epoch, so instances can tell a newer state from an older one whatever order the
-- announcements arrive in. Run on its own, not assembled with the prelude.
--
-- Input
--   KEYS[1]  the lease (the leading instance's id)
--   KEYS[2]  the published state: "[epoch,level,boost,atMs]" (JSON array; atMs is Redis time)
--   ARGV[1]  this instance's id
--   ARGV[2]  the level (a number as text)
--   ARGV[3]  the boost (a number as text)
--   ARGV[4]  how long the state is kept without a new write, ms (stale long before that)
--   ARGV[5]  the policy channel: the state is announced there as {"adaptive":"<state>"}, in
--            the same call, so instances take it at once rather than at their next beat
-- Output
--   the state written, or false when this instance does not hold the lease
if redis.replicate_commands then redis.replicate_commands() end

if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end

local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local stored = redis.call('GET', KEYS[2])
local epoch = 0
if stored then epoch = tonumber(string.match(stored, '^%[(%d+),')) or 0 end

local state = '[' .. (epoch + 1) .. ',' .. ARGV[2] .. ',' .. ARGV[3] .. ',' .. nowMs .. ']'
redis.call('SET', KEYS[2], state, 'PX', tonumber(ARGV[4]))
-- The state is digits, commas, dots and brackets only: nothing to escape.
redis.call('PUBLISH', ARGV[5], '{"adaptive":"' .. state .. '"}')
return state
