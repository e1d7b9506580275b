// @ts-check
/**
 * `npm test`'s first step: ESLint and `npm run build` (the demo the `load` project runs) at the
 * same time, since each keeps one core busy for about 20 s. Each one's output is printed whole
 * when it fails; the build's is kept short when it succeeds. Exits non-zero if either failed.
 */
import { spawn } from 'node:child_process';

/** @param {string} name @param {string} cmd @param {string[]} args */
function runCaptured(name, cmd, args) {
  const started = Date.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ name, ok: false, output: error.message, started }));
    child.once('close', (code) => resolve({ name, ok: code === 0, output, started }));
  });
}

const results = await Promise.all([
  runCaptured('eslint .', 'npx', ['eslint', '.']),
  runCaptured('npm run build', 'npm', ['run', 'build']),
]);
let failed = false;
for (const { name, ok, output, started } of results) {
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (ok) {
    console.log(`${name}: ok (${seconds} s)`);
    continue;
  }
  failed = true;
  console.error(`${name} failed:\n${output}`);
}
process.exit(failed ? 1 : 0);
