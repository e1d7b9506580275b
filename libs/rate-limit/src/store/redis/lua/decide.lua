-- Decides a batch of requests in one call. Each request (a group: the policies of one identity)
-- is atomic and all-or-nothing: its policies are all checked first, and state is written only
-- when every enforced one admits it. Groups are independent of each other.
--
-- Input
--   KEYS     per entry, in the order of the entries in ARGV: its state key, its client override
--            key (unless its spec index is negative), then its block key when its spec's
--            blockForMs > 0
--   ARGV[1]  op: 'consume' | 'peek' (checks, writes nothing) | 'refund' (gives back a cost
--            charged earlier)
--   ARGV[2]  now in microseconds, or '' to use Redis TIME (one clock for every app instance)
--   ARGV[3]  refund only: when the cost given back was charged (the first value of the consume's
--            reply, in microseconds): the window algorithms give back to that window; else ''
--   ARGV[4]  '1' when no key appears twice in KEYS (state needs no cache within the call), else ''
--   ARGV[5]  S, the number of policy specs; then 6 per spec: algo (an `algorithms` name), limit,
--            windowMs, burst, blockForMs (0: none), shadow ('1' | '0')
--   then per group: its number of entries; then 2 per entry: its spec (1..S, or -1..-S for an
--   entry sent without an override key: no client override is in use), cost
--   A client override (a string at the entry's override key, written by the admin API; see
--   client-override-value.ts) changes that entry alone: 'allow' admits it whatever its state
--   (charged only when the check admits), 'deny[:<message>]' rejects it (reason 4, nothing
--   charged, no penalty), 'quota:<limit>:<windowMs>:<burst>' decides it on those thresholds (an
--   empty field is the spec's). Any other value is no override.
-- Output, one flat array
--   the time of the decision (microseconds: ARGV[2] or Redis TIME)
--   then per group, in order: admitted (1 | 0: an enforced entry refused; a shadow entry's
--   refusal is reported but refuses nothing), then 5 per entry:
--     allowed (1 | 0), remaining, resetMs, retryAfterMs (0 when allowed or for reasons 3 and
--     4, at least 1 for reasons 1 and 2), reason (0 admitted, 1 over the limit, 2 blocked by
--     blockFor, 3 cost above capacity, 4 denied by a client override)
--   When an entry of the group has a client override, the group's first value is 2 (refused)
--   or 3 (admitted) instead of 0 or 1, and its entries are followed by the number of extras,
--   then per extra the entry's index in the group (1..n) and: a deny's message (a string, ''
--   for none), a quota's capacity (an integer >= 1, reported as its limit), or for an allow 0
--   (charged) or -1 (admitted over its limit, not charged: a refund must not give it back).
--   A quota whose thresholds are out of bounds (written by hand) is no override.
--   or, for a group with a key this script cannot read (say, another type written by hand): -1
--   and the error message; nothing of that group is written.
--   peek replies alike; refund replies with the time alone. A spec naming an algorithm this
--   script does not hold fails the whole call (an error reply; nothing written).
local REASON_OK, REASON_LIMIT, REASON_BLOCKED, REASON_COST, REASON_DENIED = 0, 1, 2, 3, 4
-- What a client override asks of an entry.
local NONE, ALLOW, DENY, QUOTA = 0, 1, 2, 3
-- Bounds of a quota's thresholds (policy-limits.ts).
local MAX_LIMIT, MAX_WINDOW_MS, MAX_SLIDING_LOG = 1000000000, 31622400000, 10000

local op = ARGV[1]
local now = tonumber(ARGV[2])
if not now then
  local t = call('TIME')
  now = t[1] * 1000000 + t[2]
end
local charged = tonumber(ARGV[3]) or now
uncached = ARGV[4] == '1'

-- Specs are parsed once per call and reused by every entry that names them. Tables are built
-- with every field they will hold: adding a field later rehashes them, which costs more than the
-- arithmetic.
local specs = {}
local a = 6
for s = 1, tonumber(ARGV[5]) do
  local name = ARGV[a]
  local algo = algorithms[name]
  if not algo then return redis.error_reply('ERR unknown rate limit algorithm ' .. tostring(name)) end
  local limit, burst = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 3])
  specs[s] = {
    algo = algo, now = now, charged = charged, limit = limit, windowUs = ARGV[a + 2] * 1000, burst = burst,
    capacity = algo.capacity == 'burst' and burst or limit,
    blockForUs = ARGV[a + 4] * 1000, shadow = ARGV[a + 5] == '1',
    -- Set per entry; present from the start so that setting them never grows the table.
    key = false, cost = 0,
  }
  a = a + 6
