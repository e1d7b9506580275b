import type { INestApplication, Provider, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { RateLimitModuleOptions } from '../../src/config/rate-limit-module-options.interface';
import type { RateLimitConfigError } from '../../src/errors/rate-limit-config.error';
import { RateLimitModule } from '../../src/module/rate-limit.module';

/** What an app under test holds besides the rate limit module (memory store by default). */
export interface BootFixture {
  providers?: Provider[];
  controllers?: Type[];
  options?: RateLimitModuleOptions;
}

/** Builds and initialises an app; closes it again and rethrows when init fails. */
export async function bootApp({
  providers = [],
  controllers = [],
  options = {},
}: BootFixture): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RateLimitModule.forRoot(options)],
    providers,
    controllers,
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** The error the bootstrap fails with (the test fails when it boots). */
export async function bootError(fixture: BootFixture): Promise<RateLimitConfigError> {
  let app: INestApplication | undefined;
  try {
    app = await bootApp(fixture);
  } catch (error) {
    return error as RateLimitConfigError;
  }
  await app.close();
  throw new Error('expected the bootstrap to fail');
}
