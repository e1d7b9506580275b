-- sliding-window: an exact log; at most `limit` units in any interval of `window` length.
--
-- Defines  algorithms['sliding-window']: capacity 'limit'; check, commit, refund
-- Reads    p.key, p.now, p.windowUs, p.limit, p.cost; refund p.key, p.charged, p.cost
-- st       count (members in the window now) and the common fields
-- State    a sorted set, read and written directly (not through read/write: the prelude's cache
--          holds strings): one member "<us>-<seq>" per admitted unit, scored by the time it was
--          charged (us); expires a window after the last charge
-- Uses     call, num, int, px, tonumber, max, min, unpack
--
-- check only counts (peek shares it); commit trims old members and adds ours.
algorithms['sliding-window'] = {
  capacity = 'limit',
  check = function(p)
    local oldest = '(' .. num(p.now - p.windowUs)
    local count = call('ZCOUNT', p.key, oldest, '+inf')
    local st = { count = count, allowed = false, remaining = 0, retryAfterUs = 0, resetUs = 0, reason = 0 }
    if count + p.cost > p.limit then
      st.allowed, st.remaining = false, max(0, p.limit - count)
      st.retryAfterUs, st.resetUs = 0, 0
      if count > 0 then
        -- The request fits once the (count + cost - limit) oldest members have left the window.
        local skip = max(0, count + p.cost - p.limit - 1)
        local nth = call('ZRANGEBYSCORE', p.key, oldest, '+inf', 'WITHSCORES', 'LIMIT', skip, 1)
        if nth[2] then st.retryAfterUs = max(0, tonumber(nth[2]) + p.windowUs - p.now) end
        local newest = call('ZREVRANGE', p.key, 0, 0, 'WITHSCORES')
        st.resetUs = max(0, tonumber(newest[2]) + p.windowUs - p.now)
      end
    else
      st.allowed, st.remaining, st.retryAfterUs = true, p.limit - count - p.cost, 0
      st.resetUs = p.cost > 0 and p.windowUs or 0
      if p.cost == 0 and count > 0 then
        local newest = call('ZREVRANGE', p.key, 0, 0, 'WITHSCORES')
        st.resetUs = max(0, tonumber(newest[2]) + p.windowUs - p.now)
      end
    end
    return st
  end,
  commit = function(p, st)
    call('ZREMRANGEBYSCORE', p.key, '-inf', num(p.now - p.windowUs))
    -- Members must be unique even for two requests in the same microsecond: NX refuses a
    -- member that exists, and the sequence moves on until as many are new as the cost. Added
    -- up to 1,000 per ZADD: a cost of thousands is a few commands, not one per unit.
    local score, seq, left = int(p.now), st.count, p.cost
    while left > 0 do
      local args, n = { 'NX' }, min(left, 1000)
      for i = 1, n do
        args[2 * i] = score
        args[2 * i + 1] = score .. '-' .. int(seq + i)
      end
      seq = seq + n
      left = left - call('ZADD', p.key, unpack(args))
    end
    call('PEXPIRE', p.key, px(p.windowUs))
  end,
  refund = function(p)
    -- The members added when the cost was charged (scored by that time): a newer member would
    -- leave the window later than the one charged.
    local score, left = int(p.charged), p.cost
    while left > 0 do
      local added = call('ZRANGEBYSCORE', p.key, score, score, 'LIMIT', 0, min(left, 1000))
      if #added == 0 then return end
      call('ZREM', p.key, unpack(added))
      left = left - #added
    end
  end,
}
