// @ts-check
/**
 * `npm run test:package` (after `npm run pack`): the packed tarball as a user gets it. A fresh
 * Nest app in a temporary directory outside the workspace installs the tarball and its peers
 * from the registry, is compiled by tsc (the package's types) in its CommonJS and ESM flavours,
 * and each runs as its own node process against its own redis-server (see app-checks.mjs).
 *
 * PACKAGE_TEST_PEERS=lowest installs each required peer at its range's lower bound instead of
 * the root lock's version, to check that the declared ranges are not too wide.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChecks, withDeadline } from '../support/checks.mjs';
import {
  cleanEnv,
  killAll,
  run,
  startProcess,
  startRedis,
  stopProcess,
} from '../support/processes.mjs';
import { checkApp } from './app-checks.mjs';
import {
  appDependencies,
  lockedVersions,
  testedReadmeBlock,
  writeAppManifest,
  writeAppSources,
} from './fresh-app.mjs';
import { checkInstalledPackage, checkTarballEntries } from './tarball.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACK_DIR = join(root, 'dist/pack');
/** The whole run, install included: a hang anywhere ends in a failure naming the step. */
const DEADLINE_MS = 6 * 60_000;
const lowest = process.env.PACKAGE_TEST_PEERS === 'lowest';

const checks = createChecks('package');
const tmp = mkdtempSync(join(tmpdir(), 'nest-redis-rate-limit-package-'));
let cleaned = false;
function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  killAll();
  // PACKAGE_TEST_KEEP=1 leaves the app on disk to investigate a failure.
  if (process.env.PACKAGE_TEST_KEEP) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM']))
  process.on(signal, () => {
    cleanUp();
    process.exit(1);
  });

function findTarball() {
  const found = readdirSync(PACK_DIR, { withFileTypes: true }).filter((entry) =>
    entry.name.endsWith('.tgz'),
  );
  if (found.length !== 1)
    throw new Error(
      `expected one .tgz in ${PACK_DIR} (run \`npm run pack\`), found ${found.length}`,
    );
  return join(PACK_DIR, found[0].name);
}

async function main() {
  const outside = relative(root, tmp).startsWith('..');
  checks.ok(outside, `the app's directory ${tmp} is outside the workspace`, () => tmp);
  const tarball = findTarball();
  await checks.step(`tarball ${relative(root, tarball)}`, () =>
    checkTarballEntries(checks, tarball, join(root, 'libs/rate-limit/src/store/redis/lua')),
  );
  const manifest = JSON.parse(execTar(tarball, 'package/package.json'));
  const requiredPeers = Object.fromEntries(
    Object.entries(manifest.peerDependencies ?? {}).filter(
      ([name]) => !manifest.peerDependenciesMeta?.[name]?.optional,
    ),
  );

  // The library's own dependencies are what the repo's tests ran: `^` of the root lock's version.
  const locked = lockedVersions(join(root, 'package-lock.json'));
  const drifted = Object.entries(manifest.dependencies ?? {})
    .filter(([name, range]) => range !== `^${locked(name)}`)
    .map(([name, range]) => `${name} ${range} (lock: ${locked(name)})`);
  checks.ok(
    drifted.length === 0,
    "dependency ranges are ^ the root lock's versions",
    () => drifted,
  );

  const appDir = join(tmp, 'app');
  const versions = appDependencies(join(root, 'package-lock.json'), requiredPeers, { lowest });
  await checks.step(
    `npm install (${lowest ? 'lowest peer versions' : 'versions of the root lock'})`,
    async () => {
      console.log(`  ${JSON.stringify(versions.dependencies)}`);
      writeAppManifest(appDir, manifest.name, tarball, versions);
      await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: appDir, timeoutMs: 240_000 });
    },
  );
  const installed = join(appDir, 'node_modules', manifest.name);
  checkInstalledPackage(checks, installed);

  const appModule = testedReadmeBlock(readFileSync(join(installed, 'README.md'), 'utf8'));
  const flavours = /** @type {const} */ ([
    { flavour: 'commonjs', dir: appDir },
    { flavour: 'module', dir: join(appDir, 'esm') },
  ]);
  const tsc = join(appDir, 'node_modules/typescript/bin/tsc');
  for (const { flavour, dir } of flavours) {
    writeAppSources(dir, flavour, appModule);
    await checks.step(`tsc (${flavour})`, () =>
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 120_000 }),
    );
    checks.ok(
      true,
      `${flavour}: the README's module compiles against the installed types (strict)`,
    );
  }
  for (const { flavour, dir } of flavours)
    await checks.step(`${flavour}: run against redis-server`, () => runApp(flavour, dir));
}

/** One file of the tarball, read without unpacking it. @param {string} tarball @param {string} entry */
function execTar(tarball, entry) {
  return execFileSync('tar', ['xzOf', tarball, entry], { encoding: 'utf8' });
}

/** @param {'commonjs' | 'module'} flavour @param {string} dir */
async function runApp(flavour, dir) {
  const redis = await startRedis(tmp);
  const token = randomBytes(32).toString('hex');
  const app = await startProcess(process.execPath, ['dist/main.js'], {
    cwd: dir,
    env: cleanEnv({
      REDIS_URL: redis.url,
      ADMIN_TOKEN: token,
      NODE_ENV: 'production',
      NO_COLOR: '1',
    }),
    ready: /package-test app listening on port (\d+)/,
    timeoutMs: 30_000,
    label: `${flavour} app`,
  });
  const base = `http://127.0.0.1:${app.match[1]}`;
  try {
    await checkApp(checks, { base, token, redisUrl: redis.url, label: flavour, cwd: dir });
  } catch (error) {
    // Stopped first: its last lines (the error behind a 500) may still be in the pipe.
    await stopProcess(app.child);
    console.error(`--- ${flavour} app output (last 4 KB):\n${app.output().slice(-4000)}\n---`);
    throw error;
  }
  const stopped = await stopProcess(app.child);
  checks.ok(stopped.graceful, `${flavour}: the app stops on SIGTERM`, () => ({
    ...stopped,
    output: app.output().slice(-2000),
  }));
  await stopProcess(redis.child);
}

try {
  await withDeadline(main(), DEADLINE_MS, checks.stage);
} catch (error) {
  checks.fail(error);
}
cleanUp();
const passed = checks.summary();
process.exit(passed ? 0 : 1);
