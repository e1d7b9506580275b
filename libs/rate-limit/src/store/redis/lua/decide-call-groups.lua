-- The last fragment of a call (see decide-call.lua): reads each group's entries from ARGV and
-- KEYS, decides it (a lone entry with locals alone, through decide_one; any other group checked
-- by check_group, then committed), writes the cached state back and returns the reply
-- (decide.lua's header).
--
-- Uses     op, now, charged, SP, a (decide-call.lua); E, groupExtras, read_override,
--          check_group (decide-call-entries.lua); decide_one, small, the reasons and actions
--          (decide.lua); the prelude's call, pcall_redis, write, px, to_ms, store and cache

local reply, r, k, nargs = { now }, 1, 1, #ARGV
while a <= nargs do
  -- A group of one entry (a lone request, or one client of a batch) is decided with locals
  -- alone, unless its client has an override (then as any other group, below).
  local n, done = 1, false
  if ARGV[a] == '1' and op ~= 'refund' then
    local s, cost = ARGV[a + 1], ARGV[a + 2]
    a = a + 3
    if cost == '1' then cost = 1 else cost = tonumber(cost) end
    local key, overKey = KEYS[k], false
    s = small(s)
    if s < 0 then
      s = -s
      k = k + 1
    else
      overKey = KEYS[k + 1]
      k = k + 2
    end
    local p = (s - 1) * 7
    local blockForUs, blockKey = SP[p + 6], false
    if blockForUs > 0 then
      blockKey = KEYS[k]
      k = k + 1
    end
    -- An override (or an override key Redis cannot read: the general path reads it again), or
    -- a penalty to read and maybe write: as any other group.
    if blockKey or (overKey and pcall_redis('GET', overKey)) then
      E[1], E[2], E[3], E[4], E[5] = p, key, overKey, blockKey, cost
    else
      done = true
      local head, remaining, resetMs, retryMs, reason = decide_one(op == 'consume', SP[p + 1], key,
        now, SP[p + 2], SP[p + 3], SP[p + 4], SP[p + 5], SP[p + 7], cost)
      reply[r + 1], reply[r + 2] = head, remaining
      if head == -1 then
        r = r + 2
      else
        reply[r + 3], reply[r + 4], reply[r + 5] = resetMs, retryMs, reason
        r = r + 5
      end
    end
  else
    n = small(ARGV[a])
    a = a + 1
    for e = 0, (n - 1) * 17, 17 do
      -- A negative spec index: the entry has no override key (no client override is in use).
      local s, cost = small(ARGV[a]), ARGV[a + 1]
      a = a + 2
      if cost == '1' then cost = 1 else cost = tonumber(cost) end
      E[e + 2], E[e + 5] = KEYS[k], cost
      if s < 0 then
        s = -s
        E[e + 3] = false
        k = k + 1
      else
        E[e + 3] = KEYS[k + 1]
        k = k + 2
      end
      local p = (s - 1) * 7
      E[e + 1] = p
      if SP[p + 6] > 0 then
        E[e + 4] = KEYS[k]
        k = k + 1
      else
        E[e + 4] = false
      end
    end
  end
  if not done then
    local last = (n - 1) * 17
    if op == 'refund' then
      for e = 0, last, 17 do
        read_override(e)
        local p = E[e + 1]
        SP[p + 1][4](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5], charged)
      end
    else
      -- A key this script cannot read (say, another type written by hand) fails its own group,
      -- before anything of the group is written; the other groups of the call go on.
      groupExtras = false
      local ok, admitted = pcall(check_group, n)
      if ok then
        if op == 'consume' then
          -- What each entry owes: an allowed entry of an admitted group its charge; any other entry
          -- only what applies uncharged (a moved count, blockFor's penalty).
          for e = 0, last, 17 do
            local p = E[e + 1]
            if E[e + 8] and admitted then
              if not E[e + 17] then
                SP[p + 1][2](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5],
                  E[e + 13], E[e + 14], E[e + 15], E[e + 16])
              end
            else
              -- A count carried over a change of `window` moves (expiry included) even uncharged.
              if E[e + 15] == true and SP[p + 1][3] then
                SP[p + 1][3](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5],
                  E[e + 13], E[e + 14], E[e + 15], E[e + 16])
              end
              local blockForUs = SP[p + 6]
              if E[e + 12] == REASON_LIMIT and blockForUs > 0 then
                -- The penalty is the point of blockFor: it applies even though nothing else is charged.
                write(E[e + 4], now + blockForUs, px(blockForUs))
                if E[e + 11] < blockForUs then E[e + 11] = blockForUs end
                if E[e + 10] < blockForUs then E[e + 10] = blockForUs end
              end
            end
          end
        end
        -- The group's part of the reply (see the header); 2 and 3: as 0 and 1, with extras after
        -- the entries.
        r = r + 1
        reply[r] = (admitted and 1 or 0) + (groupExtras and 2 or 0)
        for e = 0, last, 17 do
          local reason, resetMs, retryMs = E[e + 12], to_ms(E[e + 10]), 0
          if E[e + 11] > 0 then retryMs = to_ms(E[e + 11]) end
          -- A wait under half a microsecond rounds to 0: a refusal still says "retry after 1 ms".
          if reason == REASON_LIMIT or reason == REASON_BLOCKED then
            if retryMs < 1 then retryMs = 1 end
            if resetMs < retryMs then resetMs = retryMs end
          end
          reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4] = E[e + 9], resetMs, retryMs, reason
          r = r + 4
        end
        if groupExtras then
          -- The count first (no hole in the array), set once the extras are known.
          local head = r + 1
          reply[head] = 0
          r = head
          for e = 0, last, 17 do
            local act, j = E[e + 6], e / 17 + 1
            if act == DENY then
              reply[r + 1], reply[r + 2] = j, E[e + 7]
              r = r + 2
            elseif act == QUOTA then
              reply[r + 1], reply[r + 2] = j, SP[E[e + 1] + 5]
              r = r + 2
            elseif act == ALLOW then
              -- 0: admitted and charged; -1: admitted over its limit, not charged (nothing to refund).
              reply[r + 1], reply[r + 2] = j, E[e + 17] and -1 or 0
              r = r + 2
            end
          end
          reply[head] = (r - head) / 2
        end
      else
        reply[r + 1] = -1
        reply[r + 2] = type(admitted) == 'table' and admitted.err or tostring(admitted)
        r = r + 2
      end
    end
  end
end
-- Writes the cached state back (see read/write in the prelude); nothing when uncached.
if not uncached then
  for i = 1, #dirtyOrder do
    local key = dirtyOrder[i]
    store(key, cached[key], dirty[key])
  end
end
return reply
