-- token-bucket: holds up to `burst` tokens, refilled continuously at `limit` per window; a
-- request takes `cost` tokens.
--
-- Defines  algorithms['token-bucket']: capacity 'burst'; check, commit, refund
-- Reads    p.key, p.now, p.windowUs, p.limit, p.burst, p.cost
-- st       tokens (refilled to now, before this request) and the common fields
-- State    a string key: "<tokens>:<lastRefillUs>" (tokens a float), kept until the bucket is
--          full again: a full bucket and a missing key mean the same thing
-- Uses     read, write, split2, num, int, px, floor, max, min, DELETE
local function tb_tokens(p)
  local raw = read(p.key)
  if not raw then return p.burst end
  local tokens, last = split2(raw)
  -- Clamping to `burst` also applies a capacity lowered at runtime to the tokens kept.
  return min(p.burst, tokens + max(0, p.now - last) * p.limit / p.windowUs)
end

local function tb_store(p, tokens)
  if tokens >= p.burst then write(p.key, false, DELETE) return end
  local untilFullUs = (p.burst - tokens) * p.windowUs / p.limit
  write(p.key, num(tokens) .. ':' .. int(p.now), px(untilFullUs))
end

algorithms['token-bucket'] = {
  capacity = 'burst',
  check = function(p)
    local tokens = tb_tokens(p)
    local st = { tokens = tokens, allowed = false, remaining = 0, retryAfterUs = 0, resetUs = 0, reason = 0 }
    if p.cost > tokens then
      st.allowed, st.remaining = false, floor(tokens)
      st.retryAfterUs = (p.cost - tokens) * p.windowUs / p.limit
      st.resetUs = (p.burst - tokens) * p.windowUs / p.limit
    else
      st.allowed, st.remaining, st.retryAfterUs = true, max(0, floor(tokens - p.cost)), 0
      st.resetUs = (p.burst - (tokens - p.cost)) * p.windowUs / p.limit
    end
    return st
  end,
  commit = function(p, st) tb_store(p, st.tokens - p.cost) end,
  refund = function(p) tb_store(p, min(p.burst, tb_tokens(p) + p.cost)) end,
}
