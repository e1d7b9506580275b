import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs = new Set<string>();
let hooked = false;

/** A temporary directory removed by `removeTempDir` or, at the latest, when the process exits. */
export function makeTempDir(label: string): string {
  if (!hooked) {
    hooked = true;
    process.on('exit', () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  }
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  dirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  dirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}
