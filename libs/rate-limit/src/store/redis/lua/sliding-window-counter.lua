-- sliding-window-counter: the previous window's count, weighted by how much of it still overlaps
-- the sliding window, plus the current window's count. O(1) memory; an approximation that
-- assumes the previous window's requests were evenly spread.
-- State: "<windowIndex>:<current>:<previous>", kept until the end of the next window.
local function swc_read(p)
  local index = floor(p.now / p.windowUs)
  local current, previous = 0, 0
  local raw = read(p.key)
  if raw then
    local si, sc, sp = match(raw, '^([^:]+):([^:]+):([^:]+)$')
    si, sc, sp = tonumber(si), tonumber(sc), tonumber(sp)
    if si == index then current, previous = sc, sp
    elseif si == index - 1 then previous = sc end
  end
  return index, current, previous
end

algorithms['sliding-window-counter'] = {
  check = function(p)
    local index, current, previous = swc_read(p)
    local elapsed = p.now - index * p.windowUs
    local used = previous * (p.windowUs - elapsed) / p.windowUs + current
    local st = {
      index = index, current = current, previous = previous, elapsed = elapsed,
      allowed = false, remaining = 0, retryAfterUs = 0, resetUs = 0, reason = 0,
    }
    if used + p.cost > p.limit then
      st.allowed, st.remaining = false, max(0, floor(p.limit - used))
      if current + p.cost <= p.limit then
        -- Only the previous window's weight is in the way; it shrinks linearly.
        st.retryAfterUs = (p.windowUs - elapsed) - (p.limit - current - p.cost) * p.windowUs / previous
      else
        -- Wait for the next window, where this window's count becomes the weighted one.
        local inNext = p.windowUs - (p.limit - p.cost) * p.windowUs / current
        st.retryAfterUs = (p.windowUs - elapsed) + max(0, inNext)
      end
      st.retryAfterUs = max(0, st.retryAfterUs)
    else
      st.allowed, st.remaining, st.retryAfterUs = true, max(0, floor(p.limit - used - p.cost)), 0
    end
    local currentAfter = current + (st.allowed and p.cost or 0)
    if currentAfter > 0 then st.resetUs = 2 * p.windowUs - elapsed
    elseif previous > 0 then st.resetUs = p.windowUs - elapsed
    else st.resetUs = 0 end
    return st
  end,
  commit = function(p, st)
    local value = int(st.index) .. ':' .. int(st.current + p.cost) .. ':' .. int(st.previous)
    write(p.key, value, px(2 * p.windowUs - st.elapsed))
  end,
  refund = function(p)
    local index, current, previous = swc_read(p)
    -- Given back to the window that was charged: the current one, or the previous one when the
    -- window has rolled over since (a later one has nothing of it).
    local charged = floor(p.charged / p.windowUs)
    if charged == index and current > 0 then current = max(0, current - p.cost)
    elseif charged == index - 1 and previous > 0 then previous = max(0, previous - p.cost)
    else return end
    write(p.key, int(index) .. ':' .. int(current) .. ':' .. int(previous), KEEP_TTL)
  end,
}
