/**
 * A redis-server the benchmark owns: spawned on a free 127.0.0.1 port with persistence off
 * (as test/support/redis-test-server.ts does), stopped at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { stopChild, track } from './processes';
import { findFreePort } from '../../test/support/redis-test-server';

export interface BenchRedis {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

const READY = /Ready to accept connections/;

export { findFreePort };

function spawnRedis(port: number): Promise<ChildProcess> {
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const argv = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  argv.push('--daemonize', 'no', '--dir', tmpdir());
  const child = track(spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let log = '';
  const collect = (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-8_000));
  child.stderr?.on('data', collect);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else resolve(child);
    };
    const timer = setTimeout(() => finish(new Error(`redis-server not ready:\n${log}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      collect(chunk);
      if (READY.test(log)) finish();
    });
    child.once('error', (error: NodeJS.ErrnoException) =>
      finish(
        error.code === 'ENOENT'
          ? new Error(`'${bin}' not found on PATH (apt-get install redis-server)`)
          : error,
      ),
    );
    child.once('exit', (code, signal) =>
      finish(new Error(`redis-server exited (code ${code}, signal ${signal}):\n${log}`)),
    );
  });
}

export async function startRedis(): Promise<BenchRedis> {
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort();
    try {
      const child = await spawnRedis(port);
      return { url: `redis://127.0.0.1:${port}`, port, stop: () => stopChild(child) };
    } catch (error) {
      // Another process took the port between findFreePort() and bind(): try another.
      if (attempt >= 5 || !/Address already in use/i.test(String(error))) throw error;
    }
  }
}
