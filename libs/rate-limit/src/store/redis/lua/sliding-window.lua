-- sliding-window: an exact log; at most `limit` units in any interval of `window` length.
--
-- Defines  algorithms['sliding-window']: check, commit, refund; capacity `limit`
-- check    x1 = count (members in the window now)
-- State    a sorted set, read and written directly (not through read/write: the prelude's cache
--          holds strings): one member "<us>-<seq>" per admitted unit, scored by the time it was
--          charged (us); expires a window after the last charge
-- Uses     call, px, format, tonumber, min (and Lua's global unpack)
--
-- check only counts (peek shares it); commit trims old members and adds ours. Scores are passed
-- to Redis as numbers: it writes them as %.17g, which reads back as the same double.

-- When the member `newest` of the log (a ZREVRANGE/ZRANGEBYSCORE WITHSCORES reply) leaves the
-- window, from now (us, at least 0).
local function sw_leaves(reply, now, windowUs)
  local us = tonumber(reply[2]) + windowUs - now
  if us > 0 then return us end
  return 0
end

local function sw_check(key, now, limit, windowUs, burst, cost)
  local oldest = '(' .. format('%.17g', now - windowUs)
  local count = call('ZCOUNT', key, oldest, '+inf')
  if count + cost > limit then
    local remaining, retryUs, resetUs = limit - count, 0, 0
    if remaining < 0 then remaining = 0 end
    if count > 0 then
      -- The request fits once the (count + cost - limit) oldest members have left the window.
      local skip = count + cost - limit - 1
      if skip < 0 then skip = 0 end
      local nth = call('ZRANGEBYSCORE', key, oldest, '+inf', 'WITHSCORES', 'LIMIT', skip, 1)
      if nth[2] then retryUs = sw_leaves(nth, now, windowUs) end
      resetUs = sw_leaves(call('ZREVRANGE', key, 0, 0, 'WITHSCORES'), now, windowUs)
    end
    return false, remaining, resetUs, retryUs, count
  end
  local resetUs = 0
  if cost > 0 then
    resetUs = windowUs
  elseif count > 0 then
    resetUs = sw_leaves(call('ZREVRANGE', key, 0, 0, 'WITHSCORES'), now, windowUs)
  end
  return true, limit - count - cost, resetUs, 0, count
end

local function sw_commit(key, now, limit, windowUs, burst, cost, count)
  call('ZREMRANGEBYSCORE', key, '-inf', now - windowUs)
  -- Members must be unique even for two requests in the same microsecond: NX refuses a member
  -- that exists, and the sequence moves on until as many are new as the cost. Added up to
  -- 1,000 per ZADD: a cost of thousands is a few commands, not one per unit.
  local score, seq, left = format('%d', now), count, cost
  if left == 1 then
    -- The usual request: one member, no argument table.
    left = left - call('ZADD', key, 'NX', score, score .. '-' .. format('%d', seq + 1))
    seq = seq + 1
  end
  while left > 0 do
    local args, n = { 'NX' }, min(left, 1000)
    for i = 1, n do
      args[2 * i] = score
      args[2 * i + 1] = score .. '-' .. format('%d', seq + i)
    end
    seq = seq + n
    left = left - call('ZADD', key, unpack(args))
  end
  call('PEXPIRE', key, px(windowUs))
end

local function sw_refund(key, now, limit, windowUs, burst, cost, charged)
  -- The members added when the cost was charged (scored by that time): a newer member would
  -- leave the window later than the one charged.
  local score, left = format('%d', charged), cost
  while left > 0 do
    local added = call('ZRANGEBYSCORE', key, score, score, 'LIMIT', 0, min(left, 1000))
    if #added == 0 then return end
    call('ZREM', key, unpack(added))
    left = left - #added
  end
end

algorithms['sliding-window'] = { sw_check, sw_commit, false, sw_refund, false }
