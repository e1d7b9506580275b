// @ts-check
/**
 * Child processes for the tools that run the project the way a user does (the package test,
 * the Dockerfile runner): every wait is bounded, every child is tracked and killed on any exit
 * path, and a failure says which command, how long it ran and the tail of what it printed.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */

/** Children still running: `killAll()` ends them however the tool exits. */
const live = new Set();

/**
 * The environment for a child that must behave as on a user's machine: without what `npm run`
 * exports to its scripts (npm_*: a nested npm would take this repo's prefix and config), and
 * without NODE_PATH (which would let the child find this repo's node_modules).
 * @param {Record<string, string>} [extra]
 */
export function cleanEnv(extra = {}) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^npm_/i.test(name) || name === 'NODE_PATH' || name === 'INIT_CWD')
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * @typedef {object} SpawnOptions
 * @property {string} cwd
 * @property {Record<string, string>} [env]
 * @property {number} timeoutMs
 * @property {string} [label]
 */

/**
 * Spawns in its own process group, so a timeout ends the command and everything it started.
 * @param {string} cmd @param {string[]} args @param {SpawnOptions} options
 */
function spawnTracked(cmd, args, { cwd, env }) {
  const child = spawn(cmd, args, {
    cwd,
    env: env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let output = '';
  /** @param {Buffer} chunk */
  const collect = (chunk) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output: () => output };
}

/** @param {ChildProcess} child @param {NodeJS.Signals} signal */
function signalGroup(child, signal) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** @param {string} text */
const tail = (text, lines = 40) => text.trimEnd().split('\n').slice(-lines).join('\n');

/**
 * Runs a command to completion; rejects when it fails or outlives `timeoutMs`.
 * @param {string} cmd @param {string[]} args @param {SpawnOptions} options
 * @returns {Promise<string>} what it printed (the last 20 KB)
 */
export function run(cmd, args, options) {
  const label = options.label ?? [cmd, ...args].join(' ');
  const started = Date.now();
  const { child, output } = spawnTracked(cmd, args, options);
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child, 'SIGKILL');
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${label}: could not start (${error.message})`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      if (code === 0) return resolve(output());
      const why = timedOut
        ? `killed after ${ms} ms: it outlived its timeout of ${options.timeoutMs} ms`
        : `exit code ${code}, signal ${signal}`;
      reject(new Error(`${label} in ${options.cwd}: ${why}\n${tail(output())}`));
    });
  });
}

/**
 * Starts a long-running command and resolves once its output matches `ready` (an event, not a
 * sleep); rejects if it exits first or stays silent past `timeoutMs`.
 * @param {string} cmd @param {string[]} args @param {SpawnOptions & { ready: RegExp }} options
 * @returns {Promise<{ child: ChildProcess, match: RegExpMatchArray, output: () => string }>}
 */
export function startProcess(cmd, args, options) {
  const label = options.label ?? [cmd, ...args].join(' ');
  const { child, output } = spawnTracked(cmd, args, options);
  return new Promise((resolve, reject) => {
    const fail = (/** @type {string} */ why) => {
      clearTimeout(timer);
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${label}: ${why}\n${tail(output())}`));
    };
    const timer = setTimeout(
      () => fail(`not ready within ${options.timeoutMs} ms`),
      options.timeoutMs,
    );
    const check = () => {
      const match = output().match(options.ready);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
      resolve({ child, match, output });
    };
    const onExit = (/** @type {number | null} */ code, /** @type {string | null} */ signal) =>
      fail(`exited before it was ready (code ${code}, signal ${signal})`);
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    child.once('error', (error) => fail(`could not start (${error.message})`));
  });
}

/**
 * SIGTERM, then SIGKILL if it has not exited within `timeoutMs`.
 * @param {ChildProcess} child
 * @returns {Promise<{ code: number | null, signal: string | null, graceful: boolean }>}
 */
export function stopProcess(child, timeoutMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode, graceful: true });
  return new Promise((resolve) => {
    let graceful = true;
    const timer = setTimeout(() => {
      graceful = false;
      signalGroup(child, 'SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, graceful });
    });
    // The process itself, not its group: a graceful shutdown is the child's own to run.
    child.kill('SIGTERM');
  });
}

/** Ends every child still running (synchronous: usable from an exit handler). */
export function killAll() {
  for (const child of live) signalGroup(child, 'SIGKILL');
}

/** A port free on 127.0.0.1 right now (whoever binds it next may still lose a race). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A throwaway `redis-server` (REDIS_SERVER_BIN, else the PATH's) on a free port, persistence off,
 * as libs/rate-limit/test/support/spawn-redis-server.ts starts them; a port lost to a race is
 * retried with another.
 * @param {string} dir where redis may write (nothing is saved)
 * @returns {Promise<{ child: ChildProcess, url: string }>}
 */
export async function startRedis(dir) {
  const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    try {
      const { child } = await startProcess(bin, [...args, '--daemonize', 'no', '--dir', dir], {
        cwd: dir,
        ready: /Ready to accept connections/,
        timeoutMs: 10_000,
        label: `${bin} on port ${port}`,
      });
      return { child, url: `redis://127.0.0.1:${port}` };
    } catch (error) {
      if (attempt >= 5 || !/Address already in use/i.test(String(error))) throw error;
    }
  }
}