end

local reply, k, nargs = { now }, 1, #ARGV
-- Per entry of the current group, in arrays reused by every group (no table per entry). Where
-- an entry is used, its spec is pointed at its key and cost in place, not by a helper: every
-- function of the chunk is created anew on each call, which costs more than the line it saves.
local eSpec, eKey, eOver, eBlock, eCost, eState, eAct, eMsg = {}, {}, {}, {}, {}, {}, {}, {}
-- Set when an entry of the current group has a deny or a quota: its reply carries extras.
local groupExtras = false

-- Reads entry j's client override (see the header): sets what it asks (eAct, eMsg) and, for a
-- quota, points the entry at a spec of its own (the shared one stays as it is for the others).
-- Almost every client has none: one GET of a missing key.
local function read_override(j)
  local key = eOver[j]
  eAct[j] = NONE
  if not key then return end
  local ov = read(key)
  if not ov then return end
  if ov == 'allow' then
    eAct[j] = ALLOW
  elseif ov == 'deny' or sub(ov, 1, 5) == 'deny:' then
    eAct[j], eMsg[j] = DENY, sub(ov, 6)
  else
    local l, w, b = match(ov, '^quota:(%d*):(%d*):(%d*)$')
    if not l then return end
    -- '' (left to the spec) reads as nil; so does a value out of the thresholds' bounds (written
    -- by hand: a zero would divide by 0, a huge one overflow the reply's integers).
    l, w, b = tonumber(l), tonumber(w), tonumber(b)
    if l and (l < 1 or l > MAX_LIMIT) then l = nil end
    if w and (w < 1 or w > MAX_WINDOW_MS) then w = nil end
    if b and (b < 1 or b > MAX_LIMIT) then b = nil end
    local p = eSpec[j]
    -- The sliding log keeps an entry per unit: above its cap the quota is no quota (as the API refuses).
    if l and l > MAX_SLIDING_LOG and p.algo == algorithms['sliding-window'] then return end
    eAct[j] = QUOTA
    local limit, burst = l or p.limit, b or l or p.burst
    eSpec[j] = {
      algo = p.algo, now = now, charged = charged, limit = limit,
      windowUs = w and w * 1000 or p.windowUs, burst = burst,
      capacity = p.algo.capacity == 'burst' and burst or limit,
      blockForUs = p.blockForUs, shadow = p.shadow, key = false, cost = 0,
    }
  end
end

