// `npm run test:mutation:lua [-- file.lua ...]`: mutation testing of the decide program's Lua
// (libs/rate-limit/src/store/redis/lua), which StrykerJS cannot mutate. Each mutant (see
// mutants.mjs) is written over its file, the integration specs that run the scripts on a Redis of
// their own run against it (jest --bail: the first failing test kills it), and the file is put
// back (`--from=N` starts each file at its Nth mutant). Prints each survivor, the score per
// file and overall, and the kills by test; exits 1 below 85 %. The file is restored on every
// exit path, Ctrl-C included.
//
// Mutants listed in equivalent.mjs (each with why no test can kill it) are not run and not
// scored, as Stryker leaves out the mutants its disable comments name: the score is killed over
// the mutants that are not equivalent; the raw share of all is printed too. A listed mutant that
// no longer exists fails the run (its line changed: look at it again). `--check-equivalent` runs
// the listed ones too and fails if a test kills one (then it was not equivalent).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EQUIVALENT } from './equivalent.mjs';
import { equivalenceOf, mutantsOf } from './mutants.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LUA = join(ROOT, 'libs/rate-limit/src/store/redis/lua');
/** The specs that decide through the scripts and check what they answer and store. */
const SPECS = [
  'libs/rate-limit/test/conformance.int-spec.ts',
  'libs/rate-limit/test/decide-batching.int-spec.ts',
  'libs/rate-limit/test/redis-functions.int-spec.ts',
  'libs/rate-limit/test/client-overrides.int-spec.ts',
  'libs/rate-limit/test/extreme-thresholds.int-spec.ts',
  'libs/rate-limit/test/redis-store.int-spec.ts',
  'libs/rate-limit/test/state-forms.int-spec.ts',
  'libs/rate-limit/test/lone-form.int-spec.ts',
  'libs/rate-limit/test/window-decrease.int-spec.ts',
];
const BREAK = 0.85;

// Every file that defines an algorithm (`algorithms['<name>'] =`, as decide-script.ts assembles
// them), the call's fragments and what they run on (decide.lua: decide_one, the reasons and
// bounds; begin-call.lua): read from the directory, not listed a second time here.
const decideFiles = () =>
  readdirSync(LUA)
    .filter((f) => f.endsWith('.lua'))
    .filter(
      (f) =>
        f.startsWith('decide') ||
        f === 'begin-call.lua' ||
        /^algorithms\['[^']+'\] =/m.test(readFileSync(join(LUA, f), 'utf8')),
    )
    .sort()
    .map((f) => join(LUA, f));

const checkEquivalent = process.argv.includes('--check-equivalent');
// `--from=N`: start each file at its Nth mutant (resuming a run that was stopped); the mutants
// before it are neither run nor scored.
const from = Number(
  /^--from=(\d+)$/.exec(process.argv.find((a) => a.startsWith('--from=')) ?? '')?.[1] ?? 1,
);
const named = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = named.length ? named.map((f) => join(LUA, basename(f))) : decideFiles();

let restore = () => {};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    restore();
    process.exit(130);
  });
}

/** What failed in the last run: the first failing test's name, or the suite's failure. */
let lastFailure = '';

function testsPass() {
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/jest/bin/jest.js'),
      ...SPECS,
      '--selectProjects',
      'integration',
      '--bail',
      '--silent',
    ],
    // stderr is read for the failure's name (--json writes nothing when --bail stops the run).
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 180_000 },
  );
  lastFailure = run.status === 0 ? '' : failureOf(run.stderr ?? '');
  return run.status === 0;
}

// A kill by a timeout or an unrelated test is a flaky kill, not a test that saw the mutant: the
// run counts the kills by test at the end, where such a test stands out.
function failureOf(stderr) {
  const failed = /^\s*● (.+)$/m.exec(stderr);
  return failed ? failed[1].trim() : 'no test named (jest failed or timed out)';
}

if (!testsPass()) {
  console.error(`the specs fail on the unmutated scripts (${lastFailure}): fix that first`);
  process.exit(2);
}
let killed = 0;
let total = 0;
let equivalent = 0;
const survivors = [];
const killsByTest = new Map();
const wronglyEquivalent = [];
const used = new Set();
for (const file of files) {
  const name = basename(file);
  const original = readFileSync(file, 'utf8');
  restore = () => writeFileSync(file, original);
  const all = mutantsOf(original);
  // Skipped mutants still use their marks: a mark is stale only if no mutant of the file has it.
  for (const m of all.slice(0, from - 1)) {
    const mark = equivalenceOf(name, m, EQUIVALENT);
    if (mark) used.add(mark);
  }
  const mutants = all.slice(from - 1);
  let fileKilled = 0;
  let fileEquivalent = 0;
  try {
    for (const [i, m] of mutants.entries()) {
      const where = `${name}:${m.line}:${m.column} \`${m.from}\` -> \`${m.to}\``;
      const mark = equivalenceOf(name, m, EQUIVALENT);
      if (mark) used.add(mark);
      if (mark && !checkEquivalent) {
        fileEquivalent++;
        continue;
      }
      writeFileSync(file, m.text);
      const dead = !testsPass();
      if (mark) {
        fileEquivalent++;
        if (dead) wronglyEquivalent.push(`${where} (${lastFailure})`);
      } else if (dead) {
        fileKilled++;
        killsByTest.set(lastFailure, (killsByTest.get(lastFailure) ?? 0) + 1);
      } else {
        survivors.push(where);
        console.log(`survived ${where}`);
      }
      process.stdout.write(`${name} ${from + i}/${from - 1 + mutants.length}\r`);
    }
  } finally {
    restore();
  }
  killed += fileKilled;
  total += mutants.length;
  equivalent += fileEquivalent;
  console.log(
    `${name}: ${fileKilled} of ${mutants.length - fileEquivalent} killed (${fileEquivalent} equivalent)`,
  );
}
const names = new Set(files.map((f) => basename(f)));
const stale = EQUIVALENT.filter((m) => names.has(m.file) && !used.has(m));
const scored = total - equivalent;
const score = scored === 0 ? 1 : killed / scored;
console.log(
  `\nLua mutation score: ${(score * 100).toFixed(1)} % (${killed} of ${scored} killed; ` +
    `${equivalent} equivalent left out; ${((100 * killed) / Math.max(1, total)).toFixed(1)} % of all ${total})`,
);
if (survivors.length) console.log(`survivors:\n${survivors.map((s) => `  ${s}`).join('\n')}`);
const byTest = [...killsByTest].sort((a, b) => b[1] - a[1]);
console.log(`kills by test:\n${byTest.map(([test, n]) => `  ${n} ${test}`).join('\n')}`);
for (const m of stale)
  console.log(
    `listed as equivalent but no such mutant: ${m.file} \`${m.code}\` ${m.from} -> ${m.to}`,
  );
for (const w of wronglyEquivalent) console.log(`listed as equivalent but killed: ${w}`);
process.exit(score >= BREAK && stale.length === 0 && wronglyEquivalent.length === 0 ? 0 : 1);
