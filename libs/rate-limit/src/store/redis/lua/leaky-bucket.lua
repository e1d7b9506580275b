-- leaky-bucket (as a meter): each request pours `cost` into a bucket of capacity `burst` that
-- leaks `limit` per window; a request that would overflow it is rejected. Unlike the token
-- bucket, a capacity lowered at runtime does not spill the level: the client waits until it has
-- leaked below.
--
-- Defines  algorithms['leaky-bucket']: capacity 'burst'; check, commit, refund
-- Reads    p.key, p.now, p.windowUs, p.limit, p.burst, p.cost
-- st       level (leaked to now, before this request) and the common fields
-- State    a string key: "<level>:<lastLeakUs>" (level a float), kept until the bucket has
--          drained: an empty bucket and a missing key mean the same thing
-- Uses     read, write, split2, num, int, px, floor, max, DELETE
local function lb_level(p)
  local raw = read(p.key)
  if not raw then return 0 end
  local level, last = split2(raw)
  return max(0, level - max(0, p.now - last) * p.limit / p.windowUs)
end

local function lb_store(p, level)
  if level <= 0 then write(p.key, false, DELETE) return end
  write(p.key, num(level) .. ':' .. int(p.now), px(level * p.windowUs / p.limit))
end

algorithms['leaky-bucket'] = {
  capacity = 'burst',
  check = function(p)
    local level = lb_level(p)
    local st = { level = level, allowed = false, remaining = 0, retryAfterUs = 0, resetUs = 0, reason = 0 }
    if level + p.cost > p.burst then
      st.allowed, st.remaining = false, max(0, floor(p.burst - level))
      st.retryAfterUs = (level + p.cost - p.burst) * p.windowUs / p.limit
      st.resetUs = level * p.windowUs / p.limit
    else
      st.allowed, st.remaining, st.retryAfterUs = true, max(0, floor(p.burst - level - p.cost)), 0
      st.resetUs = (level + p.cost) * p.windowUs / p.limit
    end
    return st
  end,
  commit = function(p, st) lb_store(p, st.level + p.cost) end,
  refund = function(p) lb_store(p, lb_level(p) - p.cost) end,
}
