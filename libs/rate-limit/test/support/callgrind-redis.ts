/**
 * A redis-server under valgrind's callgrind that counts only the instructions run inside
 * `evalGenericCommand` (EVAL and EVALSHA: the script, the commands it calls, the reply) and
 * `fcallCommand` (FCALL: the same for a function), not the network or the event loop, and not
 * `lua_gc`: Redis runs a step of Lua's garbage collector inside every 50th script call, whose
 * size depends on where the collector's cycle stands. Forty calls held one such step or none,
 * and one of 240k or of 450k instructions, which moved a count per call by up to 11k between runs
 * of the same code (the collection Lua itself does while a script allocates is still counted).
 * Instruction counts then repeat within a few per cent for the same binary and inputs, whatever
 * else the machine does, so a budget can guard the Lua work per decision in CI.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from './processes/free-port';
import { spawnRedisServer, throwawayServerArgs } from './spawn-redis-server';

const run = promisify(execFile);

export interface CallgrindRedis {
  readonly url: string;
  /** Instructions counted inside EVAL/EVALSHA/FCALL while `work` ran. */
  instructions(work: () => Promise<void>): Promise<number>;
  close(): Promise<void>;
}

export async function startCallgrindRedis(): Promise<CallgrindRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-redis-'));
  const out = join(dir, 'callgrind.out');
  const port = await findFreePort();
  // valgrind's pid is the server's.
  const server = await spawnRedisServer(throwawayServerArgs(port, { dir }), {
    under: [
      'valgrind',
      '--tool=callgrind',
      '--collect-atstart=no',
      '--toggle-collect=evalGenericCommand',
      '--toggle-collect=fcallCommand',
      // Entered inside either command: toggles counting off for its duration.
      '--toggle-collect=lua_gc',
      `--callgrind-out-file=${out}`,
    ],
    timeoutMs: 60_000,
    label: 'redis-server under callgrind',
  });
  const pid = String(server.pid);
  let dumps = 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    async instructions(work) {
      await run('callgrind_control', ['--zero', pid]);
      await work();
      await run('callgrind_control', ['--dump', pid]);
      dumps++;
      const file = readdirSync(dir).find((name) => name === `callgrind.out.${dumps}`);
      if (!file)
        throw new Error(
          `callgrind wrote no dump ${dumps} in ${dir}: ${readdirSync(dir).join(', ')}`,
        );
      const summary = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
      if (!summary) throw new Error(`no instruction total in ${file}`);
      return Number(summary[1]);
    },
    async close() {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
