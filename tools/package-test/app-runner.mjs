// @ts-check
/**
 * One app of the matrix, start to end: its package.json and install, then per flavour its
 * sources, `tsc` (the package's types against the app's own tsconfig) and a run against a
 * redis-server of its own with the checks of its planes, ending with SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, run, startProcess, startRedis, stopProcess } from '../support/processes.mjs';
import { checkCoreBlock } from './app-checks.mjs';
import { nestNewAppService, readmeFiles, writeAppSources, writeJson } from './app-sources.mjs';
import { checkCoreOnly, checkMemoryStoreWithoutIoredis } from './core-only-checks.mjs';
import { installApp, writeAppManifest } from './fresh-app.mjs';
import { checkAdmin, checkHealth, checkOpenApi, statusesSeenByFilters } from './plane-checks.mjs';

/** @typedef {ReturnType<typeof import('../support/checks.mjs').createChecks>} Checks */
/** @typedef {import('./matrix.mjs').AppSpec} AppSpec */
/** @typedef {ReturnType<typeof import('./matrix.mjs').appVersions>} Versions */

/**
 * @param {Checks} checks
 * @param {{ app: AppSpec, versions: Versions, tmp: string, root: string, tarball: string,
 *   packageName: string, node: string, nodeVersion: string }} context
 */
export async function runMatrixApp(
  checks,
  { app, versions, tmp, root, tarball, packageName, node, nodeVersion },
) {
  const appDir = join(tmp, app.name);
  await checks.step(
    `${app.name}: npm install ${JSON.stringify(versions.dependencies)}`,
    async () => {
      writeAppManifest(appDir, packageName, tarball, versions, app.flavours[0]);
      await installApp(appDir);
    },
  );
  const readme = readFileSync(join(appDir, 'node_modules', packageName, 'README.md'), 'utf8');
  const files = readmeFiles(readme, app.planes);
  const nestMajor = Number(versions.dependencies['@nestjs/core'].split('.')[0]);
  const tsc = join(appDir, 'node_modules/typescript/bin/tsc');
  for (const flavour of app.flavours) {
    // A second flavour lives in a sub-folder whose package.json says it, and resolves packages
    // from the app's node_modules.
    const dir = flavour === app.flavours[0] ? appDir : join(appDir, flavour);
    const label = `${app.name} ${flavour}`;
    if (dir !== appDir) {
      mkdirSync(dir, { recursive: true });
      writeJson(join(dir, 'package.json'), { private: true, type: flavour });
    }
    writeAppSources(dir, { ...app, flavour, nestMajor }, files, nestNewAppService(root));
    await checks.step(`${label}: tsc`, () =>
      run(node, [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 120_000 }),
    );
    checks.ok(
      true,
      `${label}: the README's ${app.planes} blocks compile (strict, TypeScript ${versions.devDependencies.typescript})`,
    );
    if (app.planes === 'core') {
      await checkCoreOnly(checks, { appDir, dir, flavour, label, node });
      if (dir === appDir) await checkMemoryStoreWithoutIoredis(checks, { appDir, label, node });
    }
    await checks.step(`${label}: run against redis-server on Node ${nodeVersion}`, () =>
      runApp(checks, { app, dir, label, tmp: appDir, node }),
    );
  }
}

/**
 * @param {Checks} checks
 * @param {{ app: AppSpec, dir: string, label: string, tmp: string, node: string }} context
 */
async function runApp(checks, { app, dir, label, tmp, node }) {
  const redis = await startRedis(tmp);
  const token = randomBytes(32).toString('hex');
  const started = await startProcess(node, ['dist/main.js'], {
    cwd: dir,
    env: cleanEnv({
      REDIS_URL: redis.url,
      ADMIN_TOKEN: token,
      NODE_ENV: 'production',
      NO_COLOR: '1',
    }),
    ready: /package-test app listening on port (\d+)/,
    timeoutMs: 30_000,
    label,
  });
  const base = `http://127.0.0.1:${started.match[1]}`;
  const untilOutput = (/** @type {RegExp} */ pattern) =>
    waitForOutput(started.child, started.output, pattern, 5_000);
  try {
    const full = app.planes === 'full';
    if (full) await checkHealth(checks, base, label);
    await checkCoreBlock(checks, { base, redisUrl: redis.url, label, cwd: dir });
    // The guard's 429 goes through the exception filters; a shed one is answered before routing.
    const seen = (
      await statusesSeenByFilters(base, { output: started.output, untilOutput })
    ).filter((status) => status === 429).length;
    checks.ok(
      seen === (full ? 1 : 2),
      full
        ? `${label}: the fifth GET / was shed (shedRememberedRejections): filters saw one 429 of two`
        : `${label}: without the shedder the guard answered both 429s`,
      () => ({ seen, output: started.output().slice(-2000) }),
    );
    if (full) {
      await checkAdmin(checks, { base, token, label });
      await checkOpenApi(checks, base, label);
    }
  } catch (error) {
    // Stopped first: its last lines (the error behind a 500) may still be in the pipe.
    await stopProcess(started.child);
    console.error(`--- ${label} output (last 4 KB):\n${started.output().slice(-4000)}\n---`);
    await stopProcess(redis.child);
    throw error;
  }
  const stopped = await stopProcess(started.child);
  checks.ok(stopped.graceful, `${label}: the app stops on SIGTERM`, () => ({
    ...stopped,
    output: started.output().slice(-2000),
  }));
  await stopProcess(redis.child);
}

/**
 * Resolves once the child's output matches `pattern` (read on each chunk it writes, no polling);
 * rejects after `timeoutMs` or when the child exits first.
 * @param {import('node:child_process').ChildProcess} child @param {() => string} output
 * @param {RegExp} pattern @param {number} timeoutMs @returns {Promise<void>}
 */
function waitForOutput(child, output, pattern, timeoutMs) {
  if (pattern.test(output())) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (/** @type {Error | undefined} */ error) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', exited);
      if (error) reject(error);
      else resolve();
    };
    // The output is collected by a listener added before this one: it already holds the chunk.
    const check = () => pattern.test(output()) && done(undefined);
    const exited = () => done(new Error(`the app exited before printing ${pattern}`));
    const timer = setTimeout(
      () => done(new Error(`the app did not print ${pattern} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', exited);
  });
}
