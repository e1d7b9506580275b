/**
 * What a Redis server runs, as MONITOR shows it: the calls its clients make (commands a script
 * runs are shown too, from the source "lua", and left out here), read up to a marker the test
 * echoes, so a count never misses a command still on its way.
 */
import Redis from 'ioredis';
import { loadDecideScripts } from '../../src/store/redis/decide-script';

const scripts = loadDecideScripts();
const DECIDE = [scripts.all, ...Object.values(scripts.byAlgorithm)];

/** The SHA1s of the decide scripts (the combined one and each algorithm's). */
export const DECIDE_SHAS = new Set(DECIDE.map((script) => script.sha1));

/** A call of the decide program: FCALL of its library, or EVALSHA of one of its scripts. */
export const isDecideCall = (args: readonly string[]): boolean =>
  (args[0] === 'fcall' && args[1] === scripts.library.name) ||
  (args[0] === 'evalsha' && DECIDE_SHAS.has(args[1]));

export interface CommandLog {
  /** The calls made since the last `since()` (or the start). */
  since(): Promise<string[][]>;
  close(): void;
}

/**
 * Loads the decide library and scripts as on a server that has run them before (the first call
 * on a server without them costs a "Function not found" and a FUNCTION LOAD more), then watches
 * the server at `url`.
 */
export async function monitorCommands(url: string): Promise<CommandLog> {
  const admin = new Redis(url);
  await admin.call('FUNCTION', 'LOAD', 'REPLACE', scripts.library.source);
  for (const script of DECIDE) await admin.script('LOAD', script.source);
  // monitor() opens a connection of its own: the client it is called on is closed at once.
  const monitorOf = new Redis(url);
  const monitor = await monitorOf.monitor();
  monitorOf.disconnect();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua') seen.push(args);
  });
  return {
    async since() {
      const marker = `marker-${Math.random()}`;
      await admin.echo(marker);
      const isMarker = (args: string[]) => args[0] === 'echo' && args[1] === marker;
      while (!seen.some(isMarker)) {
        await new Promise((resolve) => monitor.once('monitor', resolve));
      }
      const calls = seen.splice(0).filter((args) => !isMarker(args));
      return calls;
    },
    close() {
      monitor.disconnect();
      admin.disconnect();
    },
  };
}
