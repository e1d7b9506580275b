import { Module } from '@nestjs/common';
import { ADMIN_PLANE_PROVIDERS } from './admin-plane.providers';
import { ADMIN_TOKEN_DIGEST, adminTokenDigest } from './admin-token';
import { AdminTokenGuard } from './admin-token.guard';
import { ClientOverridesAdmin } from './client-overrides-admin';
import { FailedTokenLimiter } from './failed-token-limiter';
import { PolicyKeys } from './policy-keys';
import { RateLimitAdminActivityController } from './rate-limit-admin-activity.controller';
import { RateLimitAdminAdaptiveController } from './rate-limit-admin-adaptive.controller';
import { RateLimitAdminActivity } from './rate-limit-admin-activity.service';
import { RateLimitAdminClientsController } from './rate-limit-admin-clients.controller';
import { RateLimitAdminController } from './rate-limit-admin.controller';
import {
  RATE_LIMIT_ADMIN_OPTIONS,
  RateLimitAdminConfigurableModule,
} from './rate-limit-admin.module-definition';
import { RateLimitAdminService } from './rate-limit-admin.service';

/**
 * The admin API over HTTP (opt-in): list policies, change thresholds (the policy's and its
 * tiers') at runtime, show and reset per-identity usage, set per-client overrides, behind a
 * bearer token. Needs the global `RateLimitModule` for the
 * service's dependencies. Mounted with `RouterModule` under `path` (default `'admin'`); mount
 * it once per application.
 * @publicApi
 * @example
 * RateLimitAdminModule.forRoot({ token: process.env.ADMIN_TOKEN! })
 * RateLimitAdminModule.forRootAsync({
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ token: config.getOrThrow('ADMIN_TOKEN') }),
 *   path: 'ops/rate-limit',
 * })
 * @throws RateLimitConfigError at bootstrap when `token` is missing, shorter than 32 characters
 *   or has whitespace, or `failedTokenLimit` is invalid.
 */
@Module({
  controllers: [
    RateLimitAdminController,
    RateLimitAdminClientsController,
    RateLimitAdminActivityController,
    RateLimitAdminAdaptiveController,
  ],
  providers: [
    ...ADMIN_PLANE_PROVIDERS,
    {
      provide: ADMIN_TOKEN_DIGEST,
      inject: [RATE_LIMIT_ADMIN_OPTIONS],
      useFactory: adminTokenDigest,
    },
    FailedTokenLimiter,
    AdminTokenGuard,
    PolicyKeys,
    RateLimitAdminService,
    ClientOverridesAdmin,
    RateLimitAdminActivity,
  ],
  exports: [RateLimitAdminService, ClientOverridesAdmin],
})
export class RateLimitAdminModule extends RateLimitAdminConfigurableModule {}
