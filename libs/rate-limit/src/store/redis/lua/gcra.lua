-- gcra: the generic cell rate algorithm. One value, the theoretical arrival time (TAT) of the
-- next request; each unit of cost moves it one emission interval (window / limit) ahead, and a
-- request is admitted while the TAT stays within `burst` intervals of now. Kept until the TAT.
local function gcra_tat(p)
  local stored = tonumber(read(p.key))
  if stored and stored > p.now then return stored end
  return p.now
end

algorithms['gcra'] = {
  check = function(p)
    local interval = p.windowUs / p.limit
    local tat = gcra_tat(p)
    local newTat = tat + p.cost * interval
    local allowAt = newTat - p.burst * interval
    local st = { newTat = newTat, allowed = false, remaining = 0, retryAfterUs = 0, resetUs = 0, reason = 0 }
    if p.now < allowAt then
      st.allowed = false
      st.remaining = max(0, floor(p.burst - (tat - p.now) / interval))
      st.retryAfterUs, st.resetUs = allowAt - p.now, tat - p.now
    else
      st.allowed = true
      st.remaining = max(0, floor(p.burst - (newTat - p.now) / interval))
      st.retryAfterUs, st.resetUs = 0, newTat - p.now
    end
    return st
  end,
  commit = function(p, st)
    write(p.key, num(st.newTat), px(st.newTat - p.now))
  end,
  refund = function(p)
    local tat = max(p.now, gcra_tat(p) - p.cost * p.windowUs / p.limit)
    if tat <= p.now then write(p.key, false, DELETE) return end
    write(p.key, num(tat), px(tat - p.now))
  end,
}
