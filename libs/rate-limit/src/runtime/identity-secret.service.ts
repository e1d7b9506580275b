import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { IdentityFingerprint, newIdentitySecret } from '../keys/identity-fingerprint';
import type { RateLimitConfig } from '../module/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { RedisConnection } from '../store/redis/redis-connection';
import { withTimeout } from '../store/redis/with-timeout';

const READ_TIMEOUT_MS = 2_000;

/**
 * Makes every instance key identities with one secret when the module options give none: the
 * first instance to start stores a random one in `<prefix>:identity-secret` (SET NX), and every
 * instance uses what is there. Re-checked every `policyRefreshMs`: a Redis that lost its data
 * gets the secret back, and an instance that started on a provisional secret (Redis was down)
 * or met another one (two instances stored theirs after a loss) takes the stored one.
 */
@Injectable()
export class IdentitySecret implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private current?: string;
  private timer?: NodeJS.Timeout;
  private warned = false;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly connection: RedisConnection,
  ) {}

  private get key(): string {
    return `${this.config.keys.prefix}:identity-secret`;
  }

  async onModuleInit(): Promise<void> {
    const hashing = this.config.identityHashing;
    // Without Redis, or with a secret of the options, resolveModuleOptions already set it.
    if (!hashing || hashing.secret !== undefined || !this.connection.client) return;
    await this.sync();
    this.timer = setInterval(() => void this.sync(), this.config.policyRefreshMs).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Stores this instance's secret if Redis has none, and uses the one Redis has. */
  async sync(): Promise<void> {
    const client = this.connection.client!;
    const candidate = this.current ?? newIdentitySecret();
    try {
      const replies = await withTimeout(
        client.multi().set(this.key, candidate, 'NX').get(this.key).exec(),
        READ_TIMEOUT_MS,
      );
      const stored = replies?.[1]?.[1];
      if (typeof stored !== 'string' || stored === '') throw new Error('no secret was stored');
      if (stored !== this.current) this.use(stored);
    } catch (error) {
      if (this.current !== undefined || this.warned) return;
      this.warned = true;
      this.logger.warn(
        `Could not read the identity secret from Redis (${(error as Error).message}): ` +
          'identities are keyed with a provisional secret of this instance until Redis answers',
      );
    }
  }

  private use(secret: string): void {
    if (this.current !== undefined) {
      this.logger.warn(
        `The identity secret in ${this.key} changed (Redis lost it?): identities are keyed anew`,
      );
    }
    this.current = secret;
    this.config.keys.useFingerprint(
      new IdentityFingerprint(Buffer.from(secret, 'utf8'), {
        ips: this.config.identityHashing!.ips,
      }),
    );
  }
}
