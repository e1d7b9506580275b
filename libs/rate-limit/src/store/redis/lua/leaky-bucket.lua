-- leaky-bucket (as a meter): each request pours `cost` into a bucket of capacity `burst` that
-- leaks `limit` per window; a request that would overflow it is rejected. Unlike the token
-- bucket, a capacity lowered at runtime does not spill the level: the client waits until it has
-- leaked below.
--
-- Defines  algorithms['leaky-bucket']: check, commit, refund; capacity `burst`
-- check    x1 = level (leaked to now, before this request)
-- State    a string key: "<level>:<lastLeakUs>" (level a float), kept until the bucket has
--          drained: an empty bucket and a missing key mean the same thing
-- Uses     read, write, split2, px, format, floor, DELETE
local function lb_level(key, now, limit, windowUs)
  local raw = read(key)
  if not raw then return 0 end
  local level, last = split2(raw)
  if not last then return 0 end
  local elapsed = now - last
  if elapsed > 0 then level = level - elapsed * limit / windowUs end
  if level > 0 then return level end
  return 0
end

local function lb_store(key, now, limit, windowUs, level)
  if level <= 0 then write(key, false, DELETE) return end
  write(key, format('%.17g:%d', level, now), px(level * windowUs / limit))
end

local function lb_check(key, now, limit, windowUs, burst, cost)
  local level = lb_level(key, now, limit, windowUs)
  if level + cost > burst then
    local remaining = floor(burst - level)
    if remaining < 0 then remaining = 0 end
    return false, remaining, level * windowUs / limit,
      (level + cost - burst) * windowUs / limit, level
  end
  local remaining = floor(burst - level - cost)
  if remaining < 0 then remaining = 0 end
  return true, remaining, (level + cost) * windowUs / limit, 0, level
end

local function lb_commit(key, now, limit, windowUs, burst, cost, level)
  lb_store(key, now, limit, windowUs, level + cost)
end

local function lb_refund(key, now, limit, windowUs, burst, cost)
  lb_store(key, now, limit, windowUs, lb_level(key, now, limit, windowUs) - cost)
end

algorithms['leaky-bucket'] = { lb_check, lb_commit, false, lb_refund, true }
