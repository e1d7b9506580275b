// @ts-check
/**
 * The Node each app runs on: the lowest the package's `engines` allow for a "lowest" app, the
 * newest Node 22 for a "latest" one (SPEC section 14: Node 20.19+ and 22). Both come from the npm
 * registry as the `node-<platform>-<arch>` package (the official binaries, as the `node` package
 * installs them), into the apps' temporary directory, so the machine's own Node is not involved.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../support/processes.mjs';
import { installApp } from './fresh-app.mjs';
import { lowerBound } from './matrix.mjs';

/** The newest Node 22 on the registry when the matrix was last changed. */
export const NODE_LATEST = '22.23.3';

/**
 * `>=20.19` -> 20.19.0.
 * @param {'latest' | 'lowest'} versions @param {string} enginesRange
 */
export function nodeVersionFor(versions, enginesRange) {
  if (versions === 'latest') return NODE_LATEST;
  const parts = lowerBound(enginesRange).split('.');
  while (parts.length < 3) parts.push('0');
  return parts.join('.');
}

/**
 * Installs Node `version` under `dir` and returns its `node` binary, once it printed `v<version>`.
 * @param {string} version @param {string} dir @returns {Promise<string>}
 */
export async function installNode(version, dir) {
  const name = `node-${process.platform}-${process.arch}`;
  const prefix = join(dir, `node-${version}`);
  mkdirSync(prefix, { recursive: true });
  await installApp(prefix, [`${name}@${version}`]);
  const node = join(prefix, 'node_modules', name, 'bin', 'node');
  const printed = (await run(node, ['--version'], { cwd: dir, timeoutMs: 10_000 })).trim();
  if (printed !== `v${version}`) throw new Error(`${node} printed ${printed}, not v${version}`);
  return node;
}
