import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIBRARY_VERSION } from './version';

it('LIBRARY_VERSION is the package version', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
  expect(LIBRARY_VERSION).toBe(pkg.version);
});
