-- gcra: the generic cell rate algorithm. One value, the theoretical arrival time (TAT) of the
-- next request; each unit of cost moves it one emission interval (window / limit) ahead, and a
-- request is admitted while the TAT stays within `burst` intervals of now.
--
-- Defines  algorithms['gcra']: check, commit, refund; capacity `burst`
-- check    x1 = newAhead (how far the TAT is ahead of now once this request is charged, us)
-- State    a string key: the TAT as "<whole us>:<fraction in 2^-32 us>", or "<whole us>" alone
--          when there is no fraction; from 2^53 us on, one number (%.17g). Kept until the TAT.
-- Uses     read, write, split2, px, format, tonumber, floor, min, DELETE
--
-- Why whole and fraction apart: "<whole us>" (an interval of whole microseconds, the usual case)
-- is kept by Redis as an integer, in 16 B instead of a 40 B string; and a TAT of about 1.7e15 us
-- in a single double has steps of 0.25 us, so an interval such as 2 s / 3 would be rounded at
-- every request (a third request of a burst of 3 refused) and one below 0.125 us lost altogether
-- (no limit). Decisions work on how far the TAT is ahead of now, a small number.
local GCRA_FRACTION = 4294967296 -- 2^32
local GCRA_EXACT = 9007199254740992 -- 2^53: a larger TAT has no fraction to keep

-- How far ahead of now the stored TAT is, in us (0 when it has passed or there is none).
local function gcra_ahead(key, now)
  local raw = read(key)
  if not raw then return 0 end
  -- One number: whole microseconds, or a TAT past 2^53 us.
  local ahead = tonumber(raw)
  if ahead then
    ahead = ahead - now
  else
    local whole, fraction = split2(raw)
    if not fraction then return 0 end
    ahead = (whole - now) + fraction / GCRA_FRACTION
  end
  if ahead > 0 then return ahead end
  return 0
end

local function gcra_write(key, now, ahead)
  if now + ahead >= GCRA_EXACT then
    write(key, now + ahead, px(ahead))
    return
  end
  local whole = floor(ahead)
  local fraction = floor((ahead - whole) * GCRA_FRACTION + 0.5)
  if fraction == GCRA_FRACTION then whole, fraction = whole + 1, 0 end
  if fraction == 0 then
    write(key, now + whole, px(ahead))
  else
    write(key, format('%d:%d', now + whole, fraction), px(ahead))
  end
end

-- Sums of intervals that are equal in exact arithmetic may differ in their last bits: a request
-- within this tolerance (about 1e-6 us, far below the clock's 1 us; never above a thousandth of
-- an interval, which can be as short as 1e-6 us) of its time is on time.
local function gcra_check(key, now, limit, windowUs, burst, cost)
  local interval = windowUs / limit
  local ahead = gcra_ahead(key, now)
  local newAhead = ahead + cost * interval
  local capacity = burst * interval
  local tolerance = min(1e-6 + capacity * 1e-12, interval * 1e-3)
  if newAhead - capacity > tolerance then
    local remaining = floor(burst - (ahead - tolerance) / interval)
    if remaining < 0 then remaining = 0 end
    return false, remaining, ahead, newAhead - capacity, newAhead
  end
  local remaining = floor(burst - (newAhead - tolerance) / interval)
  if remaining < 0 then remaining = 0 end
  return true, remaining, newAhead, 0, newAhead
end

local function gcra_commit(key, now, limit, windowUs, burst, cost, newAhead)
  gcra_write(key, now, newAhead)
end

local function gcra_refund(key, now, limit, windowUs, burst, cost)
  local ahead = gcra_ahead(key, now) - cost * windowUs / limit
  if ahead <= 0 then write(key, false, DELETE) return end
  gcra_write(key, now, ahead)
end

algorithms['gcra'] = { gcra_check, gcra_commit, false, gcra_refund, true }
