import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../../policy/rate-limit-algorithm';
import { RedisScript } from './redis-script';

/** The decide script for every algorithm, and one per algorithm. */
export interface DecideScripts {
  readonly all: RedisScript;
  readonly byAlgorithm: Readonly<Record<RateLimitAlgorithm, RedisScript>>;
}

function readPart(dir: string, part: string): string {
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
}

/**
 * Assembles lua/*.lua into decide scripts: the prelude, the algorithms, then the entry point
 * (Redis runs one chunk per EVAL). Every call re-creates the chunk's functions, so a request
 * whose policies share one algorithm runs the script holding only that algorithm.
 */
export function loadDecideScripts(dir: string = join(__dirname, 'lua')): DecideScripts {
  const text = Object.fromEntries(
    ['prelude', ...RATE_LIMIT_ALGORITHMS, 'decide'].map((p) => [p, readPart(dir, p)]),
  );
  const assemble = (algorithms: readonly string[]): string =>
    [text.prelude, ...algorithms.map((a) => text[a]), text.decide].join('\n');
  const byAlgorithm = Object.fromEntries(
    RATE_LIMIT_ALGORITHMS.map((algo) => [
      algo,
      new RedisScript(`decide-${algo}`, assemble([algo])),
    ]),
  ) as Record<RateLimitAlgorithm, RedisScript>;
  return { all: new RedisScript('decide', assemble(RATE_LIMIT_ALGORITHMS)), byAlgorithm };
}
