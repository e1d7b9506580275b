import type { INestApplication } from '@nestjs/common';
import { untilReady } from '../../support/redis-readiness';
import { startTestRedis, type TestRedis } from '../../support/redis-test-server';
import { UnhandledRejections } from '../fixtures/unhandled-rejections';

/**
 * The file's own redis-server, which its tests stop or pause; after each test it is brought
 * back up (a failed test must not leave Redis down for the next one) and the apps' clients are
 * ready again. Unhandled rejections are recorded for the whole file, and the figures each test
 * adds are printed at the end.
 */
export function useFaultyRedis(label: string): {
  redis(): TestRedis;
  /** Stops (`stop`) or freezes (`pause`) the server until `recover()` or the end of the test. */
  fault(kind: 'stop' | 'pause'): Promise<void>;
  recover(): Promise<void>;
  /** Apps whose clients must be ready again after each test, until `release()`d. */
  use(...apps: INestApplication[]): void;
  /** Closes the apps (in afterAll of the describe that started them). */
  release(...apps: (INestApplication | undefined)[]): Promise<void>;
  figures: string[];
  rejections: UnhandledRejections;
} {
  let redis: TestRedis | undefined;
  let state: 'up' | 'stopped' | 'paused' = 'up';
  const rejections = new UnhandledRejections();
  const figures: string[] = [];
  const apps = new Set<INestApplication>();
  const recover = async () => {
    if (state === 'paused') await redis!.resume();
    if (state === 'stopped') await redis!.restart();
    state = 'up';
  };

  beforeAll(async () => {
    rejections.install();
    redis = await startTestRedis();
  });
  afterEach(async () => {
    await recover();
    await Promise.all([...apps].map((app) => untilReady(app)));
  });
  afterAll(async () => {
    rejections.uninstall();
    await redis?.close();
    console.log(`${label}:\n${figures.join('\n')}`);
  });

  return {
    redis: () => redis!,
    async fault(kind) {
      if (kind === 'stop') await redis!.stop();
      else await redis!.pause();
      state = kind === 'stop' ? 'stopped' : 'paused';
    },
    recover,
    use: (...used) => used.forEach((app) => apps.add(app)),
    async release(...released) {
      for (const app of released) if (app) apps.delete(app);
      await Promise.all(released.map((app) => app?.close()));
    },
    figures,
    rejections,
  };
}
