-- The second fragment of a call (see decide-call.lua): the entries of the current group and
-- their checks, which read and never write.
--
-- Uses     op, now, SP, spTop (from decide-call.lua); the override actions, the reasons and
--          the thresholds' bounds (decide.lua); read, match, sub, tonumber (the prelude)
-- Provides E (the entries), groupExtras, read_override(e), check_group(n)

-- The entries of the current group, 17 values each in one array reused by every group:
--   +1 spec (its offset in SP)  +2 state key  +3 override key | false  +4 block key | false
--   +5 cost  +6 what its override asks  +7 a deny's message  +8 allowed  +9 remaining
--   +10 resetUs  +11 retryAfterUs  +12 reason  +13..16 the algorithm's x1..x4  +17 free (an
--   allow override admitted it over its limit: nothing to commit)
-- The offsets stay numbers: named, they would be upvalues in check_group, one more instruction
-- at every use. Built with room for 4 entries (see SP).
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
