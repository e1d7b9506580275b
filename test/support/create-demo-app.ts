import type { INestApplication, LoggerService, Type } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../apps/demo/src/app.module';
import { httpPlatform, type HttpPlatform } from '../../apps/demo/src/config/demo-config';
import { demoContexts, prepareDemoContexts } from '../../apps/demo/src/config/demo-contexts';
import {
  createHttpAdapter,
  DEMO_FASTIFY_OPTIONS,
} from '../../apps/demo/src/platform/create-http-app';
import { shedRejectionsIfEnabled } from '../../apps/demo/src/platform/shed-rejections';
import { setupSwagger } from '../../apps/demo/src/swagger';

/** Env-style settings `AppModule.forRoot()` accepts (REDIS_URL, RATE_LIMIT_KEY_PREFIX, ADMIN_TOKEN, ...). */
export type DemoOverrides = Record<string, string | undefined>;

/**
 * The platform the e2e suite runs on: TEST_HTTP_PLATFORM, set by the `e2e-fastify` jest project
 * (tools/jest/fastify-platform.ts); Express otherwise.
 */
export const DEMO_PLATFORM: HttpPlatform = httpPlatform(process.env.TEST_HTTP_PLATFORM);

export interface CreateDemoAppOptions {
  /**
   * The framework's own proxy setting (Express `trust proxy`, Fastify `trustProxy`) set to trust
   * every hop, which the demo never does: the rate limiter must not follow it.
   */
  platformTrustsProxies?: boolean;
  /** Serve Swagger (`/docs`, `/docs-json`) as `main.ts` does. */
  swagger?: boolean;
  /** Nest's logger; off by default. */
  logger?: LoggerService | false;
  /**
   * The HTTP platform, when a test needs one (Mercurius: Fastify; both, to compare them);
   * default DEMO_PLATFORM.
   */
  platform?: HttpPlatform;
  /** Providers to replace (token -> value), as `overrideProvider().useValue()` does. */
  providers?: [token: unknown, value: unknown][];
  /** Controllers to serve beside the demo's, for routes only a test needs. */
  controllers?: Type<unknown>[];
}

/**
 * One demo instance on DEMO_PLATFORM, initialised but not listening. Several can live in one
 * test process: each gets its own settings (nothing is copied into process.env). Nest's logger
 * is off so that the expected "Redis cannot decide" warnings of fault tests do not flood the
 * output. Pass `ADMIN_TOKEN` in `overrides` to call the admin API (otherwise a random one is
 * generated).
 */
export async function createDemoApp(
  overrides: DemoOverrides,
  options: CreateDemoAppOptions = {},
): Promise<INestApplication> {
  let builder = Test.createTestingModule({
    imports: [AppModule.forRoot(overrides)],
    controllers: options.controllers ?? [],
  });
  for (const [token, value] of options.providers ?? []) {
    builder = builder.overrideProvider(token).useValue(value);
  }
  const moduleRef = await builder.compile();
  // The demo's own adapter (and its settings), as main.ts builds it.
  const platform = options.platform ?? DEMO_PLATFORM;
  const app = moduleRef.createNestApplication(httpAdapter(platform, options), {
    logger: options.logger ?? false,
  });
  // The WebSocket adapter and the TCP microservice, as main.ts sets them up.
  prepareDemoContexts(app, demoContexts({ ...process.env, ...overrides, HTTP_PLATFORM: platform }));
  // Before init(): Swagger's routes must come ahead of Nest's not-found handler.
  if (options.swagger) setupSwagger(app);
  // RATE_LIMIT_SHED_REJECTIONS, as main.ts applies it.
  shedRejectionsIfEnabled(app);
  await app.init();
  // Fastify routes requests only once its plugins have loaded; supertest does not listen().
  if (platform === 'fastify') {
    await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  }
  return app;
}

/** The demo's own adapter (and its settings), as main.ts builds it. */
function httpAdapter(platform: HttpPlatform, options: CreateDemoAppOptions): AbstractHttpAdapter {
  if (!options.platformTrustsProxies) return createHttpAdapter(platform);
  if (platform === 'fastify')
    return new FastifyAdapter({ ...DEMO_FASTIFY_OPTIONS, trustProxy: true });
  const express = new ExpressAdapter();
  express.set('trust proxy', true);
  return express;
}
