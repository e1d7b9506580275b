-- One call of the decide program: the statements decide-script.ts places after decide.lua, in
-- its two forms. As a script, at the chunk's top level after `local KEYS, ARGV = KEYS, ARGV`
-- (globals, a table lookup at every use: locals instead); as a library, as the body of
-- `decide_call(KEYS, ARGV)`, the function it registers, after begin-call.lua. Either way it
-- runs once per call, reads KEYS and ARGV as decide.lua's header states and returns the reply.
-- Not wrapped in a function in the script: a closure over this many of the chunk's locals would
-- cost a script instructions on every call (see begin-call.lua).
--
-- Uses everything of the prelude, and from decide.lua: the reasons, the override actions,
-- the thresholds' bounds, small(), decide_one().

local op = ARGV[1]
if op == 'c' or op == 'p' then
  expiry_form = true
  local t = call('TIME')
  local now = t[1] * 1000000 + t[2]
  local algo = algorithms[ARGV[2]]
  if not algo then
    return redis.error_reply('ERR unknown rate limit algorithm ' .. tostring(ARGV[2]))
  end
  local limit = tonumber(ARGV[3])
  local burst = limit
  if ARGV[5] ~= ARGV[3] then burst = tonumber(ARGV[5]) end
  local cost = ARGV[7]
  if cost == '1' then cost = 1 else cost = tonumber(cost) end
  local head, remaining, resetMs, retryMs, reason = decide_one(op == 'c', algo, KEYS[1], now,
    limit, ARGV[4] * 1000, burst, algo[5] and burst or limit, ARGV[6] == '1', cost)
  return { now, head, remaining, resetMs, retryMs, reason }
end

local now
if ARGV[2] == '' then
  local t = call('TIME')
  now = t[1] * 1000000 + t[2]
else
  now = tonumber(ARGV[2])
end
local charged = now
if ARGV[3] ~= '' then charged = tonumber(ARGV[3]) end
if ARGV[4] ~= '1' then cache_call() elseif ARGV[2] == '' then expiry_form = true end

-- Specs, 7 values each in one array (no table per spec): algo, limit, windowUs, burst,
-- capacity, blockForUs, shadow. A quota override appends a spec of its own for its entry.
-- Built with room for 3 specs: a table grown one value at a time is rehashed at every power of
-- two, which costs more than filling it (measured: half of filling 3 entries' values).
local SP = { false, false, false, false, false, false, false, false, false, false, false, false,
  false, false, false, false, false, false, false, false, false }
local a = 6
local nspecs = small(ARGV[5])
-- Where a quota override's spec goes (after the others).
local spTop = nspecs * 7
for s = 0, nspecs - 1 do
  local algo = algorithms[ARGV[a]]
  if not algo then
    return redis.error_reply('ERR unknown rate limit algorithm ' .. tostring(ARGV[a]))
  end
  local limit = tonumber(ARGV[a + 1])
  local burst = limit
  if ARGV[a + 3] ~= ARGV[a + 1] then burst = tonumber(ARGV[a + 3]) end
  local blockForUs = 0
  if ARGV[a + 4] ~= '0' then blockForUs = ARGV[a + 4] * 1000 end
  local b = s * 7
  SP[b + 1], SP[b + 2], SP[b + 3], SP[b + 4] = algo, limit, ARGV[a + 2] * 1000, burst
  SP[b + 5], SP[b + 6], SP[b + 7] = algo[5] and burst or limit, blockForUs, ARGV[a + 5] == '1'
  a = a + 6
end

-- The entries of the current group, 17 values each in one array reused by every group:
--   +1 spec (its offset in SP)  +2 state key  +3 override key | false  +4 block key | false
--   +5 cost  +6 what its override asks  +7 a deny's message  +8 allowed  +9 remaining
--   +10 resetUs  +11 retryAfterUs  +12 reason  +13..16 the algorithm's x1..x4  +17 free (an
--   allow override admitted it over its limit: nothing to commit)
-- Built with room for 4 entries (see SP).
local E = { false, false, false, false, false, false, false, false, false, false, false, false,
  false, false, false, false, false, false, false, false, false, false, false, false, false,
  false, false, false, false, false, false, false, false, false, false, false, false, false,
  false, false, false, false, false, false, false, false, false, false, false, false, false,
  false, false, false, false, false, false, false, false, false, false, false, false, false,
  false, false, false, false }
-- Set when an entry of the current group has a deny or a quota: its reply carries extras.
local groupExtras = false

