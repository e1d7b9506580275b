/**
 * Child process entry: boots one scenario app on a free loopback port and reports the port to
 * the parent over IPC. Exits when the parent says so or disappears.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { prepareOursApp } from './ours-scenarios';
import { scenarioModule } from './scenarios';

async function main(): Promise<void> {
  const scenario = process.argv[2];
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!scenario || !redisUrl) throw new Error('usage: server.js <scenario> (BENCH_REDIS_URL set)');
  const app = await NestFactory.create(scenarioModule(scenario, redisUrl), {
    logger: ['error', 'warn'],
  });
  prepareOursApp(scenario, app);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await app.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') void close();
  });
  process.on('SIGTERM', () => void close());
  process.on('disconnect', () => void close());
  process.send?.({ type: 'ready', port });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
