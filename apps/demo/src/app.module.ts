import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { RateLimitGuard, RateLimitModule } from '@app/rate-limit';
import { RateLimitAdminModule } from '@app/rate-limit/admin';
import { RateLimitHealthModule } from '@app/rate-limit/health';
import { resolveAdminToken } from './admin/admin-token';
import { AlgorithmsController } from './api/algorithms.controller';
import { DEMO_ADAPTIVE_TIERS, LoadTestController } from './api/load-test.controller';
import { PlansController } from './api/plans.controller';
import { ShowcaseController } from './api/showcase.controller';
import { validateDemoEnv, type DemoConfig } from './config/demo-config';
import { demoContexts } from './config/demo-contexts';
import { QuotesGateway } from './gateway/quotes.gateway';
import { demoGraphqlModule } from './graphql/demo-graphql.module';
import { QuotesRpcController } from './microservice/quotes-rpc.controller';
import { MetricsController } from './metrics/metrics.controller';
import { HealthController } from './health/health.controller';
import { demoRedisConnection } from './redis/demo-redis-connection';

/**
 * The demo application. `forRoot(overrides)` lets tests run several instances in one process
 * with their own settings; `npm start` uses the environment alone.
 */
@Module({})
export class AppModule {
  static forRoot(overrides: Record<string, string | undefined> = {}): DynamicModule {
    const loadTestRoutes =
      (overrides.DEMO_LOAD_TEST_ROUTES ?? process.env.DEMO_LOAD_TEST_ROUTES) === 'true';
    const contexts = demoContexts({ ...process.env, ...overrides });
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          validate: (env) => validateDemoEnv({ ...env, ...overrides }),
        }),
        RateLimitModule.forRootAsync({
          inject: [ConfigService],
          useFactory: async (config: ConfigService) => {
            const demo = config.getOrThrow<DemoConfig>('demo');
            return {
              redis: await demoRedisConnection(demo),
              keyPrefix: demo.keyPrefix,
              onRedisError: demo.onRedisError,
              commandTimeoutMs: demo.commandTimeoutMs,
              policyRefreshMs: demo.policyRefreshMs,
              statsFlushMs: demo.statsFlushMs,
              trustProxy: demo.trustProxy,
              ...(demo.adaptive === 'off'
                ? {}
                : {
                    adaptive: {
                      mode: demo.adaptive,
                      tiers: DEMO_ADAPTIVE_TIERS,
                      ...(demo.adaptiveEluTarget === undefined
                        ? {}
                        : { targets: { elu: demo.adaptiveEluTarget } }),
                    },
                  }),
            };
          },
        }),
        RateLimitAdminModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (config: ConfigService) => {
            const demo = config.getOrThrow<DemoConfig>('demo');
            return {
              token: resolveAdminToken(demo),
              failedTokenLimit: { limit: demo.adminFailedTokenLimit, window: '15m' },
            };
          },
          path: 'admin',
        }),
        TerminusModule,
        RateLimitHealthModule,
        ...(contexts.graphql ? [demoGraphqlModule(contexts.graphql)] : []),
      ],
      controllers: [
        AlgorithmsController,
        ShowcaseController,
        PlansController,
        HealthController,
        MetricsController,
        QuotesRpcController,
        ...(loadTestRoutes ? [LoadTestController] : []),
      ],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }, QuotesGateway],
    };
  }
}