-- Reads entry e's client override (see the header): sets what it asks and, for a quota, points
-- the entry at a spec of its own. Almost every client has none: one GET of a missing key.
local function read_override(e)
  E[e + 6] = NONE
  local key = E[e + 3]
  if not key then return end
  local ov = read(key)
  if not ov then return end
  if ov == 'allow' then
    E[e + 6] = ALLOW
  elseif ov == 'deny' or sub(ov, 1, 5) == 'deny:' then
    E[e + 6], E[e + 7] = DENY, sub(ov, 6)
  else
    local l, w, b = match(ov, '^quota:(%d*):(%d*):(%d*)$')
    if not l then return end
    -- '' (left to the spec) reads as nil; so does a value out of the thresholds' bounds (written
    -- by hand: a zero would divide by 0, a huge one overflow the reply's integers).
    l, w, b = tonumber(l), tonumber(w), tonumber(b)
    if l and (l < 1 or l > MAX_LIMIT) then l = nil end
    if w and (w < 1 or w > MAX_WINDOW_MS) then w = nil end
    if b and (b < 1 or b > MAX_LIMIT) then b = nil end
    local p = E[e + 1]
    local algo = SP[p + 1]
    -- The sliding log keeps an entry per unit: above its cap the quota is no quota (as the API refuses).
    if l and l > MAX_SLIDING_LOG and algo == algorithms['sliding-window'] then return end
    E[e + 6] = QUOTA
    local limit = l or SP[p + 2]
    local burst = b or l or SP[p + 4]
    local q = spTop
    spTop = spTop + 7
    SP[q + 1], SP[q + 2], SP[q + 3], SP[q + 4] = algo, limit, w and w * 1000 or SP[p + 3], burst
    SP[q + 5], SP[q + 6], SP[q + 7] = algo[5] and burst or limit, SP[p + 6], SP[p + 7]
    E[e + 1] = q
  end
end

-- Checks the n entries of the current group (reads only) and says whether it is admitted.
local function check_group(n)
  local admitted = true
  for e = 0, (n - 1) * 17, 17 do
    if E[e + 3] then read_override(e) else E[e + 6] = NONE end
    local p, act, cost = E[e + 1], E[e + 6], E[e + 5]
    if act ~= NONE then groupExtras = true end
    local blockKey = E[e + 4]
    local untilUs = blockKey and tonumber(read(blockKey))
    local allowed, remaining, resetUs, retryUs, reason, x1, x2, x3, x4
    if act == DENY then
      allowed, remaining, resetUs, retryUs, reason = false, 0, 0, 0, REASON_DENIED
    elseif untilUs and untilUs > now then
      allowed, remaining, resetUs, retryUs = false, 0, untilUs - now, untilUs - now
      reason = REASON_BLOCKED
    else
      allowed, remaining, resetUs, retryUs, x1, x2, x3, x4 =
        SP[p + 1][1](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], cost)
      reason = allowed and REASON_OK or REASON_LIMIT
      if cost > SP[p + 5] then allowed, retryUs, reason = false, 0, REASON_COST end
    end
    local free = false
    if act == ALLOW and not allowed then
      -- Never limited; charged only when the check admits it (`free`: nothing to commit).
      allowed, retryUs, reason, free = true, 0, REASON_OK, true
    end
    E[e + 8], E[e + 9], E[e + 10], E[e + 11], E[e + 12] = allowed, remaining, resetUs, retryUs, reason
    E[e + 13], E[e + 14], E[e + 15], E[e + 16], E[e + 17] = x1, x2, x3, x4, free
    if not allowed and not SP[p + 7] then admitted = false end
  end
  return admitted
end

