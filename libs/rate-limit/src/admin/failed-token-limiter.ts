import { Inject, Injectable, Logger, type ExecutionContext } from '@nestjs/common';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { createIdentityResolver, type IdentityResolver } from '../identity/identity-resolver';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { normalizePolicy } from '../policy/normalize-policy';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import { RateLimiterService } from '../service/rate-limiter.service';
import { RATE_LIMIT_ADMIN_OPTIONS } from './rate-limit-admin.module-definition';
import type { RateLimitAdminModuleOptions } from './rate-limit-admin-options.interface';

/** The policy counting failed token attempts per client address, listed with the others. */
export const FAILED_TOKEN_POLICY = 'rate-limit-admin.failed-token';
export const DEFAULT_FAILED_TOKEN_LIMIT = { limit: 10, window: '15m' } as const;

/**
 * Counts the admin API's failed token attempts per client address in the rate limiter's own
 * store (so across every instance). Past the limit, that address's failed attempts answer 429
 * for a window (blockFor), and each one is logged without the token.
 */
@Injectable()
export class FailedTokenLimiter {
  private readonly logger = new Logger('RateLimitAdmin');
  /** The client address, as `key: 'ip'` policies see it (trustProxy, IPv6 /64). */
  private readonly identityOf: IdentityResolver;

  constructor(
    private readonly limiter: RateLimiterService,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_ADMIN_OPTIONS) options: RateLimitAdminModuleOptions,
    registry: PolicyRegistry,
  ) {
    const thresholds = { ...DEFAULT_FAILED_TOKEN_LIMIT, ...options.failedTokenLimit };
    // One failure too many blocks the address's failed attempts for a whole window.
    const policy = normalizePolicy(
      { algo: 'sliding-window', ...thresholds, blockFor: thresholds.window },
      FAILED_TOKEN_POLICY,
      'RateLimitAdminModule failedTokenLimit',
    );
    registry.register(policy, 'RateLimitAdminModule failedTokenLimit');
    this.identityOf = createIdentityResolver(
      'ip',
      config.clientIp,
      config.apiKeyHeader,
      FAILED_TOKEN_POLICY,
    );
  }

  /** Counts a failed attempt (logged without the token); the refusal if it was one too many. */
  async failed(context: ExecutionContext): Promise<RateLimitDecision | undefined> {
    const identity = await this.identityOf(context);
    const decision = await this.limiter.consume(FAILED_TOKEN_POLICY, identity);
    // As the admin API lists it: a fingerprint when addresses are hashed (identityHashing.ips).
    const keys = this.config.keys;
    const who = keys.listedIdentity(keys.identityTag(identity));
    const used = decision.limit - decision.remaining;
    this.logger.warn(
      `Admin API: missing or wrong token from ${who} ` +
        (decision.allowed
          ? `(${used} of ${decision.limit} failed attempts allowed per window)`
          : `(too many failed attempts: refused for ${Math.ceil(decision.retryAfterMs / 1000)} s)`),
    );
    return decision.allowed ? undefined : decision;
  }
}
