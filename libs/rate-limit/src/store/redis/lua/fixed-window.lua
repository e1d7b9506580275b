-- fixed-window: at most `limit` per window; windows are aligned to multiples of the window
-- length since the Unix epoch.
--
-- Defines  algorithms['fixed-window']: check, commit, move, refund; capacity `limit`
-- check    x1 = count (in force in now's window), x2 = endUs (now's window's end), x3 = moved
-- State    a string key: "-<endMs><count in 6 digits>", the end of the window the count belongs
--          to (ms) and the count, which Redis keeps as an integer in 16 B instead of a 32 B
--          string; "-<endMs>:<count>" from a count of 1,000,000 up. It expires at that end. Any
--          other value reads as no count.
-- Uses     read, write, add, uncached, px, byte, format, match, sub, tonumber, KEEP_TTL
--
-- The end, not the window index, is kept because it holds without knowing the length: a count
-- whose window has not ended is still in force, also after a runtime change of `window`. Such a
-- count moves to the window of the new length that contains now, expiry included, on the next
-- request even when that request is rejected (move): a longer window keeps an exhausted client
-- rejected, a shorter one frees it when the new window ends. A count whose window ended is gone.
--
-- The integer form is the negated end * 10^6 + count, so a charge in the same window is
-- INCRBY -cost, which keeps the key's expiry and costs far less than a SET with one. It is
-- parsed as text: the whole is beyond a double's 2^53.
local FW_PACKED = 1000000 -- counts below this fit the 6 digits of the integer form

local function fw_check(key, now, limit, windowUs, burst, cost)
  local endUs = now - now % windowUs + windowUs
  local count, moved = 0, false
  local raw = read(key)
  -- 45: '-'. The 6-digit form is read first; in the other one, ':' makes the end unreadable.
  if raw and byte(raw, 1) == 45 then
    local storedEndMs = tonumber(sub(raw, 2, -7))
    if storedEndMs then
      count = tonumber(sub(raw, -6))
    else
      local e, c = match(raw, '^%-(%d+):(%d+)$')
      storedEndMs, count = tonumber(e), tonumber(c) or 0
    end
    if storedEndMs and storedEndMs * 1000 ~= endUs then
      -- Another window's count: in force (and moved here) while that window runs, else gone.
      if storedEndMs * 1000 > now then moved = true else count = 0 end
    elseif not storedEndMs then
      count = 0
    end
  end
  local resetUs = endUs - now
  if count + cost > limit then
    local remaining = limit - count
    if remaining < 0 then remaining = 0 end
    return false, remaining, resetUs, resetUs, count, endUs, moved
  end
  return true, limit - count - cost, resetUs, 0, count, endUs, moved
end

-- ttl: false for the window's remaining time, or KEEP_TTL (the key has this window's end).
local function fw_write(key, now, endUs, count, ttl)
  if count < FW_PACKED then
    write(key, format('-%d%06d', endUs / 1000, count), ttl or px(endUs - now))
  else
    write(key, format('-%d:%d', endUs / 1000, count), ttl or px(endUs - now))
  end
end

-- A count of now's window (above 0, so the key exists with this window's end) keeps its expiry:
-- INCRBY while it stays in the integer form (see the header).
local function fw_commit(key, now, limit, windowUs, burst, cost, count, endUs, moved)
  if count > 0 and not moved then
    if uncached and count + cost < FW_PACKED and add(key, -cost) then return end
    fw_write(key, now, endUs, count + cost, KEEP_TTL)
  else
    fw_write(key, now, endUs, count + cost)
  end
end

-- A count moved from another window (see the header), charged nothing.
local function fw_move(key, now, limit, windowUs, burst, cost, count, endUs)
  fw_write(key, now, endUs, count)
end

local function fw_refund(key, now, limit, windowUs, burst, cost, charged)
  local _, _, _, _, count, endUs = fw_check(key, now, limit, windowUs, burst, 0)
  -- The charged window has ended since: nothing of it is left to give back.
  if charged - charged % windowUs + windowUs ~= endUs or count == 0 then return end
  local left = count - cost
  if left < 0 then left = 0 end
  fw_write(key, now, endUs, left)
end

algorithms['fixed-window'] = { fw_check, fw_commit, fw_move, fw_refund, false }