-- Checks the n entries of the current group (reads only) and says whether it is admitted.
local function check_group(n)
  local admitted = true
  for j = 1, n do
    read_override(j)
    local p, blockKey, act = eSpec[j], eBlock[j], eAct[j]
    if act ~= NONE then groupExtras = true end
    p.key, p.cost = eKey[j], eCost[j]
    local untilUs = blockKey and tonumber(read(blockKey))
    local st
    if act == DENY then
      st = { allowed = false, remaining = 0, resetUs = 0, retryAfterUs = 0, reason = REASON_DENIED }
    elseif untilUs and untilUs > now then
      st = { allowed = false, remaining = 0, resetUs = untilUs - now, retryAfterUs = untilUs - now, reason = REASON_BLOCKED }
    else
      st = p.algo.check(p)
      st.reason = st.allowed and REASON_OK or REASON_LIMIT
      if p.cost > p.capacity then
        st.allowed, st.retryAfterUs, st.reason = false, 0, REASON_COST
      end
    end
    if act == ALLOW and not st.allowed then
      -- Never limited; charged only when the check admits it (`free`: nothing to commit).
      st.allowed, st.retryAfterUs, st.reason, st.free = true, 0, REASON_OK, true
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
    -- A negative spec index: the entry has no override key (no client override is in use).
    local s = tonumber(ARGV[a])
    eCost[j] = tonumber(ARGV[a + 1])
    a = a + 2
    local p
    if s < 0 then
      p = specs[-s]
      eSpec[j], eKey[j], eOver[j] = p, KEYS[k], false
      k = k + 1
    else
      p = specs[s]
      eSpec[j], eKey[j], eOver[j] = p, KEYS[k], KEYS[k + 1]
      k = k + 2
    end
    if p.blockForUs > 0 then
      eBlock[j] = KEYS[k]
      k = k + 1
    else
      eBlock[j] = false
    end
  end

  if op == 'refund' then
    for j = 1, n do
      read_override(j)
      local p = eSpec[j]
      p.key, p.cost = eKey[j], eCost[j]
      p.algo.refund(p)
    end
  else
    -- A key this script cannot read (say, another type written by hand) fails its own group,
    -- before anything of the group is written; the other groups of the call go on.
    groupExtras = false
    local ok, admitted = pcall(check_group, n)
    if ok then
      -- Inline rather than in functions: the chunk's functions are created anew on every call.
      if op == 'consume' then
        -- What each entry owes: an allowed entry of an admitted group its charge; any other entry
        -- only what applies uncharged (a moved count, blockFor's penalty).
        for j = 1, n do
          local p, st = eSpec[j], eState[j]
          p.key, p.cost = eKey[j], eCost[j]
          if st.allowed and admitted then
            if not st.free then p.algo.commit(p, st) end
          else
            -- A count carried over a change of `window` moves (expiry included) even uncharged.
            if st.moved then p.algo.move(p, st) end
            if st.reason == REASON_LIMIT and p.blockForUs > 0 then
              -- The penalty is the point of blockFor: it applies even though nothing else is charged.
              write(eBlock[j], int(now + p.blockForUs), px(p.blockForUs))
              st.retryAfterUs = max(st.retryAfterUs, p.blockForUs)
              st.resetUs = max(st.resetUs, p.blockForUs)
            end
          end
        end
      end
      -- The group's part of the reply (see the header); 2 and 3: as 0 and 1, with extras after
      -- the entries.
      local r = #reply + 1
      reply[r] = (admitted and 1 or 0) + (groupExtras and 2 or 0)
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
      if groupExtras then
        -- The count first (no hole in the array), set once the extras are known.
        local head = r + 1
        reply[head] = 0
        r = head
        for j = 1, n do
          local act = eAct[j]
          if act == DENY then
            reply[r + 1], reply[r + 2] = j, eMsg[j]
            r = r + 2
          elseif act == QUOTA then
            reply[r + 1], reply[r + 2] = j, eSpec[j].capacity
            r = r + 2
          elseif act == ALLOW then
            -- 0: admitted and charged; -1: admitted over its limit, not charged (nothing to refund).
            reply[r + 1], reply[r + 2] = j, eState[j].free and -1 or 0
            r = r + 2
          end
        end
        reply[head] = (r - head) / 2
      end
    else
      reply[#reply + 1] = -1
      reply[#reply + 1] = type(admitted) == 'table' and admitted.err or tostring(admitted)
    end
  end
end
-- Writes the cached state back (see read/write in the prelude); nothing when uncached.
for i = 1, #dirtyOrder do
  local key = dirtyOrder[i]
  store(key, cached[key], dirty[key])
end
return reply
