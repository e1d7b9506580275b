-- gcra: the generic cell rate algorithm. One value, the theoretical arrival time (TAT) of the
-- next request; each unit of cost moves it one emission interval (window / limit) ahead, and a
-- request is admitted while the TAT stays within `burst` intervals of now.
--
-- Defines  algorithms['gcra']: capacity 'burst'; check, commit, refund
-- Reads    p.key, p.now, p.windowUs, p.limit, p.burst, p.cost
-- st       newAhead (how far the TAT is ahead of now once this request is charged, us) and the
--          common fields
-- State    a string key: the TAT as "<whole us>:<fraction in 2^-32 us>", or "<whole us>" alone
--          when there is no fraction; from 2^53 us on, one number (%.17g). Kept until the TAT.
-- Uses     read, write, split2, num, int, px, tonumber, floor, max, min, DELETE
--
-- Why whole and fraction apart: "<whole us>" (an interval of whole microseconds, the usual case)
-- is kept by Redis as an integer, in 16 B instead of a 40 B string; and a TAT of about 1.7e15 us
-- in a single double has steps of 0.25 us, so an interval such as 2 s / 3 would be rounded at
-- every request (a third request of a burst of 3 refused) and one below 0.125 us lost altogether
-- (no limit). Decisions work on how far the TAT is ahead of now, a small number.
local GCRA_FRACTION = 4294967296 -- 2^32
local GCRA_EXACT = 9007199254740992 -- 2^53: %d of a larger TAT would overflow, and it has no fraction

-- How far ahead of now the stored TAT is, in us (0 when it has passed or there is none).
local function gcra_ahead(p)
  local raw = read(p.key)
  if not raw then return 0 end
  local whole, fraction = split2(raw)
  if whole and fraction then return max(0, (whole - p.now) + fraction / GCRA_FRACTION) end
  -- One number: whole microseconds, or a TAT past 2^53 us.
  local tat = tonumber(raw)
  return tat and max(0, tat - p.now) or 0
end

local function gcra_write(p, ahead)
  if p.now + ahead >= GCRA_EXACT then
    write(p.key, num(p.now + ahead), px(ahead))
    return
  end
  local whole = floor(ahead)
  local fraction = floor((ahead - whole) * GCRA_FRACTION + 0.5)
  if fraction == GCRA_FRACTION then whole, fraction = whole + 1, 0 end
  local value = fraction == 0 and int(p.now + whole) or int(p.now + whole) .. ':' .. int(fraction)
  write(p.key, value, px(ahead))
end

-- Sums of intervals that are equal in exact arithmetic may differ in their last bits: a request
-- within this tolerance (about 1e-6 us, far below the clock's 1 us; never above a thousandth of
-- an interval, which can be as short as 1e-6 us) of its time is on time.
local function gcra_tolerance(capacityUs, interval)
  return min(1e-6 + capacityUs * 1e-12, interval * 1e-3)
end

algorithms['gcra'] = {
  capacity = 'burst',
  check = function(p)
    local interval = p.windowUs / p.limit
    local ahead = gcra_ahead(p)
    local newAhead = ahead + p.cost * interval
    local capacity = p.burst * interval
    local tolerance = gcra_tolerance(capacity, interval)
    local st = { newAhead = newAhead, allowed = false, remaining = 0, retryAfterUs = 0, resetUs = 0, reason = 0 }
    if newAhead - capacity > tolerance then
      st.allowed = false
      st.remaining = max(0, floor(p.burst - (ahead - tolerance) / interval))
      st.retryAfterUs, st.resetUs = newAhead - capacity, ahead
    else
      st.allowed = true
      st.remaining = max(0, floor(p.burst - (newAhead - tolerance) / interval))
      st.retryAfterUs, st.resetUs = 0, newAhead
    end
    return st
  end,
  commit = function(p, st)
    gcra_write(p, st.newAhead)
  end,
  refund = function(p)
    local ahead = gcra_ahead(p) - p.cost * p.windowUs / p.limit
    if ahead <= 0 then write(p.key, false, DELETE) return end
    gcra_write(p, ahead)
  end,
}
