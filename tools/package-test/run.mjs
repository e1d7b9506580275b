// @ts-check
/**
 * `npm run test:package` (after `npm run pack`): the packed tarball as a user gets it. Its files
 * and manifest are checked (tarball.mjs); then each app of the matrix (matrix.mjs: the lowest
 * and the latest version of every supported range, core-only and full, Express and Fastify,
 * CommonJS and ESM) is made in a temporary directory outside the workspace, installs the tarball
 * and its versions, compiles the README's blocks with its own tsconfig and runs them against a
 * redis-server of its own (app-runner.mjs). Apps run two at a time: the machine has two cores,
 * and an install mostly waits on the disk while the other app compiles.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChecks, withDeadline } from '../support/checks.mjs';
import { killAll } from '../support/processes.mjs';
import { runMatrixApp } from './app-runner.mjs';
import { APPS, appVersions, checkCoverage, lockedVersions } from './matrix.mjs';
import { installNode, nodeVersionFor } from './node-versions.mjs';
import { checkInstalledPackage, checkTarballEntries } from './tarball.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACK_DIR = join(root, 'dist/pack');
/** The whole run, installs included: a hang anywhere ends in a failure naming the step. */
const DEADLINE_MS = 5 * 60_000;
/** Apps at once (PACKAGE_TEST_JOBS overrides it). */
const JOBS = Number(process.env.PACKAGE_TEST_JOBS ?? 2);
/** PACKAGE_TEST_APPS=name,name runs only those apps of the matrix (to investigate one). */
const ONLY = process.env.PACKAGE_TEST_APPS?.split(',');

const checks = createChecks('package');
const tmp = mkdtempSync(join(tmpdir(), 'nest-redis-rate-limit-package-'));
let cleaned = false;
function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  killAll();
  // PACKAGE_TEST_KEEP=1 leaves the apps on disk to investigate a failure.
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
  const found = readdirSync(PACK_DIR).filter((name) => name.endsWith('.tgz'));
  if (found.length !== 1)
    throw new Error(
      `expected one .tgz in ${PACK_DIR} (run \`npm run pack\`), found ${found.length}`,
    );
  return join(PACK_DIR, found[0]);
}

async function main() {
  checks.ok(
    relative(root, tmp).startsWith('..'),
    `the apps' directory ${tmp} is outside the workspace`,
  );
  const tarball = findTarball();
  await checks.step(`tarball ${relative(root, tarball)}`, () =>
    checkTarballEntries(checks, tarball, join(root, 'libs/rate-limit/src/store/redis/lua')),
  );
  // Its files as npm unpacks them into an app (the same in every app: checked once).
  const unpacked = join(tmp, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['xzf', tarball, '-C', unpacked]);
  const manifest = checkInstalledPackage(checks, join(unpacked, 'package'));

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

  const peers = manifest.peerDependencies ?? {};
  const resolved = APPS.map((app) => ({ app, versions: appVersions(app, peers, locked) }));
  const missing = checkCoverage(resolved, peers, locked);
  checks.ok(
    missing.length === 0,
    'the matrix installs every range at its lowest and latest, every platform, flavour and plane set',
    () => missing,
  );
  const selected = resolved.filter(({ app }) => !ONLY || ONLY.includes(app.name));
  // Each app on the Node of its column: the lowest `engines` allows, or the newest Node 22.
  const enginesNode = manifest.engines?.node ?? '';
  /** @type {Map<string, Promise<string>>} */
  const nodes = new Map();
  for (const { app } of selected) {
    const version = nodeVersionFor(app.versions, enginesNode);
    if (nodes.has(version)) continue;
    const installed = checks.step(`Node ${version} from the npm registry`, () =>
      installNode(version, tmp),
    );
    // Awaited by its apps; a failure is reported by each of them, never as unhandled.
    installed.catch(() => {});
    nodes.set(version, installed);
  }
  await inParallel(selected, JOBS, async (entry) => {
    try {
      const nodeVersion = nodeVersionFor(entry.app.versions, enginesNode);
      const node = /** @type {string} */ (await nodes.get(nodeVersion));
      const packageName = manifest.name;
      await runMatrixApp(checks, { ...entry, tmp, root, tarball, packageName, node, nodeVersion });
    } catch (error) {
      // One app's failure does not stop the others: every failing app is reported.
      checks.fail(error);
    }
  });
}

/**
 * Runs `work` on every item, at most `jobs` at a time, in the items' order.
 * @template T @param {T[]} items @param {number} jobs @param {(item: T) => Promise<void>} work
 */
async function inParallel(items, jobs, work) {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
}

try {
  await withDeadline(main(), DEADLINE_MS, checks.stage);
} catch (error) {
  checks.fail(error);
}
cleanUp();
const passed = checks.summary();
process.exit(passed ? 0 : 1);
