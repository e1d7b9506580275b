// @ts-check
/**
 * A core-only app installs the package and ioredis beside Nest and nothing else: the planes'
 * peers must be absent (npm installs none of them unasked, and the core runs without them), and
 * importing a plane that needs one fails at once naming what to install.
 */
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../support/processes.mjs';
import { PLANE_PEERS } from './matrix.mjs';

/** What each entry point needs besides the core's peers: what its error must name. */
const ENTRY_POINT_PEERS = {
  'nest-redis-rate-limit': [],
  'nest-redis-rate-limit/admin': ['@nestjs/swagger', 'class-validator', 'class-transformer'],
  'nest-redis-rate-limit/health': ['@nestjs/terminus'],
  'nest-redis-rate-limit/openapi': ['@nestjs/swagger'],
  'nest-redis-rate-limit/shedder': [],
};

/** Loads each entry point in turn, as the flavour's own code would, and prints what happened. */
const LOADER = {
  commonjs: `const r = {}; for (const e of ${JSON.stringify(Object.keys(ENTRY_POINT_PEERS))}) {
  try { require(e); r[e] = null; } catch (error) { r[e] = String(error.message); } }
console.log(JSON.stringify(r));`,
  module: `const r = {}; for (const e of ${JSON.stringify(Object.keys(ENTRY_POINT_PEERS))}) {
  try { await import(e); r[e] = null; } catch (error) { r[e] = String(error.message); } }
console.log(JSON.stringify(r));`,
};

/**
 * An app on the memory store (no `redis` option), as README says needs no ioredis: the module
 * starts and `RateLimiterService` decides (1 a minute: allowed, then rejected, from memory).
 * CommonJS whatever the app's flavour: what is checked is which packages the core loads.
 */
const MEMORY_APP = `const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { RateLimitModule, RateLimiterService } = require('nest-redis-rate-limit');
class AppModule {}
Module({ imports: [RateLimitModule.forRoot({ policies: [{ name: 'memory', limit: 1, window: '1m' }] })] })(AppModule);
(async () => {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const limiter = app.get(RateLimiterService);
  const decisions = [await limiter.consume('memory', 'a'), await limiter.consume('memory', 'a')];
  await app.close();
  console.log(JSON.stringify(decisions.map(({ allowed, source }) => ({ allowed, source }))));
})();`;

/**
 * @param {ReturnType<typeof import('../support/checks.mjs').createChecks>} checks
 * @param {{ appDir: string, dir: string, flavour: 'commonjs' | 'module', label: string,
 *   node: string }} app
 */
export async function checkCoreOnly(checks, { appDir, dir, flavour, label, node }) {
  const present = PLANE_PEERS.filter((name) => existsSync(join(appDir, 'node_modules', name)));
  checks.ok(
    present.length === 0,
    `${label}: none of ${PLANE_PEERS.join(', ')} is in node_modules`,
    () => present,
  );
  const args = flavour === 'module' ? ['--input-type=module', '-e'] : ['-e'];
  const printed = await run(node, [...args, LOADER[flavour]], {
    cwd: dir,
    timeoutMs: 30_000,
    label: `${label}: loading each entry point`,
  });
  /** @type {Record<string, string | null>} */
  const errors = JSON.parse(printed.trim().split('\n').pop() ?? '{}');
  for (const [entry, peers] of Object.entries(ENTRY_POINT_PEERS)) {
    const error = errors[entry];
    if (peers.length === 0) {
      checks.ok(error === null, `${label}: ${entry} loads without the planes' peers`, () => error);
      continue;
    }
    // The message names the entry point and ends with the command that installs exactly those.
    checks.ok(
      typeof error === 'string' &&
        error.startsWith(`${entry} needs `) &&
        error.endsWith(`npm install ${peers.join(' ')}`),
      `${label}: importing ${entry} fails at once: "${entry} needs ... npm install ${peers.join(' ')}"`,
      () => error,
    );
  }
}

/**
 * Runs MEMORY_APP with the app's ioredis moved aside (and back, whatever happens: the app runs
 * on Redis next).
 * @param {ReturnType<typeof import('../support/checks.mjs').createChecks>} checks
 * @param {{ appDir: string, label: string, node: string }} app
 */
export async function checkMemoryStoreWithoutIoredis(checks, { appDir, label, node }) {
  const ioredis = join(appDir, 'node_modules/ioredis');
  const aside = join(appDir, 'node_modules/.ioredis-aside');
  renameSync(ioredis, aside);
  let printed;
  try {
    printed = await run(node, ['-e', MEMORY_APP], {
      cwd: appDir,
      timeoutMs: 30_000,
      label: `${label}: the memory store without ioredis`,
    });
  } finally {
    renameSync(aside, ioredis);
  }
  const decisions = JSON.parse(printed.trim().split('\n').pop() ?? '[]');
  checks.ok(
    JSON.stringify(decisions) ===
      JSON.stringify([
        { allowed: true, source: 'memory' },
        { allowed: false, source: 'memory' },
      ]),
    `${label}: without ioredis installed, the memory store (no \`redis\`) starts and decides`,
    () => decisions,
  );
}
