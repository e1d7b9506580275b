import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../apps/demo/src/app.module';
import { setupSwagger } from '../../apps/demo/src/swagger';

/** Env-style settings `AppModule.forRoot()` accepts (REDIS_URL, RATE_LIMIT_KEY_PREFIX, ADMIN_TOKEN, ...). */
export type DemoOverrides = Record<string, string | undefined>;

export interface CreateDemoAppOptions {
  /** Serve Swagger (`/docs`, `/docs-json`) as `main.ts` does. */
  swagger?: boolean;
}

/**
 * One demo instance, initialised but not listening. Several can live in one test process: each
 * gets its own settings (nothing is copied into process.env). Nest's logger is off so that the
 * expected "Redis cannot decide" warnings of fault tests do not flood the output. Pass
 * `ADMIN_TOKEN` in `overrides` to call the admin API (otherwise a random one is generated).
 */
export async function createDemoApp(
  overrides: DemoOverrides,
  options: CreateDemoAppOptions = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(overrides)],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  // Before init(): Swagger's routes must come ahead of Nest's not-found handler.
  if (options.swagger) setupSwagger(app);
  await app.init();
  return app;
}
