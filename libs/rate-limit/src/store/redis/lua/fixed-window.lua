-- fixed-window: at most `limit` per window; windows are aligned to multiples of the window
-- length since the Unix epoch.
--
-- Defines  algorithms['fixed-window']: capacity 'limit'; check, commit, move, refund
-- Reads    p.key, p.now, p.windowUs, p.limit, p.cost; refund also p.charged
-- st       index (of now's window), endUs (its end), count (in force in it), moved, and the
--          common fields
-- State    a string key: "-<endMs><count in 6 digits>", the end of the window the count belongs
--          to (ms) and the count, which Redis keeps as an integer in 16 B instead of a 32 B
--          string; "-<endMs>:<count>" from a count of 1,000,000 up. It expires at that end. Any
--          other value reads as no count.
-- Uses     read, write, px, byte, format, match, sub, tonumber, floor, max
--
-- The end, not the window index, is kept because it holds without knowing the length: a count
-- whose window has not ended is still in force, also after a runtime change of `window`. Such a
-- count moves to the window of the new length that contains now, expiry included, on the next
-- request even when that request is rejected (move): a longer window keeps an exhausted client
-- rejected, a shorter one frees it when the new window ends. A count whose window ended is gone.
local FW_PACKED = 1000000 -- counts below this fit the 6 digits of the integer form

-- The end (us) of the window the stored count belongs to, and the count; 0, 0 for none.
local function fw_read(p)
  local raw = read(p.key)
  if not raw or byte(raw, 1) ~= 45 then return 0, 0 end -- 45: '-'
  -- The 6-digit form is read first; in the other one, ':' makes the end unreadable.
  local endMs = tonumber(sub(raw, 2, -7))
  if endMs then return endMs * 1000, tonumber(sub(raw, -6)) end
  local e, c = match(raw, '^%-(%d+):(%d+)$')
  if e then return tonumber(e) * 1000, tonumber(c) end
  return 0, 0
end

local function fw_write(p, st, count)
  local endMs = st.endUs / 1000
  if count < FW_PACKED then
    write(p.key, format('-%d%06d', endMs, count), px(st.resetUs))
  else
    write(p.key, format('-%d:%d', endMs, count), px(st.resetUs))
  end
end

algorithms['fixed-window'] = {
  capacity = 'limit',
  check = function(p)
    local index = floor(p.now / p.windowUs)
    local endUs = (index + 1) * p.windowUs
    local storedEndUs, count = fw_read(p)
    local moved = false
    if storedEndUs ~= endUs then
      -- Another window's count: in force (and moved here) while that window runs, else gone.
      if storedEndUs > p.now then moved = true else count = 0 end
    end
    local st = {
      index = index, endUs = endUs, count = count, moved = moved, resetUs = endUs - p.now,
      allowed = false, remaining = 0, retryAfterUs = 0, reason = 0,
    }
    if count + p.cost > p.limit then
      st.allowed, st.remaining, st.retryAfterUs = false, max(0, p.limit - count), st.resetUs
    else
      st.allowed, st.remaining, st.retryAfterUs = true, p.limit - count - p.cost, 0
    end
    return st
  end,
  commit = function(p, st)
    fw_write(p, st, st.count + p.cost)
  end,
  -- A count moved from another window (see the header), charged nothing.
  move = function(p, st)
    fw_write(p, st, st.count)
  end,
  refund = function(p)
    local st = algorithms['fixed-window'].check(p)
    -- The charged window has ended since: nothing of it is left to give back.
    if floor(p.charged / p.windowUs) ~= st.index or st.count == 0 then return end
    fw_write(p, st, max(0, st.count - p.cost))
  end,
}
