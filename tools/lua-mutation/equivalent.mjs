// Mutants of the decide program's Lua that no test can kill, each with the reason: they change
// no reply and no stored state any call can produce (see docs/MUTATION.md). run.mjs leaves them
// out of the score. An entry names the mutated line as written (trimmed), the text replaced and
// its replacement; a line that changes drops out of this list's reach, and the run says so.
//
// Add an entry only with the argument for it; a mutant a test cannot reach for practical
// reasons (timing, Redis's own clock) is not equivalent and stays a survivor.

/** @type {{ file: string, code: string, from: string, to: string, why: string }[]} */
export const EQUIVALENT = [
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
];
