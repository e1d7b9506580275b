/**
 * Builds what users run (`npm run build`: the library and `dist/apps/demo/main.js`), for tests
 * that start the demo as separate processes. Jest's `load` project runs it once, as its global
 * setup, before any of its test files, unless `npm test` has just built it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** The repository root, from the sources or from a compiled copy (bench/dist/test/support). */
function repositoryRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'nest-cli.json'))) return dir;
  }
  throw new Error(`no nest-cli.json above ${__dirname}`);
}

export const ROOT = repositoryRoot();
export const DEMO_MAIN = join(ROOT, 'dist', 'apps', 'demo', 'main.js');

export default async function buildDemo(): Promise<void> {
  // `npm test` builds while ESLint runs (tools/lint-and-build.mjs), before the other projects.
  if (process.env.RATE_LIMIT_TEST_DEMO_BUILT === '1' && existsSync(DEMO_MAIN)) return;
  try {
    await promisify(execFile)('npm', ['run', 'build'], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (caught) {
    const error = caught as Error & { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, {
      cause: caught,
    });
  }
}
