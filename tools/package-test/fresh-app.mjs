// @ts-check
/**
 * A fresh application outside the workspace that depends on the packed tarball: its package.json
 * (the versions of its matrix entry, see matrix.mjs) and its `npm install`, from the npm cache
 * where it has the packages (CI installs the same versions every run).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../support/processes.mjs';

/**
 * @param {string} dir @param {string} packageName @param {string} tarball
 * @param {{ dependencies: Record<string, string>, devDependencies: Record<string, string> }} versions
 * @param {'commonjs' | 'module'} type the app's own flavour (`"type": "module"` as Nest 12's
 *   `nest new` writes it for ESM)
 */
export function writeAppManifest(dir, packageName, tarball, versions, type) {
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: 'package-test-app',
    version: '0.0.0',
    private: true,
    type,
    dependencies: { ...versions.dependencies, [packageName]: `file:${tarball}` },
    devDependencies: versions.devDependencies,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * `npm install` as a user runs it (peer conflicts fail it: no --legacy-peer-deps), except:
 * `--prefer-offline` takes what the cache has without asking the registry whether it changed
 * (the versions are exact); no lock file is written (nothing reads it); no install scripts run
 * (the package has none, which tarball.mjs checks, and Nest's only print a banner).
 * @param {string} dir @param {string[]} [packages] named packages to add (else package.json's)
 */
export function installApp(dir, packages = []) {
  return run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--ignore-scripts',
      '--loglevel=error',
      ...packages,
    ],
    { cwd: dir, timeoutMs: 150_000, label: `npm install ${packages.join(' ')}`.trim() },
  );
}
