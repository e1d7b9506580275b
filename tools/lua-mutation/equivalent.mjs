// Mutants of the decide program's Lua that no test can kill, each with the reason: they change
// no reply and no stored state any call can produce (see docs/MUTATION.md). run.mjs leaves them
// out of the score. An entry names the mutated line as written (trimmed), the text replaced and
// its replacement; a line that changes drops out of this list's reach, and the run says so.
//
// Add an entry only with the argument for it; a mutant a test cannot reach for practical
// reasons (timing, Redis's own clock) is not equivalent and stays a survivor.

/** @type {{ file: string, code: string, from: string, to: string, why: string }[]} */
export const EQUIVALENT = [
  // The bound on the lone specs a library keeps (decide.lua's lone_specs): forgetting them a
  // spec earlier or later, or at half the bound, changes no reply (a forgotten spec is parsed
  // again) and the memory kept by less than the lone-form test's bound tells apart; a count
  // that never reaches the bound is killed by that test.
  ...[
    ['>=', '>'],
    ['0', '1'],
  ].map(([from, to]) => ({
    file: 'decide-call.lua',
    code: 'if lone_count >= LONE_SPECS_MAX then lone_specs, lone_count = {}, 0 end',
    from,
    to,
    why: `the specs are forgotten at ${from === '0' ? '999' : '1,001'} kept instead of 1,000`,
  })),
  {
    file: 'decide-call.lua',
    code: 'lone_count = lone_count + 1',
    from: '1',
    to: '2',
    why: 'the specs are forgotten at 500 kept instead of 1,000',
  },
  ...[
    ['0', '1', 'the count starts at 1: forgotten at 999 kept'],
    ['1000', '1001', 'forgotten at 1,001 kept'],
  ].map(([from, to, why]) => ({
    file: 'decide.lua',
    code: 'local lone_specs, lone_count, LONE_SPECS_MAX = nil, 0, 1000',
    from,
    to,
    why,
  })),
  {
    file: 'decide-call.lua',
    code: "if ARGV[a + 4] ~= '0' then blockForUs = ARGV[a + 4] * 1000 end",
    from: ' + ',
    to: ' - ',
    at: 10,
    why: "the test only spares multiplying '0': ARGV[a - 4] is the call's time (never '0') for the first spec and the previous spec's windowMs (at least 1) after it, so blockForUs is ARGV[a + 4] * 1000 either way",
  },
  // The move call (fixed-window's and sliding-window-counter's, the only algorithms with one)
  // passes every argument the other calls do; fw_move and swc_move read key, now, windowUs
  // (swc) and x1, x2 alone.
  ...[
    [33, 'limit'],
    [55, 'burst'],
    [65, 'cost'],
  ].map(([at, what]) => ({
    file: 'decide-call-groups.lua',
    code: 'SP[p + 1][3](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5],',
    from: ' + ',
    to: ' - ',
    at,
    why: `no move function reads ${what}`,
  })),
  ...[
    [26, 'x3'],
    [37, 'x4'],
  ].map(([at, what]) => ({
    file: 'decide-call-groups.lua',
    code: 'E[e + 13], E[e + 14], E[e + 15], E[e + 16])',
    prev: 'SP[p + 1][3](E[e + 2], now, SP[p + 2], SP[p + 3], SP[p + 4], E[e + 5],',
    from: ' + ',
    to: ' - ',
    at,
    why: `no move function reads ${what}`,
  })),
  ...[
    'if E[e + 11] < blockForUs then E[e + 11] = blockForUs end',
    'if E[e + 10] < blockForUs then E[e + 10] = blockForUs end',
  ].map((code) => ({
    file: 'decide-call-groups.lua',
    code,
    from: '<',
    to: '<=',
    why: 'at equality the assignment writes the value already there',
  })),
  {
    file: 'decide-call-groups.lua',
    code: 'if E[e + 11] > 0 then retryMs = to_ms(E[e + 11]) end',
    from: '>',
    to: '>=',
    why: 'a wait is never negative, and to_ms(0) is 0, the value retryMs already has',
  },
  {
    file: 'decide-call-groups.lua',
    code: 'if retryMs < 1 then retryMs = 1 end',
    from: '<',
    to: '<=',
    why: 'at 1 the assignment writes the value already there',
  },
  {
    file: 'decide-call-groups.lua',
    code: 'if retryMs < 1 then retryMs = 1 end',
    from: '1',
    to: '2',
    at: 14,
    why: 'retryMs is a whole number of ms: < 2 adds only 1, set to 1 again',
  },
  {
    file: 'decide-call-groups.lua',
    code: 'if resetMs < retryMs then resetMs = retryMs end',
    from: '<',
    to: '<=',
    why: 'at equality the assignment writes the value already there',
  },
  {
    file: 'decide-call-groups.lua',
    code: 'reply[head] = 0',
    from: '0',
    to: '1',
    why: 'a placeholder (no hole in the array) that reply[head] = (r - head) / 2 overwrites',
  },
  {
    file: 'decide-call-entries.lua',
    code: 'spTop = spTop + 7',
    from: '7',
    to: '8',
    why: 'quota specs 8 slots apart instead of 7: each entry keeps its own offset q, and none overlaps a policy spec or another quota',
  },
  {
    file: 'decide-call-groups.lua',
    code: 'while a <= nargs do',
    from: '<=',
    to: '<',
    why: 'a group takes at least 3 arguments (count, spec, cost), so a group never starts at the last one: a is nargs + 1 or at most nargs - 2',
  },
  ...[
    ['<', '<='],
    ['0', '1'],
  ].map(([from, to]) => ({
    file: 'decide-call-groups.lua',
    code: 'if s < 0 then',
    from,
    to,
    why: 'a spec index is 1..S or -1..-S (decide-call.ts), never 0: s < 0, s <= 0 and s < 1 agree on every one',
  })),
  ...[
    'if blockForUs > 0 then',
    'if SP[p + 6] > 0 then',
    'if E[e + 12] == REASON_LIMIT and blockForUs > 0 then',
  ].map((code) => ({
    file: 'decide-call-groups.lua',
    code,
    from: '0',
    to: '1',
    why: 'blockFor is a whole number of ms from 1 (checkDuration), sent as ms and held in us: 0 or at least 1,000, never 1',
  })),
  {
    file: 'decide-call-groups.lua',
    code: "if blockKey or (overKey and pcall_redis('GET', overKey)) then",
    from: 'and',
    to: 'or',
    why: 'sends every lone entry with an override key down the general path, which decides an entry without an override as decide_one does (a shortcut, not a decision)',
  },
  // The algorithm files.
  ...['token-bucket.lua', 'leaky-bucket.lua'].map((file) => ({
    file,
    code:
      file === 'token-bucket.lua'
        ? 'if elapsed > 0 then tokens = tokens + elapsed * limit / windowUs end'
        : 'if elapsed > 0 then level = level - elapsed * limit / windowUs end',
    from: '>',
    to: '>=',
    why: 'an elapsed time of 0 adds (takes) 0 units: the same value either way',
  })),
  {
    file: 'token-bucket.lua',
    code: 'if tokens > burst then return burst end',
    from: '>',
    to: '>=',
    why: 'at tokens == burst both return burst',
  },
  // A clamp of a whole number (floor): `<= 0` and `< 1` differ from `< 0` only at 0, which the
  // clamp sets to 0 again. Its assignment is never reached in token-bucket, where tokens >= cost
  // makes tokens - cost >= 0 exactly; leaky-bucket's burst - level - cost may round to a hair
  // under 0 where level + cost rounded to burst, so its assignment mutated to 1 stays a survivor.
  ...[
    ['token-bucket.lua', 'local remaining = floor(tokens - cost)', true],
    ['leaky-bucket.lua', 'local remaining = floor(burst - level - cost)', false],
  ].flatMap(([file, prev, unreachable]) =>
    [['<', '<=', 14], ['0', '1', 16], ...(unreachable ? [['0', '1', 35]] : [])].map(
      ([from, to, at]) => ({
        file,
        code: 'if remaining < 0 then remaining = 0 end',
        prev,
        from,
        to,
        at,
        why:
          at === 35
            ? 'never reached: cost <= tokens on the admitted branch, so tokens - cost >= 0 exactly'
            : 'remaining is a whole number (floor): < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
      }),
    ),
  ),
  // The rejected branch's clamp does fire (a level over a capacity lowered at runtime; its
  // assignment mutated to 1 is killed): only its comparison's forms agree.
  ...[
    ['<', '<=', 14],
    ['0', '1', 16],
  ].map(([from, to, at]) => ({
    file: 'leaky-bucket.lua',
    code: 'if remaining < 0 then remaining = 0 end',
    prev: 'local remaining = floor(burst - level)',
    from,
    to,
    at,
    why: 'remaining is a whole number: < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
  })),
  {
    file: 'fixed-window.lua',
    code: 'local FW_EXPIRY, FW_PACKED_FORM = 1, 2',
    from: '2',
    to: '3',
    at: 38,
    why: 'FW_PACKED_FORM is a tag only ever compared with FW_EXPIRY (fw_commit): any value but 1 and false reads the same',
  },
  ...[
    ['>=', '>', 41],
    ['0', '1', 44],
  ].map(([from, to, at]) => ({
    file: 'fixed-window.lua',
    code: 'if not (storedEndMs and count and count >= 0) then',
    from,
    to,
    at,
    why: 'a count of 0 then reads as no count: both charge a whole write, refund nothing, and a 0 moved to a new window or left in its own reads as 0 again',
  })),
  ...[
    ['<', '<=', 14],
    ['0', '1', 16],
  ].map(([from, to, at]) => ({
    file: 'fixed-window.lua',
    code: 'if remaining < 0 then remaining = 0 end',
    prev: 'local remaining = limit - count',
    from,
    to,
    at,
    why: 'remaining is a whole number (counts are read from digits): < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
  })),
  {
    file: 'fixed-window.lua',
    code: 'local _, _, _, _, count, endUs, moved = fw_check(key, now, limit, windowUs, burst, 0)',
    from: '0',
    to: '1',
    why: "the refund keeps only fw_check's count, endUs and moved, none of which depends on the cost",
  },
  ...[
    ['<', '<=', 9],
    ['0', '1', 11],
  ].map(([from, to, at]) => ({
    file: 'fixed-window.lua',
    code: 'if left < 0 then left = 0 end',
    from,
    to,
    at,
    why: 'left is a whole number: < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
  })),
  // sw_leaves is given a unit still in the window: scores and now are whole us, and a unit is
  // counted while its score > now - windowUs, so it leaves at least 1 us from now.
  {
    file: 'sliding-window.lua',
    code: 'if us > 0 then return us end',
    from: '>',
    to: '>=',
    why: 'us is at least 1 wherever it is computed (see above): never 0',
  },
  {
    file: 'sliding-window.lua',
    code: 'return 0',
    prev: 'if us > 0 then return us end',
    from: '0',
    to: '1',
    why: 'never reached: us is at least 1 (see above)',
  },
  {
    file: 'sliding-window.lua',
    code: 'local remaining, retryUs, resetUs = limit - count, 0, 0',
    from: '0',
    to: '1',
    at: 52,
    why: "retryUs's initial value stays only where no unit fits (cost over the limit), and a cost over capacity is answered with a retry of 0 (decide_one, check_group)",
  },
  ...[
    ['<', '<=', 14],
    ['0', '1', 16],
  ].map(([from, to, at]) => ({
    file: 'sliding-window.lua',
    code: 'if remaining < 0 then remaining = 0 end',
    from,
    to,
    at,
    why: 'remaining is a whole number: < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
  })),
  ...[
    ['<', '<=', 9],
    ['0', '1', 11],
    ['0', '1', 25],
  ].map(([from, to, at]) => ({
    file: 'sliding-window.lua',
    code: 'if skip < 0 then skip = 0 end',
    from,
    to,
    at,
    why: 'skip = count + cost - limit - 1 on the branch where count + cost > limit (whole numbers): never negative, so the clamp never fires',
  })),
  {
    file: 'sliding-window.lua',
    code: "local nth = call('ZRANGEBYSCORE', key, oldest, '+inf', 'WITHSCORES', 'LIMIT', skip, 1)",
    from: '1',
    to: '2',
    at: 85,
    why: "only nth[2], the first member's score, is read: a second member changes nothing",
  },
  {
    file: 'sliding-window.lua',
    code: "resetUs = sw_leaves(call('ZREVRANGE', key, 0, 0, 'WITHSCORES'), now, windowUs)",
    from: '0',
    to: '1',
    at: 47,
    why: 'ZREVRANGE 0 1 answers the newest member first: sw_leaves reads only its score, reply[2]',
  },
  {
    file: 'sliding-window.lua',
    code: 'if left == 1 then',
    from: '1',
    to: '2',
    why: 'the shortcut adds member <score>-<seq + 1>, which the loop adds as well when it is skipped; for a cost of 2 it adds the first and the loop the second',
  },
  // A log member's name only has to be new: ZADD NX refuses one that exists and the loop goes on
  // until `cost` members are new, whatever names it tries (each try a range it has not tried).
  // Nothing reads a name: the count and the waits come from scores, a refund removes by score.
  ...[
    [
      "left = left - call('ZADD', key, 'NX', score, score .. '-' .. format('%d', seq + 1))",
      [
        [' + ', ' - ', 78],
        ['1', '2', 81],
      ],
    ],
    [
      'seq = seq + 1',
      [
        [' + ', ' - ', 10],
        ['1', '2', 13],
      ],
    ],
    ["args[2 * i + 1] = score .. '-' .. format('%d', seq + i)", [[' + ', ' - ', 51]]],
    ['seq = seq + n', [[' + ', ' - ', 10]]],
  ].flatMap(([code, edits]) =>
    edits.map(([from, to, at]) => ({
      file: 'sliding-window.lua',
      code,
      from,
      to,
      at,
      why: 'a member name only has to be new (see above): other names, the same members counted',
    })),
  ),
  {
    file: 'sliding-window.lua',
    code: "local args, n = { 'NX' }, min(left, 1000)",
    from: '1000',
    to: '1001',
    why: 'members added 1,001 per ZADD instead of 1,000: the same members, in fewer commands for a cost over 1,000',
  },
  {
    file: 'sliding-window.lua',
    code: 'while left > 0 do',
    prev: "local score, left = format('%d', charged), cost",
    from: '>',
    to: '>=',
    why: 'with nothing left to give back, one more ZRANGEBYSCORE ... LIMIT 0 0 answers no member and the loop returns',
  },
  {
    file: 'sliding-window.lua',
    code: "local added = call('ZRANGEBYSCORE', key, score, score, 'LIMIT', 0, min(left, 1000))",
    from: '1000',
    to: '1001',
    why: 'members removed 1,001 per round instead of 1,000: the same members, in fewer commands for a refund over 1,000',
  },
  // The counter's stored window starts and ends on a whole ms (the library writes its index and
  // length in ms), and every window length is a whole ms: one and two us before such a time lie
  // in the same window of any length.
  ...[
    'local j = floor((endUs - sw - 1) / windowUs)',
    'local j = floor((endUs - 1) / windowUs)',
  ].map((code) => ({
    file: 'sliding-window-counter.lua',
    code,
    from: '1',
    to: '2',
    why: 'the time is a whole ms (see above): 1 and 2 us before it fall in the same window',
  })),
  {
    file: 'sliding-window-counter.lua',
    code: 'local allowed, remaining, retryUs, resetUs = true, 0, 0, 0',
    from: '0',
    to: '1',
    at: 52,
    why: "remaining's initial value is overwritten on both branches before it is returned",
  },
  ...[
    ['<', '<=', 14],
    ['0', '1', 16],
  ].map(([from, to, at]) => ({
    file: 'sliding-window-counter.lua',
    code: 'if remaining < 0 then remaining = 0 end',
    prev: 'allowed, remaining = false, floor(limit - used)',
    from,
    to,
    at,
    why: 'remaining is a whole number (floor): < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
  })),
  {
    file: 'sliding-window-counter.lua',
    code: 'if inNext < 0 then inNext = 0 end',
    from: '<',
    to: '<=',
    why: 'at equality the assignment writes the value already there',
  },
  {
    file: 'sliding-window-counter.lua',
    code: 'if inNext < 0 then inNext = 0 end',
    from: '0',
    to: '1',
    at: 29,
    why: 'never reached: on this branch current + cost > limit, so (limit - cost) / current < 1 and inNext > 0 (or +inf for a cost over the limit with no current count)',
  },
  {
    file: 'sliding-window-counter.lua',
    code: 'if retryUs < 0 then retryUs = 0 end',
    from: '<',
    to: '<=',
    why: 'at equality the assignment writes the value already there',
  },
  ...[
    ['<', '<=', 14],
    ['0', '1', 16],
  ].map(([from, to, at]) => ({
    file: 'sliding-window-counter.lua',
    code: 'if remaining < 0 then remaining = 0 end',
    prev: 'remaining = floor(limit - used - cost)',
    from,
    to,
    at,
    why: 'remaining is a whole number (floor): < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again (its assignment mutated to 1 stays a survivor: limit - used - cost may round to a hair under 0 where used + cost rounded to limit)',
  })),
  {
    file: 'sliding-window-counter.lua',
    code: 'if chargedIndex == si and sc > 0 then',
    from: '>',
    to: '>=',
    why: 'a refund into a stored current count of 0 stays 0 (clamped), places the same counts, and returns before writing, as the original returns at once',
  },
  ...['sc', 'sp'].flatMap((count) =>
    [
      ['<', '<=', 7],
      ['0', '1', 9],
    ].map(([from, to, at]) => ({
      file: 'sliding-window-counter.lua',
      code: `if ${count} < 0 then ${count} = 0 end`,
      from,
      to,
      at,
      why: 'stored counts are whole numbers (written with %d): < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
    })),
  ),
  {
    file: 'sliding-window-counter.lua',
    code: 'elseif chargedIndex == si - 1 and sp > 0 then',
    from: '>',
    to: '>=',
    why: 'a refund into a stored previous count of 0 stays 0 (clamped), places the same counts, and returns before writing, as the original returns at once',
  },
  {
    file: 'gcra.lua',
    code: 'local GCRA_EXACT = 9007199254740992 -- 2^53: a larger TAT has no fraction to keep',
    from: '9007199254740992',
    to: '9007199254740992',
    why: '2^53 + 1 is 2^53 as a double: the same number (the mutant text is the same)',
  },
  // A whole-number value of 1000 is never stored: the expiry form's whole offsets are 0 to 999
  // (a TAT on a whole ms expires at that ms, 0 before it), the absolute form's TATs are times past
  // the epoch's first ms. Only "<d>:<f>" may hold d = 1000, read with <= (gcra.lua line 48).
  {
    file: 'gcra.lua',
    code: "local GCRA_EXPIRY_BELOW = 1000 -- values below this are the expiry form's offsets",
    from: '1000',
    to: '1001',
    why: 'the two forms then part at 1001 instead of 1000, and no whole-number value is 1000 (see above)',
  },
  {
    file: 'gcra.lua',
    code: 'if whole < GCRA_EXPIRY_BELOW then',
    from: '<',
    to: '<=',
    why: 'no whole-number value is 1000 (see above)',
  },
  {
    file: 'gcra.lua',
    code: 'if ahead > 0 then return ahead end',
    from: '>',
    to: '>=',
    why: 'an ahead of 0 returns 0 either way',
  },
  ...[
    'local remaining = floor(burst - (ahead - tolerance) / interval)',
    'local remaining = floor(burst - (newAhead - tolerance) / interval)',
  ].flatMap((prev) =>
    [
      ['<', '<=', 14],
      ['0', '1', 16],
    ].map(([from, to, at]) => ({
      file: 'gcra.lua',
      code: 'if remaining < 0 then remaining = 0 end',
      prev,
      from,
      to,
      at,
      why: 'remaining is a whole number (floor): < 0, <= 0 and < 1 differ only at 0, which the clamp sets to 0 again',
    })),
  ),
  {
    file: 'decide-call-groups.lua',
    code: 'reply[r + 1], reply[r + 2] = j, E[e + 17] and -1 or 0',
    from: '1',
    to: '2',
    why: 'the client reads any negative allow extra as admitted uncharged (decide-call.ts): -2 reads as -1 does',
  },
  {
    file: 'leaky-bucket.lua',
    code: 'if level > 0 then return level end',
    from: '>',
    to: '>=',
    why: 'a level of 0 returns 0 either way',
  },
  // Where a quota's own spec goes: after the call's specs, at any offset that overlaps none of
  // them; nothing reads SP between the specs and spTop, or iterates it.
  {
    file: 'decide-call.lua',
    code: 'local spTop = nspecs * 7',
    from: '7',
    to: '8',
    why: "a quota's spec placed after a gap of nspecs slots: read back at the index it was put",
  },
  // decide.lua's decide_one, sorted (2026-11-29). An override's action is a tag compared only
  // with the other tags in Lua, never replied: any value distinct from NONE, ALLOW and DENY.
  {
    file: 'decide.lua',
    code: 'local NONE, ALLOW, DENY, QUOTA = 0, 1, 2, 3',
    from: '3',
    to: '4',
    why: 'QUOTA is a tag compared with the others alone; 4 is as distinct as 3',
  },
  // A wait above 0 comes only with a refusal over the limit (every check returns 0 when it
  // admits; a cost above capacity sets 0), whose retry is clamped to at least 1 ms, and
  // to_ms(0) is 0.
  {
    file: 'decide.lua',
    code: 'if retryUs > 0 then retryMs = to_ms(retryUs) end',
    from: '>',
    to: '>=',
    why: 'to_ms(0) is 0',
  },
  {
    file: 'decide.lua',
    code: 'if retryUs > 0 then retryMs = to_ms(retryUs) end',
    from: '0',
    to: '1',
    why: "a wait of at most 1 us is a refusal's, clamped to 1 ms either way (to_ms(1) is 1)",
  },
  // The clamps: at equality they assign what the variable already holds.
  {
    file: 'decide.lua',
    code: 'if retryMs < 1 then retryMs = 1 end',
    from: '<',
    to: '<=',
    why: 'a retry of 1 ms is set to 1 ms',
  },
  {
    file: 'decide.lua',
    code: 'if retryMs < 1 then retryMs = 1 end',
    from: '1',
    to: '2',
    at: 14,
    why: 'to_ms gives whole milliseconds: below 2 is 0 or 1, and 1 is set to 1',
  },
  {
    file: 'decide.lua',
    code: 'if resetMs < retryMs then resetMs = retryMs end',
    from: '<',
    to: '<=',
    why: 'an equal reset is set to itself',
  },
];
