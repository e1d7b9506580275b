import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../apps/demo/src/app.module';

/** Env-style settings `AppModule.forRoot()` accepts (REDIS_URL, RATE_LIMIT_KEY_PREFIX, ...). */
export type DemoOverrides = Record<string, string | undefined>;

/**
 * One demo instance, initialised but not listening. Several can live in one test process: each
 * gets its own settings (nothing is copied into process.env). Nest's logger is off so that the
 * expected "Redis cannot decide" warnings of fault tests do not flood the output.
 */
export async function createDemoApp(overrides: DemoOverrides): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(overrides)],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}
