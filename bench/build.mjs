// Compiles the benchmark (and the library sources it imports by relative path) with tsc, which
// emits the decorator metadata Nest's dependency injection needs, then copies the Lua scripts
// the library reads next to its compiled code.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bench = dirname(fileURLToPath(import.meta.url));
const root = join(bench, '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(join(bench, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(bench, 'tsconfig.json')], { stdio: 'inherit' });
cpSync(
  join(root, 'libs/rate-limit/src/store/redis/lua'),
  join(bench, 'dist/libs/rate-limit/src/store/redis/lua'),
  { recursive: true },
);
