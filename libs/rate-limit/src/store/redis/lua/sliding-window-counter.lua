-- sliding-window-counter: the previous window's count, weighted by how much of it still overlaps
-- the sliding window, plus the current window's count. O(1) memory; an approximation that
-- assumes the previous window's requests were evenly spread.
--
-- Defines  algorithms['sliding-window-counter']: check, commit, move, refund; capacity `limit`
-- check    x1 = current, x2 = previous (the counts placed in now's window and the one before),
--          x3 = moved
-- State    a string key: "<windowIndex>:<windowMs>:<current>:<previous>", the window the counts
--          were written in and its length; kept until the end of the next window (the end of
--          this one when only the previous count is left). Any other value reads as no counts.
-- Uses     read, write, px, format, match, tonumber, floor, KEEP_TTL, DELETE
--
-- Counts are placed by time, so that they survive a runtime change of `window`: each count still
-- in force (the current one until the end of the next window, the previous one until the end of
-- the current window) goes to the window of the current length that contains the end of the
-- window it was counted in, or to the one containing now while its window runs; a count that
-- lands before the previous window is gone. With the length unchanged that is the ordinary
-- rollover. After a change, the next request writes the counts in their new windows and moves
-- the expiry, even when that request is rejected (move).

-- The stored window index, its length (us) and its two counts; nothing when there is no state.
local function swc_stored(key)
  local raw = read(key)
  if not raw then return end
  local si, sw, sc, sp = match(raw, '^([^:]+):([^:]+):([^:]+):([^:]+)$')
  si, sw, sc, sp = tonumber(si), tonumber(sw), tonumber(sc), tonumber(sp)
  if si and sw and sc and sp then return si, sw * 1000, sc, sp end
end

-- The stored counts placed in the windows of the current length: current, previous.
local function swc_place(now, windowUs, index, si, sw, sc, sp)
  local endUs, current, previous = (si + 1) * sw, 0, 0
  if endUs > now then
    -- Its window runs: its count is now's; the previous count's window ended where it started.
    current = sc
    local j = floor((endUs - sw - 1) / windowUs)
    if j >= index then current = current + sp elseif j == index - 1 then previous = sp end
  elseif endUs + sw > now then
    local j = floor((endUs - 1) / windowUs)
    if j >= index then current = sc elseif j == index - 1 then previous = sc end
  end
  return current, previous
end

-- Kept while it weighs: the current count until the end of the next window, the previous count
-- until the end of this one.
local function swc_write(key, now, windowUs, current, previous)
  local index = floor(now / windowUs)
  local elapsed = now - index * windowUs
  if current > 0 then
    write(key, format('%d:%d:%d:%d', index, windowUs / 1000, current, previous), px(2 * windowUs - elapsed))
  elseif previous > 0 then
    write(key, format('%d:%d:%d:%d', index, windowUs / 1000, current, previous), px(windowUs - elapsed))
  else
    write(key, false, DELETE)
  end
end

local function swc_check(key, now, limit, windowUs, burst, cost)
  local index = floor(now / windowUs)
  local current, previous, moved = 0, 0, false
  local si, sw, sc, sp = swc_stored(key)
  if si then
    current, previous = swc_place(now, windowUs, index, si, sw, sc, sp)
    moved = sw ~= windowUs
  end
  local elapsed = now - index * windowUs
  local used = previous * (windowUs - elapsed) / windowUs + current
  local allowed, remaining, retryUs, resetUs = true, 0, 0, 0
  if used + cost > limit then
    allowed, remaining = false, floor(limit - used)
    if remaining < 0 then remaining = 0 end
    if current + cost <= limit then
      -- Only the previous window's weight is in the way; it shrinks linearly.
      retryUs = (windowUs - elapsed) - (limit - current - cost) * windowUs / previous
    else
      -- Wait for the next window, where this window's count becomes the weighted one.
      local inNext = windowUs - (limit - cost) * windowUs / current
      if inNext < 0 then inNext = 0 end
      retryUs = (windowUs - elapsed) + inNext
    end
    if retryUs < 0 then retryUs = 0 end
  else
    remaining = floor(limit - used - cost)
    if remaining < 0 then remaining = 0 end
  end
  if current > 0 or (allowed and cost > 0) then resetUs = 2 * windowUs - elapsed
  elseif previous > 0 then resetUs = windowUs - elapsed end
  return allowed, remaining, resetUs, retryUs, current, previous, moved
end

local function swc_commit(key, now, limit, windowUs, burst, cost, current, previous)
  swc_write(key, now, windowUs, current + cost, previous)
end

local function swc_move(key, now, limit, windowUs, burst, cost, current, previous)
  swc_write(key, now, windowUs, current, previous)
end

local function swc_refund(key, now, limit, windowUs, burst, cost, charged)
  local si, sw, sc, sp = swc_stored(key)
  if not si then return end
  local index = floor(now / windowUs)
  local current, previous = swc_place(now, windowUs, index, si, sw, sc, sp)
  -- Given back to the window that was charged (by the stored length): the stored current or
  -- previous one; nothing when that count is no longer in force.
  local chargedIndex = floor(charged / sw)
  if chargedIndex == si and sc > 0 then
    sc = sc - cost
    if sc < 0 then sc = 0 end
  elseif chargedIndex == si - 1 and sp > 0 then
    sp = sp - cost
    if sp < 0 then sp = 0 end
  else
    return
  end
  local currentAfter, previousAfter = swc_place(now, windowUs, index, si, sw, sc, sp)
  if currentAfter == current and previousAfter == previous then return end
  if sw == windowUs then
    write(key, format('%d:%d:%d:%d', index, windowUs / 1000, currentAfter, previousAfter), KEEP_TTL)
  else
    swc_write(key, now, windowUs, currentAfter, previousAfter)
  end
end

algorithms['sliding-window-counter'] = { swc_check, swc_commit, swc_move, swc_refund, false }
