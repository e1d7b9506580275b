// @ts-check
/**
 * The apps the package test installs the tarball into: not every product of the supported
 * values, but every value at least once (`checkCoverage`), with one app at the lowest version of
 * every range and one at the latest. "latest" is what the root package-lock.json installed (the
 * versions every other test runs against); "lowest" is the lower bound of the package's peer range
 * (for `a || b`, of `a`), the Nest platform adapter following @nestjs/core.
 */
import { readFileSync } from 'node:fs';

/**
 * @typedef {'commonjs' | 'module'} Flavour
 * @typedef {object} AppSpec
 * @property {string} name
 * @property {'latest' | 'lowest'} versions
 * @property {'core' | 'full'} planes core: the core entry point alone, the planes' peers absent;
 *   full: admin API and dashboard, health, OpenAPI and the shedder
 * @property {'express' | 'fastify'} platform
 * @property {Flavour[]} flavours each compiled and run from the same node_modules
 * @property {string} [nest] a floor above the range's lower bound, and why (`nestFloorWhy`)
 */

/**
 * @nestjs/platform-fastify 11.0.0 and 11.0.1 declare peers on Nest ^10 (npm refuses them beside
 * Nest 11; there is no 11.0.2), and @nestjs/swagger 11.0.0 needs Nest ^11.0.1: 11.0.3 is the
 * lowest Nest 11 a Fastify app with Swagger installs. Nest 11.0.0 itself runs in `core-lowest`.
 */
const FASTIFY_NEST_11_FLOOR = '11.0.3';

/** @type {AppSpec[]} */
export const APPS = [
  {
    name: 'full-latest',
    versions: 'latest',
    planes: 'full',
    platform: 'express',
    flavours: ['commonjs', 'module'],
  },
  {
    name: 'full-lowest',
    versions: 'lowest',
    planes: 'full',
    platform: 'fastify',
    flavours: ['commonjs', 'module'],
    nest: FASTIFY_NEST_11_FLOOR,
  },
  {
    name: 'core-latest',
    versions: 'latest',
    planes: 'core',
    platform: 'fastify',
    flavours: ['module'],
  },
  {
    name: 'core-lowest',
    versions: 'lowest',
    planes: 'core',
    platform: 'express',
    flavours: ['commonjs'],
  },
];

/** The optional peers only the planes need: absent from a core app's node_modules. */
export const PLANE_PEERS = [
  '@nestjs/swagger',
  '@nestjs/terminus',
  'class-validator',
  'class-transformer',
];

/**
 * Optional peers no app installs: the contexts they serve (GraphQL, gateways, microservices)
 * need an app of their own each, and have e2e tests in the repo at the lock's versions.
 */
export const UNTESTED_PEERS = ['@nestjs/graphql', '@nestjs/websockets', '@nestjs/microservices'];

/**
 * Not peers of the package, but what the app needs besides: the Fastify adapter's static files
 * for Swagger's UI (at its lowest, @nestjs/swagger 11.0.0's peer range `^8.0.0`), and the
 * compiler: Nest 11's `nest new` installs TypeScript ^5.7.3, Nest 12's the root lock's.
 */
const LOWEST_EXTRAS = { '@fastify/static': '8.0.0', typescript: '5.7.3' };

/**
 * The version the root package-lock.json installed, by package name.
 * @param {string} lockFile
 */
export function lockedVersions(lockFile) {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  return (/** @type {string} */ name) => {
    const version = lock.packages?.[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`${name} is not in ${lockFile}: add it to the root package.json`);
    return /** @type {string} */ (version);
  };
}

/** `^11.0.0 || ^12.0.1` -> 11.0.0: the first alternative's bound (they are written in order). */
export const lowerBound = (/** @type {string} */ range) =>
  range
    .split('||')[0]
    .trim()
    .replace(/^[\^~>=\s]+/, '')
    .split(/\s/)[0];

/**
 * The app's dependencies and devDependencies (the tarball is added by the caller).
 * @param {AppSpec} app @param {Record<string, string>} peers the package's peerDependencies
 * @param {(name: string) => string} locked
 */
export function appVersions(app, peers, locked) {
  const lowest = app.versions === 'lowest';
  const pick = (/** @type {string} */ name) =>
    lowest && peers[name] ? lowerBound(peers[name]) : locked(name);
  const nest = lowest && app.nest ? app.nest : pick('@nestjs/core');
  const adapter = `@nestjs/platform-${app.platform}`;
  /** @type {Record<string, string>} */
  const dependencies = {
    '@nestjs/common': lowest && app.nest ? app.nest : pick('@nestjs/common'),
    '@nestjs/core': nest,
    // The adapter is released with @nestjs/core; the latest is the lock's (a patch of core's can
    // exist without one of the adapter's).
    [adapter]: lowest ? nest : locked(adapter),
    'reflect-metadata': pick('reflect-metadata'),
    rxjs: pick('rxjs'),
    ioredis: pick('ioredis'),
  };
  if (app.planes === 'full') {
    for (const name of PLANE_PEERS) dependencies[name] = pick(name);
    if (app.platform === 'fastify')
      dependencies['@fastify/static'] = lowest
        ? LOWEST_EXTRAS['@fastify/static']
        : locked('@fastify/static');
  }
  const devDependencies = {
    typescript: lowest ? LOWEST_EXTRAS.typescript : locked('typescript'),
    '@types/node': locked('@types/node'),
  };
  return { dependencies, devDependencies };
}

/**
 * Fails unless every value of every dimension is some app's, and every range's lower bound and
 * latest version is installed by some app: the matrix proves what the README claims.
 * @param {{ app: AppSpec, versions: ReturnType<typeof appVersions> }[]} resolved
 * @param {Record<string, string>} peers @param {(name: string) => string} locked
 * @returns {string[]} what is missing
 */
export function checkCoverage(resolved, peers, locked) {
  const missing = [];
  const values = {
    versions: ['latest', 'lowest'],
    planes: ['core', 'full'],
    platform: ['express', 'fastify'],
  };
  for (const [dimension, wanted] of Object.entries(values))
    for (const value of wanted)
      if (!resolved.some(({ app }) => /** @type {any} */ (app)[dimension] === value))
        missing.push(`${dimension} ${value}`);
  for (const flavour of ['commonjs', 'module'])
    if (!resolved.some(({ app }) => app.flavours.includes(/** @type {Flavour} */ (flavour))))
      missing.push(`flavour ${flavour}`);
  for (const [name, range] of Object.entries(peers)) {
    const installed = resolved.map(({ versions }) => versions.dependencies[name]).filter(Boolean);
    if (installed.length === 0) {
      if (!UNTESTED_PEERS.includes(name)) missing.push(`${name}: installed by no app`);
      continue;
    }
    for (const version of [lowerBound(range), locked(name)])
      if (!installed.includes(version)) missing.push(`${name} ${version}`);
  }
  return missing;
}
