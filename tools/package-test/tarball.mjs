// @ts-check
/**
 * What the packed tarball must hold, and must not: read from the tarball itself (`tar tzf`) and
 * from its installed copy, so a change to `files`, the build or tsconfig.lib.json that drops an
 * asset or ships a test is caught before a user installs it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Files a user's app needs at run time or to compile, besides the compiled code. */
const REQUIRED = [
  'package.json',
  'README.md',
  'LICENSE',
  'index.js',
  'index.d.ts',
  'dashboard/ui/index.html',
];

/** The entry points of the `exports` map: the core and each plane. */
const ENTRY_POINTS = ['.', './admin', './health', './openapi', './shedder'];

/** Peers an app may leave out: everything but what every Nest app has. */
const OPTIONAL_PEERS = [
  'ioredis',
  '@nestjs/swagger',
  '@nestjs/terminus',
  'class-validator',
  'class-transformer',
  '@nestjs/graphql',
  '@nestjs/websockets',
  '@nestjs/microservices',
];

/** What a published package must not carry. */
const FORBIDDEN = [
  { pattern: /\.(int-|e2e-)?spec\.[cm]?[jt]s$/, why: 'tests' },
  { pattern: /(^|\/)(test|tests|__tests__)\//, why: 'test folders' },
  { pattern: /\.tsbuildinfo$/, why: 'compiler caches' },
  { pattern: /\.map$/, why: 'source maps (they point at sources the package does not ship)' },
  { pattern: /(?<!\.d)\.ts$/, why: 'TypeScript sources' },
  { pattern: /(^|\/)node_modules\//, why: 'installed dependencies' },
];

/**
 * Checks the entries of `tgz` against the rules above and the library's own Lua sources.
 * @param {ReturnType<typeof import('../support/checks.mjs').createChecks>} checks
 * @param {string} tgz @param {string} luaSourceDir
 * @returns {string[]} the entries, without the `package/` prefix
 */
export function checkTarballEntries(checks, tgz, luaSourceDir) {
  const entries = execFileSync('tar', ['tzf', tgz], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''));
  const has = new Set(entries);
  const missing = REQUIRED.filter((file) => !has.has(file));
  checks.ok(missing.length === 0, `tarball holds ${REQUIRED.join(', ')}`, () => missing);
  const lua = readdirSync(luaSourceDir).filter((file) => file.endsWith('.lua'));
  const missingLua = lua.filter((file) => !has.has(`store/redis/lua/${file}`));
  checks.ok(
    missingLua.length === 0 && lua.length > 0,
    `tarball holds all ${lua.length} Lua scripts`,
    () => missingLua,
  );
  const assets = entries.filter((file) => /^dashboard\/ui\/assets\/.+\.(js|css)$/.test(file));
  checks.ok(
    assets.length >= 2,
    "tarball holds the dashboard's built script and styles",
    () => assets,
  );
  for (const { pattern, why } of FORBIDDEN) {
    const found = entries.filter((file) => pattern.test(file));
    checks.ok(found.length === 0, `tarball holds no ${why}`, () => found.slice(0, 10));
  }
  const untyped = entries.filter(
    (file) =>
      file.endsWith('.js') &&
      !file.startsWith('dashboard/') &&
      !has.has(file.replace(/\.js$/, '.d.ts')),
  );
  checks.ok(untyped.length === 0, 'every compiled module has its .d.ts', () =>
    untyped.slice(0, 10),
  );
  return entries;
}

/**
 * Checks the installed package: its manifest (exports map, peers, no dev-only fields) and that
 * no compiled file names a source map or file that is not there.
 * @param {ReturnType<typeof import('../support/checks.mjs').createChecks>} checks
 * @param {string} installed node_modules/<package>
 */
export function checkInstalledPackage(checks, installed) {
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  const exports = manifest.exports ?? {};
  for (const entry of ENTRY_POINTS) {
    const target = exports[entry];
    const base = entry === '.' ? './index' : `${entry}/index`;
    checks.ok(
      target?.types === `${base}.d.ts` &&
        target?.require === `${base}.js` &&
        target?.default === `${base}.js` &&
        // Conditions are matched in order: `types` must come first or TypeScript never reads it.
        Object.keys(target)[0] === 'types' &&
        existsSync(join(installed, `${base}.js`)) &&
        existsSync(join(installed, `${base}.d.ts`)),
      `exports["${entry}"] maps types (first), require and default to ${base}.js and .d.ts, present`,
      () => exports,
    );
  }
  checks.ok(
    exports['./package.json'] === './package.json',
    'exports["./package.json"] is present',
    () => exports,
  );
  const optional = Object.keys(manifest.peerDependencies ?? {}).filter(
    (peer) => manifest.peerDependenciesMeta?.[peer]?.optional === true,
  );
  checks.ok(
    OPTIONAL_PEERS.every((peer) => optional.includes(peer)) &&
      optional.every((peer) => OPTIONAL_PEERS.includes(peer)),
    `the optional peers are exactly ${OPTIONAL_PEERS.join(', ')}`,
    () => ({ optional, meta: manifest.peerDependenciesMeta }),
  );
  // The README's peer table is what users install from: one row per peer, with its range.
  const readme = readFileSync(join(installed, 'README.md'), 'utf8');
  const unlisted = Object.entries(manifest.peerDependencies ?? {})
    // A `|` in a table cell is written `\|`, even inside a code span.
    .filter(
      ([name, range]) => !readme.includes(`| \`${name}\` | \`${range.replaceAll('|', '\\|')}\` |`),
    )
    .map(([name, range]) => `${name} ${range}`);
  checks.ok(
    unlisted.length === 0,
    "the README's peer table lists every peer and its range",
    () => unlisted,
  );
  checks.ok(
    !manifest.devDependencies && !manifest.scripts,
    'the manifest has no devDependencies or scripts',
    () => manifest,
  );
  /** @type {string[]} */
  const dangling = [];
  for (const file of filesUnder(installed).filter((path) => path.endsWith('.js'))) {
    const reference = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, 'utf8'))?.[1];
    if (reference && !reference.startsWith('data:') && !existsSync(join(dirname(file), reference)))
      dangling.push(relative(installed, file));
  }
  checks.ok(dangling.length === 0, 'no compiled file refers to a missing source map', () =>
    dangling.slice(0, 10),
  );
  return manifest;
}

/** @param {string} dir @returns {string[]} */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
