-- Decides a batch of requests in one call. Each request (a group: the policies of one identity)
-- is atomic and all-or-nothing: its policies are all checked first, and state is written only
-- when every enforced one admits it. Groups are independent of each other.
--
-- ARGV[1] op: 'consume' | 'peek' (no writes) | 'refund' (give back a cost charged earlier)
-- ARGV[2] now in microseconds, or '' to use Redis TIME (one clock for every app instance)
-- ARGV[3] refund only: when the cost given back was charged (the first value of the consume's
--         reply, in microseconds): the window algorithms give back to that window; else ''
-- ARGV[4] number of policy specs, then 6 per spec: algo, limit, windowMs, burst, blockForMs, shadow
-- then per group: its number of entries, then 2 per entry: spec index, cost
-- KEYS    per entry in order: its state key, then its block key when its spec has blockFor > 0
-- Reply   the time of the decision (microseconds), then per group: admitted (0|1), then 5 per entry: allowed, remaining, resetMs, retryAfterMs,
--         reason (0 admitted, 1 over the limit, 2 blocked by blockFor, 3 cost above capacity);
--         or -1 and an error message when the group's keys could not be read (nothing written).
--         A refund replies with the time alone.
local REASON_OK, REASON_LIMIT, REASON_BLOCKED, REASON_COST = 0, 1, 2, 3
local BUCKETS = { ['token-bucket'] = true, ['leaky-bucket'] = true, gcra = true }

local op = ARGV[1]
local now = tonumber(ARGV[2])
if not now then
  local t = call('TIME')
  now = t[1] * 1000000 + t[2]
end
local charged = tonumber(ARGV[3]) or now

-- Specs are parsed once per call and reused by every entry that names them. Tables are built
-- with every field they will hold: adding a field later rehashes them, which costs more than the
-- arithmetic.
local specs = {}
local a = 5
for s = 1, tonumber(ARGV[4]) do
  local name = ARGV[a]
  local algo = algorithms[name]
  if not algo then return redis.error_reply('ERR unknown rate limit algorithm ' .. tostring(name)) end
  local limit, burst = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 3])
  specs[s] = {
    algo = algo, now = now, charged = charged, limit = limit, windowUs = ARGV[a + 2] * 1000, burst = burst,
    capacity = BUCKETS[name] and burst or limit,
    blockForUs = ARGV[a + 4] * 1000, shadow = ARGV[a + 5] == '1',
    -- Set per entry; present from the start so that setting them never grows the table.
    key = false, cost = 0,
  }
  a = a + 6
end

local reply, k, nargs = { now }, 1, #ARGV
-- Per entry of the current group, in arrays reused by every group (no table per entry).
local eSpec, eKey, eBlock, eCost, eState = {}, {}, {}, {}, {}

-- The spec of entry j, pointed at that entry's key and cost.
local function entry(j)
  local p = eSpec[j]
  p.key, p.cost = eKey[j], eCost[j]
  return p
end

-- Checks the n entries of the current group (reads only) and says whether it is admitted.
local function check_group(n)
  local admitted = true
  for j = 1, n do
    local p, blockKey = entry(j), eBlock[j]
    local untilUs = blockKey and tonumber(read(blockKey))
    local st
    if untilUs and untilUs > now then
      st = { allowed = false, remaining = 0, resetUs = untilUs - now, retryAfterUs = untilUs - now, reason = REASON_BLOCKED }
    else
      st = p.algo.check(p)
      st.reason = st.allowed and REASON_OK or REASON_LIMIT
      if p.cost > p.capacity then
        st.allowed, st.retryAfterUs, st.reason = false, 0, REASON_COST
      end
    end
    eState[j] = st
    if not st.allowed and not p.shadow then admitted = false end
  end
  return admitted
end

while a <= nargs do
  local n = tonumber(ARGV[a])
  a = a + 1
  for j = 1, n do
    local p = specs[tonumber(ARGV[a])]
    eSpec[j], eCost[j] = p, tonumber(ARGV[a + 1])
    a = a + 2
    eKey[j] = KEYS[k]
    k = k + 1
    if p.blockForUs > 0 then
      eBlock[j] = KEYS[k]
      k = k + 1
    else
      eBlock[j] = false
    end
  end

  if op == 'refund' then
    for j = 1, n do
      local p = entry(j)
      p.algo.refund(p)
    end
  else
    -- A key this script cannot read (say, another type written by hand) fails its own group,
    -- before anything of the group is written; the other groups of the call go on.
    local ok, admitted = pcall(check_group, n)
    if not ok then
      reply[#reply + 1] = -1
      reply[#reply + 1] = type(admitted) == 'table' and admitted.err or tostring(admitted)
    else
      if op == 'consume' then
        for j = 1, n do
          local p, st = entry(j), eState[j]
          if st.allowed and admitted then
            p.algo.commit(p, st)
          else
            -- A count carried over a change of `window` moves (expiry included) even uncharged.
            if st.moved then p.algo.move(p, st) end
            if st.reason == REASON_LIMIT and p.blockForUs > 0 then
              -- The penalty is the point of blockFor: it applies even though nothing else is
              -- charged.
              write(eBlock[j], int(now + p.blockForUs), px(p.blockForUs))
              st.retryAfterUs = max(st.retryAfterUs, p.blockForUs)
              st.resetUs = max(st.resetUs, p.blockForUs)
            end
          end
        end
      end
      local r = #reply
      reply[r + 1] = admitted and 1 or 0
      r = r + 1
      for j = 1, n do
        local st = eState[j]
        local resetMs, retryMs = to_ms(st.resetUs), to_ms(st.retryAfterUs)
        -- A wait under half a microsecond rounds to 0: a refusal still says "retry after 1 ms".
        if st.reason == REASON_LIMIT or st.reason == REASON_BLOCKED then
          retryMs = max(1, retryMs)
          resetMs = max(resetMs, retryMs)
        end
        reply[r + 1] = st.allowed and 1 or 0
        reply[r + 2] = st.remaining
        reply[r + 3] = resetMs
        reply[r + 4] = retryMs
        reply[r + 5] = st.reason
        r = r + 5
      end
    end
  end
end
-- Writes the cached state back (see read/write in the prelude).
for i = 1, #dirtyOrder do
  local key = dirtyOrder[i]
  local ttl = dirty[key]
  if ttl == DELETE then call('DEL', key)
  elseif ttl == KEEP_TTL then call('SET', key, cached[key], 'KEEPTTL')
  else call('SET', key, cached[key], 'PX', ttl) end
end
return reply
