import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../../policy/rate-limit-algorithm';
import { LUA_DIR, readLuaFile } from './lua-file';
import { RedisScript } from './redis-script';

/** The decide script for every algorithm, and one per algorithm. */
export interface DecideScripts {
  readonly all: RedisScript;
  readonly byAlgorithm: Readonly<Record<RateLimitAlgorithm, RedisScript>>;
}

/**
 * Assembles lua/*.lua into decide scripts: the prelude, the algorithms, then the entry point
 * (Redis runs one chunk per EVAL). Every call re-creates the chunk's functions, so a request
 * whose policies share one algorithm runs the script holding only that algorithm.
 */
export function loadDecideScripts(dir: string = LUA_DIR): DecideScripts {
  const text = Object.fromEntries(
    ['prelude', ...RATE_LIMIT_ALGORITHMS, 'decide'].map((p) => [p, readLuaFile(p, dir)]),
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
