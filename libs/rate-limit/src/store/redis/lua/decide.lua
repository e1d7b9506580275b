-- Decides a batch of requests in one call. Each request (a group: the policies of one identity)
-- is atomic and all-or-nothing: its policies are all checked first, and state is written only
-- when every enforced one admits it. Groups are independent of each other.
--
-- Input, the lone form: one request of one policy, decided on Redis TIME, with no client
-- override key and no blockFor (the usual request; 1 argument instead of 14)
--   KEYS[1]  its state key
--   ARGV[1]  its spec, alone in ARGV: 'c' (consume) | 'p' (peek), then
--            '<algo>:<limit>:<windowMs>', then, only when one of them is not its default,
--            ':<burst>:<shadow>:<cost>' (defaults: limit, '0', 1; shadow '1' | '0'); say
--            'cfixed-window:100:60000'
-- Input, the general form
--   KEYS     per entry, in the order of the entries in ARGV: its state key, its client override
--            key (unless its spec index is negative), then its block key when its spec's
--            blockForMs > 0
--   ARGV[1]  op: 'consume' | 'peek' (checks, writes nothing) | 'refund' (gives back a cost
--            charged earlier)
--   ARGV[2]  now in microseconds, or '' to use Redis TIME (one clock for every app instance)
--   ARGV[3]  refund only: when the cost given back was charged (the first value of the consume's
--            reply, in microseconds): the window algorithms give back to that window; else ''
--   ARGV[4]  '1' when no key appears twice in KEYS (state needs no cache within the call), else ''
--   ARGV[5]  S, the number of policy specs; then 6 per spec: algo (an `algorithms` name), limit,
--            windowMs, burst, blockForMs (0: none), shadow ('1' | '0')
--   then per group: its number of entries; then 2 per entry: its spec (1..S, or -1..-S for an
--   entry sent without an override key: no client override is in use), cost
--   A client override (a string at the entry's override key, written by the admin API; see
--   client-override-value.ts) changes that entry alone: 'allow' admits it whatever its state
--   (charged only when the check admits), 'deny[:<message>]' rejects it (reason 4, nothing
--   charged, no penalty), 'quota:<limit>:<windowMs>:<burst>' decides it on those thresholds (an
--   empty field is the spec's). Any other value is no override.
-- Output, one flat array
--   the time of the decision (microseconds: ARGV[2] or Redis TIME)
--   then per group, in order: admitted (1 | 0: an enforced entry refused; a shadow entry's
--   refusal is reported but refuses nothing), then 4 per entry:
--     remaining, resetMs, retryAfterMs (0 when allowed or for reasons 3 and 4, at least 1 for
--     reasons 1 and 2), reason (0 admitted, 1 over the limit, 2 blocked by blockFor, 3 cost
--     above capacity, 4 denied by a client override); an entry is allowed exactly when its
--     reason is 0
--   When an entry of the group has a client override, the group's first value is 2 (refused)
--   or 3 (admitted) instead of 0 or 1, and its entries are followed by the number of extras,
--   then per extra the entry's index in the group (1..n) and: a deny's message (a string, ''
--   for none), a quota's capacity (an integer >= 1, reported as its limit), or for an allow 0
--   (charged) or -1 (admitted over its limit, not charged: a refund must not give it back).
--   A quota's threshold out of its bounds (written by hand) is the spec's; a sliding-window
--   quota whose limit is above the log's cap (MAX_SLIDING_LOG) is no override.
--   or, for a group with a key this script cannot read (say, another type written by hand): -1
--   and the error message; nothing of that group is written.
--   The lone form replies as one group of one entry, or when admitted (reason 0) with one
--   string, '<seconds>:<microseconds>:<remaining>:<resetMs>' (the time as TIME gives it). peek
--   replies alike; refund replies with the time alone. A spec naming an algorithm this
--   script does not hold fails the whole call (an error reply; nothing written).
local REASON_OK, REASON_LIMIT, REASON_BLOCKED, REASON_COST, REASON_DENIED = 0, 1, 2, 3, 4
-- What a client override asks of an entry.
local NONE, ALLOW, DENY, QUOTA = 0, 1, 2, 3
-- Bounds of a quota's thresholds (policy-limits.ts).
local MAX_LIMIT, MAX_WINDOW_MS, MAX_SLIDING_LOG = 1000000000, 31622400000, 10000

-- The lone form's specs (ARGV[1] -> its fields, as decide-call.lua reads them): a library's
-- locals outlive its calls, so each spec is parsed once per load (begin-call.lua makes the
-- table); a script's chunk starts afresh at every call, and parses it each time, keeping none.
-- Forgotten all at once past LONE_SPECS_MAX (a spec names its cost, which callers may vary).
local lone_specs, lone_count, LONE_SPECS_MAX = nil, 0, 1000

-- A count or index: the usual small ones without a string-to-number conversion (interned
-- strings compare by address).
local function small(s)
  if s == '1' then return 1 elseif s == '-1' then return -1 end
  return tonumber(s)
end

-- Decides one entry that has no client override and no block key, charging it when `consume`
-- and it is allowed: the entry's part of the reply (head, remaining, resetMs, retryAfterMs,
-- reason), or -1 and the error of a key Redis cannot read (nothing written).
local function decide_one(consume, algo, key, now, limit, windowUs, burst, capacity, shadow, cost)
  local ok, allowed, remaining, resetUs, retryUs, x1, x2, x3, x4 =
    pcall(algo[1], key, now, limit, windowUs, burst, cost)
  if not ok then return -1, type(allowed) == 'table' and allowed.err or tostring(allowed) end
  local reason = REASON_OK
  if not allowed then reason = REASON_LIMIT end
  if cost > capacity then allowed, retryUs, reason = false, 0, REASON_COST end
  if consume then
    if allowed then
      algo[2](key, now, limit, windowUs, burst, cost, x1, x2, x3, x4)
    elseif x3 == true and algo[3] then
      algo[3](key, now, limit, windowUs, burst, cost, x1, x2, x3, x4)
    end
  end
  local resetMs, retryMs = to_ms(resetUs), 0
  if retryUs > 0 then retryMs = to_ms(retryUs) end
  -- A wait under half a microsecond rounds to 0: a refusal still says "retry after 1 ms".
  if reason == REASON_LIMIT then
    if retryMs < 1 then retryMs = 1 end
    if resetMs < retryMs then resetMs = retryMs end
  end
  return (allowed or shadow) and 1 or 0, remaining, resetMs, retryMs, reason
end
