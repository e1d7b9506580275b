/** The parent's side of the load generator: forks it, asks for samples, stops it. */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { stopChild, track } from '../support/processes';
import type { FromGenerator, LoadConfig, LoadSample, ToGenerator } from './protocol';

type Stopped = Extract<FromGenerator, { type: 'stopped' }>;

export interface Generator {
  readonly pid: number | undefined;
  sample(): Promise<LoadSample>;
  /** Stops issuing requests, waits for those in flight; resolves with the totals and check. */
  stop(): Promise<Stopped>;
  kill(): Promise<void>;
}

export async function startGenerator(config: LoadConfig): Promise<Generator> {
  const child: ChildProcess = track(
    fork(join(__dirname, 'load-generator.js'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const next = <T extends FromGenerator['type']>(type: T) =>
    new Promise<Extract<FromGenerator, { type: T }>>((resolve, reject) => {
      const onMessage = (message: FromGenerator) => {
        if (message.type !== type) return;
        cleanup();
        resolve(message as Extract<FromGenerator, { type: T }>);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`load generator exited (code ${code}) while waiting for ${type}`));
      };
      const cleanup = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const post = (message: ToGenerator) => child.send(message);

  const ready = next('ready');
  post({ type: 'start', config });
  await ready;
  return {
    pid: child.pid,
    sample() {
      const reply = next('sample');
      post({ type: 'sample' });
      return reply;
    },
    stop() {
      const reply = next('stopped');
      post({ type: 'stop' });
      return reply;
    },
    kill: () => stopChild(child),
  };
}