local reply, r, k, nargs = { now }, 1, 1, #ARGV
while a <= nargs do
  -- A group of one entry (a lone request, or one client of a batch) is decided with locals
  -- alone, unless its client has an override (then as any other group, below).
  local n, done = 1, false
  if ARGV[a] == '1' and op ~= 'refund' then
    local s, cost = ARGV[a + 1], ARGV[a + 2]
    a = a + 3
    if cost == '1' then cost = 1 else cost = tonumber(cost) end
    local key, overKey = KEYS[k], false
    s = small(s)
    if s < 0 then
      s = -s
      k = k + 1
    else
      overKey = KEYS[k + 1]
      k = k + 2
    end
    local p = (s - 1) * 7
    local blockForUs, blockKey = SP[p + 6], false
    if blockForUs > 0 then
      blockKey = KEYS[k]
      k = k + 1
    end
    -- An override (or an override key Redis cannot read: the general path reads it again), or
    -- a penalty to read and maybe write: as any other group.
    if blockKey or (overKey and pcall_redis('GET', overKey)) then
      E[1], E[2], E[3], E[4], E[5] = p, key, overKey, blockKey, cost
    else
      done = true
      local head, remaining, resetMs, retryMs, reason = decide_one(op == 'consume', SP[p + 1], key,
        now, SP[p + 2], SP[p + 3], SP[p + 4], SP[p + 5], SP[p + 7], cost)
      reply[r + 1], reply[r + 2] = head, remaining
      if head == -1 then
        r = r + 2
      else
        reply[r + 3], reply[r + 4], reply[r + 5] = resetMs, retryMs, reason
        r = r + 5
      end
    end
  else
    n = small(ARGV[a])
    a = a + 1
    for e = 0, (n - 1) * 17, 17 do
      -- A negative spec index: the entry has no override key (no client override is in use).
      local s, cost = small(ARGV[a]), ARGV[a + 1]
      a = a + 2
      if cost == '1' then cost = 1 else cost = tonumber(cost) end
      E[e + 2], E[e + 5] = KEYS[k], cost
      if s < 0 then
        s = -s
        E[e + 3] = false
        k = k + 1
      else
        E[e + 3] = KEYS[k + 1]
        k = k + 2
      end
      local p = (s - 1) * 7
      E[e + 1] = p
      if SP[p + 6] > 0 then
        E[e + 4] = KEYS[k]
        k = k + 1
      else
        E[e + 4] = false
      end
    end
  end
  if not done then
    local last = (n - 1) * 17
    if op == 'refund' then
      for e = 0, last, 17 do
        read_override(e)
        local p = E[e + 1]
        SP[p + 1][4](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5], charged)
      end
    else
      -- A key this script cannot read (say, another type written by hand) fails its own group,
      -- before anything of the group is written; the other groups of the call go on.
      groupExtras = false
      local ok, admitted = pcall(check_group, n)
      if ok then
        if op == 'consume' then
          -- What each entry owes: an allowed entry of an admitted group its charge; any other entry
          -- only what applies uncharged (a moved count, blockFor's penalty).
          for e = 0, last, 17 do
            local p = E[e + 1]
            if E[e + 8] and admitted then
              if not E[e + 17] then
                SP[p + 1][2](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5],
                  E[e + 13], E[e + 14], E[e + 15], E[e + 16])
              end
            else
              -- A count carried over a change of `window` moves (expiry included) even uncharged.
              if E[e + 15] == true and SP[p + 1][3] then
                SP[p + 1][3](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5],
                  E[e + 13], E[e + 14], E[e + 15], E[e + 16])
              end
              local blockForUs = SP[p + 6]
              if E[e + 12] == REASON_LIMIT and blockForUs > 0 then
                -- The penalty is the point of blockFor: it applies even though nothing else is charged.
                write(E[e + 4], now + blockForUs, px(blockForUs))
                if E[e + 11] < blockForUs then E[e + 11] = blockForUs end
                if E[e + 10] < blockForUs then E[e + 10] = blockForUs end
              end
            end
          end
        end
        -- The group's part of the reply (see the header); 2 and 3: as 0 and 1, with extras after
        -- the entries.
        r = r + 1
        reply[r] = (admitted and 1 or 0) + (groupExtras and 2 or 0)
        for e = 0, last, 17 do
          local reason, resetMs, retryMs = E[e + 12], to_ms(E[e + 10]), 0
          if E[e + 11] > 0 then retryMs = to_ms(E[e + 11]) end
          -- A wait under half a microsecond rounds to 0: a refusal still says "retry after 1 ms".
          if reason == REASON_LIMIT or reason == REASON_BLOCKED then
            if retryMs < 1 then retryMs = 1 end
            if resetMs < retryMs then resetMs = retryMs end
          end
          reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = E[e + 9], resetMs, retryMs, reason
          r = r + 4
        end
        if groupExtras then
          -- The count first (no hole in the array), set once the extras are known.
          local head = r + 1
          reply[head] = 0
          r = head
          for e = 0, last, 17 do
            local act, j = E[e + 6], e / 17 + 1
            if act == DENY then
              reply[r + 1], reply[r + 2] = j, E[e + 7]
              r = r + 2
            elseif act == QUOTA then
              reply[r + 1], reply[r + 2] = j, SP[E[e + 1] + 5]
              r = r + 2
            elseif act == ALLOW then
              -- 0: admitted and charged; -1: admitted over its limit, not charged (nothing to refund).
              reply[r + 1], reply[r + 2] = j, E[e + 17] and -1 or 0
              r = r + 2
            end
          end
          reply[head] = (r - head) / 2
        end
      else
        reply[r + 1] = -1
        reply[r + 2] = type(admitted) == 'table' and admitted.err or tostring(admitted)
        r = r + 2
      end
    end
  end
end
-- Writes the cached state back (see read/write in the prelude); nothing when uncached.
if not uncached then
  for i = 1, #dirtyOrder do
    local key = dirtyOrder[i]
    store(key, cached[key], dirty[key])
  end
end
return reply
