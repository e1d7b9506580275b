import { RATE_LIMIT_ALGORITHMS, type RateLimitAlgorithm } from '../../policy/rate-limit-algorithm';
import { LUA_DIR, readLuaFile } from './lua-file';
import { RedisFunction } from './redis-function';
import { RedisScript } from './redis-script';

/** The decide program (lua/decide.lua), as a library and as scripts. */
export interface DecideScripts {
  /** Every algorithm, as a Redis Functions library: what a server that has them runs. */
  readonly library: RedisFunction;
  /** Every algorithm, as a script (EVALSHA). */
  readonly all: RedisScript;
  /** One algorithm each, as a script. */
  readonly byAlgorithm: Readonly<Record<RateLimitAlgorithm, RedisScript>>;
}

/** The statements of one call, in order, in one scope (see decide-call.lua). */
const CALL = ['decide-call', 'decide-call-entries', 'decide-call-groups'];

/** The function the library registers: one call, from its KEYS and ARGV. */
const ENTRY = 'decide_call';
/** The prelude's declaration of its hot locals, which a script initialises where it declares. */
const HOT_LOCALS =
  'local call, pcall_redis, tonumber, type, floor, ceil, max, min, byte, format, match, sub';

/**
 * Assembles lua/*.lua into the decide program: the prelude, the algorithms, decide.lua (the
 * contract, its constants and helpers), then the statements of one call (decide-call.lua and the
 * two fragments after it; Redis
 * loads one chunk, so nothing can be required). A script runs them at its top level, on its
 * KEYS and ARGV; every EVALSHA re-creates the chunk's functions, so a request whose policies
 * share one algorithm runs the script holding only that one. A library holds every algorithm
 * and registers them as one function, loaded once.
 */
export function loadDecideScripts(dir: string = LUA_DIR): DecideScripts {
  const text = Object.fromEntries(
    ['prelude', ...RATE_LIMIT_ALGORITHMS, 'decide', 'begin-call', ...CALL].map((p) => [
      p,
      readLuaFile(p, dir),
    ]),
  );
  const call = CALL.map((p) => text[p]).join('\n');
  const definitions = (prelude: string, algorithms: readonly string[]): string =>
    [prelude, ...algorithms.map((a) => text[a]), text.decide].join('\n');
  // A script's chunk runs per call: its hot locals are read as they are declared (see
  // prelude.lua), and its state is fresh without begin-call.lua.
  if (!text.prelude.includes(`\n${HOT_LOCALS}\n`)) {
    throw new Error(`lua/prelude.lua: the line "${HOT_LOCALS}" is missing`);
  }
  const scriptPrelude = text.prelude.replace(`\n${HOT_LOCALS}\n`, `\n${HOT_LOCALS} = globals()\n`);
  const script = (name: string, algorithms: readonly string[]): RedisScript =>
    new RedisScript(
      name,
      [definitions(scriptPrelude, algorithms), 'local KEYS, ARGV = KEYS, ARGV', call].join('\n'),
    );
  const byAlgorithm = Object.fromEntries(
    RATE_LIMIT_ALGORITHMS.map((algo) => [algo, script(`decide-${algo}`, [algo])]),
  ) as Record<RateLimitAlgorithm, RedisScript>;
  const library = [
    definitions(text.prelude, RATE_LIMIT_ALGORITHMS),
    `local function ${ENTRY}(KEYS, ARGV)`,
    text['begin-call'],
    call,
    'end',
  ].join('\n');
  return {
    library: new RedisFunction(library, ENTRY),
    all: script('decide', RATE_LIMIT_ALGORITHMS),
    byAlgorithm,
  };
}
