-- fixed-window: at most `limit` per window; windows are aligned to multiples of the window
-- length since the Unix epoch.
--
-- Defines  algorithms['fixed-window']: check, commit, move, refund; capacity `limit`
-- check    x1 = count (in force in now's window), x2 = endUs (now's window's end), x3 = moved,
--          x4 = the form the count was read in (FW_EXPIRY, FW_PACKED_FORM, or false: none)
-- State    a string key that expires at the end of the window its count belongs to, in one of
--          two forms, both read:
--          - the expiry form, written when the call may (`expiry_form`: Redis TIME, each key
--            once; the usual call): the count alone, an integer, whose window end is the key's
--            expiry (PXAT, read back with PEXPIRETIME). A count below 10,000 is one of Redis's
--            shared integers: a client costs Redis its key and expiry, nothing for the value.
--          - the packed form otherwise (a test clock's times are not Redis's; a call that caches
--            a key decides it more than once): "-<endMs><count in 6 digits>", one integer (16 B),
--            or "-<endMs>:<count>" from a count of 1,000,000 up.
--          Any other value, or a count whose key has no expiry, reads as no count.
-- Uses     read, write, add, expiry_form, uncached, call, px, byte, format, match, sub,
--          tonumber, AT, KEEP_TTL
--
-- The end, not the window index, is kept because it holds without knowing the length: a count
-- whose window has not ended is still in force, also after a runtime change of `window`. Such a
-- count moves to the window of the new length that contains now, expiry included, on the next
-- request even when that request is rejected (move): a longer window keeps an exhausted client
-- rejected, a shorter one frees it when the new window ends. A count whose window ended is gone.
-- A charge in the same window is one INCRBY (the packed integer is negated: INCRBY -cost), which
-- keeps the key's expiry and costs far less than a SET with one.
local FW_PACKED = 1000000 -- counts below this fit the 6 digits of the packed form
local FW_EXPIRY, FW_PACKED_FORM = 1, 2

local function fw_check(key, now, limit, windowUs, burst, cost)
  local endUs = now - now % windowUs + windowUs
  local count, moved, form = 0, false, false
  local raw = read(key)
  if raw then
    local storedEndMs
    -- 45: '-', the packed form. Its 6-digit kind is read first; in the other, ':' makes the end
    -- unreadable.
    if byte(raw, 1) == 45 then
      storedEndMs = tonumber(sub(raw, 2, -7))
      if storedEndMs then
        count = tonumber(sub(raw, -6))
      else
        local e, c = match(raw, '^%-(%d+):(%d+)$')
        storedEndMs, count = tonumber(e), tonumber(c)
      end
      form = FW_PACKED_FORM
    else
      count = tonumber(raw)
      -- Never written in this call: a call that caches keys writes the packed form.
      if count then storedEndMs, form = call('PEXPIRETIME', key), FW_EXPIRY end
    end
    if not (storedEndMs and count and count >= 0) then
      count, form = 0, false
    elseif storedEndMs * 1000 ~= endUs then
      -- Another window's count: in force (and moved here) while that window runs, else gone.
      if storedEndMs * 1000 > now then moved = true else count, form = 0, false end
    end
  end
  local resetUs = endUs - now
  if count + cost > limit then
    local remaining = limit - count
    if remaining < 0 then remaining = 0 end
    return false, remaining, resetUs, resetUs, count, endUs, moved, form
  end
  return true, limit - count - cost, resetUs, 0, count, endUs, moved, form
end

-- Writes `count` for the window ending at endUs; `same`: the key already has that window's end.
local function fw_store(key, now, endUs, count, same)
  if expiry_form then
    write(key, count, AT, endUs / 1000)
  elseif count < FW_PACKED then
    write(key, format('-%d%06d', endUs / 1000, count), same and KEEP_TTL or px(endUs - now))
  else
    write(key, format('-%d:%d', endUs / 1000, count), same and KEEP_TTL or px(endUs - now))
  end
end

-- A count of now's window (above 0, so the key exists with this window's end) is added to with
-- INCRBY where the form allows; otherwise the count is written whole.
local function fw_commit(key, now, limit, windowUs, burst, cost, count, endUs, moved, form)
  local same = count > 0 and not moved
  if same and uncached then
    if form == FW_EXPIRY then
      if add(key, cost) then return end
    elseif not expiry_form and count + cost < FW_PACKED then
      if add(key, -cost) then return end
    end
  end
  fw_store(key, now, endUs, count + cost, same)
end

-- A count moved from another window (see the header), charged nothing.
local function fw_move(key, now, limit, windowUs, burst, cost, count, endUs)
  fw_store(key, now, endUs, count, false)
end

local function fw_refund(key, now, limit, windowUs, burst, cost, charged)
  local _, _, _, _, count, endUs, moved = fw_check(key, now, limit, windowUs, burst, 0)
  -- The charged window has ended since: nothing of it is left to give back.
  if charged - charged % windowUs + windowUs ~= endUs or count == 0 then return end
  local left = count - cost
  if left < 0 then left = 0 end
  fw_store(key, now, endUs, left, not moved)
end

algorithms['fixed-window'] = { fw_check, fw_commit, fw_move, fw_refund, false }
