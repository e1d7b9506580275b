import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RATE_LIMIT_ALGORITHMS } from '../../policy/rate-limit-algorithm';
import { RedisScript } from './redis-script';

/** The prelude, one file per algorithm, then the entry point: Redis runs one chunk per EVAL. */
const PARTS = ['prelude', ...RATE_LIMIT_ALGORITHMS, 'decide'];

/** Assembles lua/*.lua into the one script that decides every algorithm. */
export function loadDecideScript(dir: string = join(__dirname, 'lua')): RedisScript {
  const source = PARTS.map((part) => {
    const path = join(dir, `${part}.lua`);
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(
        `Rate limit Lua script missing: ${path} (was the build's asset copy skipped?)`,
        {
          cause: error,
        },
      );
    }
  }).join('\n');
  return new RedisScript('decide', source);
}
