-- fixed-window: at most `limit` per window; windows are aligned to multiples of the window
-- length since the Unix epoch. State: one integer, (windowIndex mod 2^23) * 2^30 + count,
-- expiring at the window's end. An integer is kept by Redis in 16 B instead of a 32 B string.
-- The window index is stored with the count so that an explicit `now` (tests) and a key read in
-- the last microsecond of its window can never be mistaken for the next window's count; mod 2^23
-- keeps the value below 2^53 (exact in a double), and a key never lives 2^23 windows.
local FW_COUNTS = 1073741824 -- 2^30, above the largest limit (1e9)
local FW_WINDOWS = 8388608 -- 2^23

local function fw_write(p, st, count)
  -- PX every time (not KEEPTTL): a window changed at runtime may keep the same index.
  write(p.key, int((st.index % FW_WINDOWS) * FW_COUNTS + count), px(st.resetUs))
end

algorithms['fixed-window'] = {
  check = function(p)
    local index = floor(p.now / p.windowUs)
    local count = 0
    local raw = read(p.key)
    if raw then
      local stored = tonumber(raw)
      if stored then
        if floor(stored / FW_COUNTS) == index % FW_WINDOWS then count = stored % FW_COUNTS end
      else
        -- "<windowIndex>:<count>", as written before the integer form.
        local storedIndex, storedCount = split2(raw)
        if storedIndex == index then count = storedCount end
      end
    end
    local st = {
      index = index, count = count, resetUs = (index + 1) * p.windowUs - p.now,
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
  refund = function(p)
    local st = algorithms['fixed-window'].check(p)
    -- The charged window has ended since: nothing of it is left to give back.
    if floor(p.charged / p.windowUs) ~= st.index or st.count == 0 then return end
    fw_write(p, st, max(0, st.count - p.cost))
  end,
}
