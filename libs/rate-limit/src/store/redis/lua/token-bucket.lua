-- token-bucket: holds up to `burst` tokens, refilled continuously at `limit` per window; a
-- request takes `cost` tokens.
--
-- Defines  algorithms['token-bucket']: check, commit, refund; capacity `burst`
-- check    x1 = tokens (refilled to now, before this request)
-- State    a string key: "<tokens>:<lastRefillUs>" (tokens a float), kept until the bucket is
--          full again: a full bucket and a missing key mean the same thing. Both numbers are kept,
--          not only when the bucket is full again, so that a runtime change of the thresholds
--          keeps the tokens (clamped to the new capacity).
-- Uses     read, write, split2, px, format, floor, DELETE
local function tb_tokens(key, now, limit, windowUs, burst)
  local raw = read(key)
  if not raw then return burst end
  local tokens, last = split2(raw)
  if not last then return burst end
  local elapsed = now - last
  if elapsed > 0 then tokens = tokens + elapsed * limit / windowUs end
  -- Clamping to `burst` also applies a capacity lowered at runtime to the tokens kept.
  if tokens > burst then return burst end
  return tokens
end

-- A bucket at or over its capacity (a refund included) is full: its key goes.
local function tb_store(key, now, limit, windowUs, burst, tokens)
  if tokens >= burst then write(key, false, DELETE) return end
  write(key, format('%.17g:%d', tokens, now), px((burst - tokens) * windowUs / limit))
end

local function tb_check(key, now, limit, windowUs, burst, cost)
  local tokens = tb_tokens(key, now, limit, windowUs, burst)
  if cost > tokens then
    return false, floor(tokens), (burst - tokens) * windowUs / limit,
      (cost - tokens) * windowUs / limit, tokens
  end
  local remaining = floor(tokens - cost)
  if remaining < 0 then remaining = 0 end
  return true, remaining, (burst - (tokens - cost)) * windowUs / limit, 0, tokens
end

local function tb_commit(key, now, limit, windowUs, burst, cost, tokens)
  tb_store(key, now, limit, windowUs, burst, tokens - cost)
end

local function tb_refund(key, now, limit, windowUs, burst, cost)
  tb_store(key, now, limit, windowUs, burst, tb_tokens(key, now, limit, windowUs, burst) + cost)
end

algorithms['token-bucket'] = { tb_check, tb_commit, false, tb_refund, true }
