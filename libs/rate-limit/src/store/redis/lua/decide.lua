-- Decides every policy of one identity in one atomic step: all are checked first, and state is
-- written only when every enforced policy admits the request (all-or-nothing).
--
-- KEYS  for policy i: KEYS[2i-1] its state key, KEYS[2i] its block key (used when blockFor > 0)
-- ARGV[1] op: 'consume' | 'peek' (no writes) | 'refund' (give back a cost charged earlier)
-- ARGV[2] now in microseconds, or '' to use Redis TIME (one clock for every app instance)
-- ARGV[3] number of policies
-- ARGV[4 + 7(i-1) ..] for policy i: algo, limit, windowMs, burst, cost, blockForMs, shadow (0|1)
-- Reply: { allowed (0|1), then per policy: allowed, remaining, resetMs, retryAfterMs, reason }
--        reason: 0 admitted, 1 over the limit, 2 blocked (blockFor), 3 cost above capacity
local REASON_OK, REASON_LIMIT, REASON_BLOCKED, REASON_COST = 0, 1, 2, 3

local op = ARGV[1]
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local policies = {}
for i = 1, tonumber(ARGV[3]) do
  local a = 4 + 7 * (i - 1)
  local algo = algorithms[ARGV[a]]
  if not algo then return redis.error_reply('ERR unknown rate limit algorithm ' .. tostring(ARGV[a])) end
  local limit, burst = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 3])
  local isBucket = ARGV[a] == 'token-bucket' or ARGV[a] == 'leaky-bucket' or ARGV[a] == 'gcra'
  policies[i] = {
    algo = algo, key = KEYS[2 * i - 1], blockKey = KEYS[2 * i], now = now,
    limit = limit, windowUs = tonumber(ARGV[a + 2]) * 1000, burst = burst,
    capacity = isBucket and burst or limit,
    cost = tonumber(ARGV[a + 4]), blockForUs = tonumber(ARGV[a + 5]) * 1000,
    shadow = ARGV[a + 6] == '1',
  }
end

if op == 'refund' then
  for _, p in ipairs(policies) do p.algo.refund(p) end
  return { 1 }
end

local function blocked_until(p)
  if p.blockForUs <= 0 then return nil end
  local untilUs = tonumber(redis.call('GET', p.blockKey))
  if untilUs and untilUs > now then return untilUs end
  return nil
end

local admitted = true
local states = {}
for i, p in ipairs(policies) do
  local untilUs = blocked_until(p)
  local st
  if untilUs then
    st = { allowed = false, remaining = 0, resetUs = untilUs - now, retryAfterUs = untilUs - now, reason = REASON_BLOCKED }
  else
    st = p.algo.check(p)
    st.reason = st.allowed and REASON_OK or REASON_LIMIT
    if p.cost > p.capacity then
      st.allowed, st.retryAfterUs, st.reason = false, 0, REASON_COST
    end
  end
  states[i] = st
  if not st.allowed and not p.shadow then admitted = false end
end

if op == 'consume' then
  for i, p in ipairs(policies) do
    local st = states[i]
    if st.allowed and admitted then
      p.algo.commit(p, st)
    elseif st.reason == REASON_LIMIT and p.blockForUs > 0 then
      -- The penalty is the point of blockFor: it applies even though nothing else is charged.
      redis.call('SET', p.blockKey, int(now + p.blockForUs), 'PX', px(p.blockForUs))
      st.retryAfterUs = math.max(st.retryAfterUs, p.blockForUs)
      st.resetUs = math.max(st.resetUs, p.blockForUs)
    end
  end
end

local reply = { admitted and 1 or 0 }
for _, st in ipairs(states) do
  reply[#reply + 1] = st.allowed and 1 or 0
  reply[#reply + 1] = st.remaining
  reply[#reply + 1] = to_ms(st.resetUs)
  reply[#reply + 1] = to_ms(st.retryAfterUs)
  reply[#reply + 1] = st.reason
end
return reply
