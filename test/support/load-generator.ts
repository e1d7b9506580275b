/**
 * Drives test/load/burst-generator.ts, compiled on the fly (it uses Node's modules only) and run
 * as a child process: the load comes from a process of its own, as it would in production.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { transformFileSync } from '@swc/core';
import type { BurstCommand, BurstProgress, BurstResult } from '../load/burst-generator';
import { ROOT } from './demo-build';

export type { BurstResult };
export type Burst = Omit<BurstCommand, 'id'>;

export interface LoadGenerator {
  /** Sends a burst; `onProgress` runs once `command.notifyAfter` responses have arrived. */
  burst(command: Burst, onProgress?: () => void): Promise<BurstResult>;
  close(): void;
}

export function startLoadGenerator(): LoadGenerator {
  const { code } = transformFileSync(join(ROOT, 'test', 'load', 'burst-generator.ts'), {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const file = join(mkdtempSync(join(tmpdir(), 'burst-generator-')), 'burst-generator.js');
  writeFileSync(file, code);
  const child: ChildProcess = spawn(process.execPath, [file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  const waiting = new Map<number, (result: BurstResult) => void>();
  const progress = new Map<number, () => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as BurstResult | BurstProgress;
    if ('progress' in message) {
      progress.get(message.id)?.();
      return;
    }
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
    progress.delete(message.id);
  });
  let nextId = 0;
  return {
    burst(command, onProgress) {
      const id = nextId++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        if (onProgress) progress.set(id, onProgress);
        child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
      });
    },
    close() {
      child.stdin!.end();
      child.kill('SIGTERM');
    },
  };
}

let sources = 0;

/** A loopback address no other burst of this process has used: a new client for the limiter. */
export function newSourceAddress(): string {
  const n = sources++;
  return `127.${100 + Math.floor(n / 62_500)}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}
