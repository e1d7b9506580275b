-- sliding-window-counter: the previous window's count, weighted by how much of it still overlaps
-- the sliding window, plus the current window's count. O(1) memory; an approximation that
-- assumes the previous window's requests were evenly spread.
--
-- Defines  algorithms['sliding-window-counter']: capacity 'limit'; check, commit, move, refund
-- Reads    p.key, p.now, p.windowUs, p.limit, p.cost; refund also p.charged
-- st       index (of now's window), current, previous (the counts placed in now's window and the
--          one before), elapsed (us since now's window began), moved, and the common fields
-- State    a string key: "<windowIndex>:<windowMs>:<current>:<previous>", the window the counts
--          were written in and its length; kept until the end of the next window (the end of
--          this one when only the previous count is left). Any other value reads as no counts.
-- Uses     read, write, px, int, match, tonumber, floor, max, KEEP_TTL, DELETE
--
-- Counts are placed by time, so that they survive a runtime change of `window`: each count still
-- in force (the current one until the end of the next window, the previous one until the end of
-- the current window) goes to the window of the current length that contains the end of the
-- window it was counted in, or to the one containing now while its window runs; a count that
-- lands before the previous window is gone. With the length unchanged that is the ordinary
-- rollover. After a change, the next request writes the counts in their new windows and moves
-- the expiry, even when that request is rejected (move).

-- The stored window index, its length (us) and its two counts; nothing when there is no state.
local function swc_stored(p)
  local raw = read(p.key)
  if not raw then return end
  local si, sw, sc, sp = match(raw, '^([^:]+):([^:]+):([^:]+):([^:]+)$')
  si, sw, sc, sp = tonumber(si), tonumber(sw), tonumber(sc), tonumber(sp)
  if si and sw and sc and sp then return si, sw * 1000, sc, sp end
end

-- The stored counts placed in the windows of the current length: current, previous.
local function swc_place(p, index, si, sw, sc, sp)
  local endUs, current, previous = (si + 1) * sw, 0, 0
  if endUs > p.now then
    -- Its window runs: its count is now's; the previous count's window ended where it started.
    current = sc
    local j = floor((endUs - sw - 1) / p.windowUs)
    if j >= index then current = current + sp elseif j == index - 1 then previous = sp end
  elseif endUs + sw > p.now then
    local j = floor((endUs - 1) / p.windowUs)
    if j >= index then current = sc elseif j == index - 1 then previous = sc end
  end
  return current, previous
end

local function swc_value(p, index, current, previous)
  return int(index) .. ':' .. int(p.windowUs / 1000) .. ':' .. int(current) .. ':' .. int(previous)
end

-- Kept while it weighs: the current count until the end of the next window, the previous count
-- until the end of this one.
local function swc_write(p, index, elapsed, current, previous)
  if current > 0 then
    write(p.key, swc_value(p, index, current, previous), px(2 * p.windowUs - elapsed))
  elseif previous > 0 then
    write(p.key, swc_value(p, index, current, previous), px(p.windowUs - elapsed))
  else
    write(p.key, false, DELETE)
  end
end

algorithms['sliding-window-counter'] = {
  capacity = 'limit',
  check = function(p)
    local index = floor(p.now / p.windowUs)
    local current, previous, moved = 0, 0, false
    local si, sw, sc, sp = swc_stored(p)
    if si then
      current, previous = swc_place(p, index, si, sw, sc, sp)
      moved = sw ~= p.windowUs
    end
    local elapsed = p.now - index * p.windowUs
    local used = previous * (p.windowUs - elapsed) / p.windowUs + current
    local st = {
      index = index, current = current, previous = previous, elapsed = elapsed, moved = moved,
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
    swc_write(p, st.index, st.elapsed, st.current + p.cost, st.previous)
  end,
  move = function(p, st)
    swc_write(p, st.index, st.elapsed, st.current, st.previous)
  end,
  refund = function(p)
    local si, sw, sc, sp = swc_stored(p)
    if not si then return end
    local index = floor(p.now / p.windowUs)
    local current, previous = swc_place(p, index, si, sw, sc, sp)
    -- Given back to the window that was charged (by the stored length): the stored current or
    -- previous one; nothing when that count is no longer in force.
    local charged = floor(p.charged / sw)
    if charged == si and sc > 0 then sc = max(0, sc - p.cost)
    elseif charged == si - 1 and sp > 0 then sp = max(0, sp - p.cost)
    else return end
    local currentAfter, previousAfter = swc_place(p, index, si, sw, sc, sp)
    if currentAfter == current and previousAfter == previous then return end
    if sw == p.windowUs then
      write(p.key, swc_value(p, index, currentAfter, previousAfter), KEEP_TTL)
    else
      swc_write(p, index, p.now - index * p.windowUs, currentAfter, previousAfter)
    end
  end,
}
