// `npm run test:mutation:lua [-- file.lua ...]`: mutation testing of the decide program's Lua
// (libs/rate-limit/src/store/redis/lua), which StrykerJS cannot mutate. Each mutant (see
// mutants.mjs) is written over its file, the integration specs that run the scripts on a Redis of
// their own run against it (jest --bail: the first failing test kills it), and the file is put
// back. Prints each survivor and the score per file and overall; exits 1 below 85 %.
// The file is restored on every exit path, Ctrl-C included.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mutantsOf } from './mutants.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LUA = join(ROOT, 'libs/rate-limit/src/store/redis/lua');
/** The specs that decide through the scripts and check what they answer and store. */
const SPECS = [
  'libs/rate-limit/test/conformance.int-spec.ts',
  'libs/rate-limit/test/client-overrides.int-spec.ts',
  'libs/rate-limit/test/extreme-thresholds.int-spec.ts',
  'libs/rate-limit/test/redis-store.int-spec.ts',
  'libs/rate-limit/test/state-forms.int-spec.ts',
  'libs/rate-limit/test/lone-form.int-spec.ts',
  'libs/rate-limit/test/window-decrease.int-spec.ts',
];
const BREAK = 0.85;

// Every file that defines an algorithm (`algorithms['<name>'] =`, as decide-script.ts assembles
// them) and the call's fragments: read from the directory, not listed a second time here.
const decideFiles = () =>
  readdirSync(LUA)
    .filter((f) => f.endsWith('.lua'))
    .filter(
      (f) =>
        f.startsWith('decide-call') ||
        /^algorithms\['[^']+'\] =/m.test(readFileSync(join(LUA, f), 'utf8')),
    )
    .sort()
    .map((f) => join(LUA, f));

const files = process.argv.slice(2).length
  ? process.argv.slice(2).map((f) => join(LUA, basename(f)))
  : decideFiles();

let restore = () => {};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    restore();
    process.exit(130);
  });
}

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
    { cwd: ROOT, stdio: 'ignore', timeout: 180_000 },
  );
  return run.status === 0;
}

if (!testsPass()) {
  console.error('the specs fail on the unmutated scripts: fix that first');
  process.exit(2);
}
let killed = 0;
let total = 0;
const survivors = [];
for (const file of files) {
  const original = readFileSync(file, 'utf8');
  restore = () => writeFileSync(file, original);
  const mutants = mutantsOf(original);
  let fileKilled = 0;
  try {
    for (const [i, m] of mutants.entries()) {
      writeFileSync(file, m.text);
      const dead = !testsPass();
      if (dead) fileKilled++;
      else {
        const where = `${basename(file)}:${m.line}:${m.column}`;
        survivors.push(`${where} \`${m.from}\` -> \`${m.to}\``);
        console.log(`survived ${where}: ${m.from} -> ${m.to}`);
      }
      process.stdout.write(`${basename(file)} ${i + 1}/${mutants.length}\r`);
    }
  } finally {
    restore();
  }
  killed += fileKilled;
  total += mutants.length;
  console.log(`${basename(file)}: ${fileKilled} of ${mutants.length} killed`);
}
const score = total === 0 ? 1 : killed / total;
console.log(`\nLua mutation score: ${(score * 100).toFixed(1)} % (${killed} of ${total} killed)`);
if (survivors.length) console.log(`survivors:\n${survivors.map((s) => `  ${s}`).join('\n')}`);
process.exit(score >= BREAK ? 0 : 1);
