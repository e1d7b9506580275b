/**
 * Inspecting test Redis servers from outside the code under test: one command on a short-lived
 * connection, polling until a condition holds, and `redis-cli` (cluster creation).
 */
import { execFile } from 'node:child_process';
import { Redis } from 'ioredis';

/** One command on a short-lived connection (no retries): for polling and inspection. */
export async function redisCommand(
  port: number,
  command: string,
  args: (string | number)[] = [],
  options: { password?: string; timeoutMs?: number } = {},
): Promise<unknown> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    password: options.password,
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: options.timeoutMs ?? 1_000,
    commandTimeout: options.timeoutMs ?? 1_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

/** Polls `probe` every `intervalMs` until it returns a value other than undefined. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}` +
          (lastError ? ` (last error: ${(lastError as Error).message})` : ''),
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function runRedisCli(args: string[], timeoutMs = 30_000): Promise<string> {
  const bin = process.env.REDIS_CLI_BIN ?? 'redis-cli';
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new Error(`redis-cli ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`),
          );
        } else {
          resolve(stdout + stderr);
        }
      },
    );
  });
}
