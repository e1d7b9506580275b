-- gcra: the generic cell rate algorithm. One value, the theoretical arrival time (TAT) of the
-- next request; each unit of cost moves it one emission interval (window / limit) ahead, and a
-- request is admitted while the TAT stays within `burst` intervals of now.
--
-- Defines  algorithms['gcra']: check, commit, refund; capacity `burst`
-- check    x1 = newAhead (how far the TAT is ahead of now once this request is charged, us)
-- State    a string key kept until the TAT, in one of two forms, both read:
--          - the expiry form, written when the call may (`expiry_form`: Redis TIME, each key
--            once; the usual call): the key expires at the TAT rounded up to the ms (PXAT, read
--            back with PEXPIRETIME) and holds how far before that the TAT is: "<d>", whole us
--            from 0 to 999 (one of Redis's shared integers: a client costs its key and expiry
--            alone), or "<d>:<f>" when the TAT is d - f / 2^32 us before it (d from 1
--            to 1000: a TAT just past a whole ms is 1000 - f / 2^32 us before the next).
--          - the absolute form otherwise (a test clock's times are not Redis's): the TAT as
--            "<whole us>:<fraction in 2^-32 us>", or "<whole us>" alone (an integer, 16 B);
--            always above 1,000 (any clock past the epoch's first ms), which tells the
--            forms apart.
--          A TAT past 2^53 us or further ahead than MAX_MS is held in the absolute form as one
--          number (%.17g), its expiry capped at MAX_MS. Any other value reads as no TAT.
-- Uses     read, write, expiry_form, call, split2, px, format, tonumber, floor, min, AT, DELETE,
--          MAX_MS
--
-- Why the fraction apart: a TAT of about 1.7e15 us in a single double has steps of 0.25 us, so
-- an interval such as 2 s / 3 would be rounded at every request (a third request of a burst of 3
-- refused) and one below 0.125 us lost altogether (no limit). Decisions work on how far the TAT
-- is ahead of now, a small number, and every form gives it with one rounding, as the memory
-- store computes it.
local GCRA_FRACTION = 4294967296 -- 2^32
local GCRA_EXACT = 9007199254740992 -- 2^53: a larger TAT has no fraction to keep
local GCRA_EXPIRY_BELOW = 1000 -- values below this are the expiry form's offsets

-- How far ahead of now the stored TAT is, in us (0 when it has passed or there is none).
local function gcra_ahead(key, now)
  local raw = read(key)
  if not raw then return 0 end
  local ahead
  local whole = tonumber(raw)
  if whole then
    if whole < GCRA_EXPIRY_BELOW then
      ahead = (call('PEXPIRETIME', key) * 1000 - now) - whole
    else
      ahead = whole - now
    end
  else
    local fraction
    whole, fraction = split2(raw)
    if not fraction then return 0 end
    if whole <= GCRA_EXPIRY_BELOW then
      -- whole - fraction / 2^32 is exact (at most 42 significant bits): one rounding, below.
      ahead = (call('PEXPIRETIME', key) * 1000 - now) - (whole - fraction / GCRA_FRACTION)
    else
      ahead = (whole - now) + fraction / GCRA_FRACTION
    end
  end
  if ahead > 0 then return ahead end
  return 0
end

local function gcra_write(key, now, ahead)
  if now + ahead >= GCRA_EXACT or ahead >= MAX_MS * 1000 then
    write(key, now + ahead, px(ahead))
    return
  end
  local whole = floor(ahead)
  local fraction = floor((ahead - whole) * GCRA_FRACTION + 0.5)
  if fraction == GCRA_FRACTION then whole, fraction = whole + 1, 0 end
  local tat = now + whole
  if expiry_form then
    -- The TAT rounded up to the ms, and how far before that it is.
    local atMs = (tat - tat % 1000) / 1000
    if fraction > 0 or tat % 1000 > 0 then atMs = atMs + 1 end
    local d = atMs * 1000 - tat
    if fraction == 0 then
      write(key, d, AT, atMs)
    else
      write(key, format('%d:%d', d, fraction), AT, atMs)
    end
  elseif fraction == 0 then
    write(key, tat, px(ahead))
  else
    write(key, format('%d:%d', tat, fraction), px(ahead))
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
