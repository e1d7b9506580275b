import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  IdentityFingerprint,
  MIN_IDENTITY_SECRET_LENGTH,
  newIdentitySecret,
} from '../keys/identity-fingerprint';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { BACKGROUND_TIMEOUT_MS, RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { RedisConnection } from '../store/redis/redis-connection';
import { withTimeout } from '../store/redis/with-timeout';

const UNCONFIRMED_RETRY_MS = 500;

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
  private stopped = false;

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
    this.schedule();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * Every `policyRefreshMs` once the stored secret is known; every 500 ms while this instance
   * still keys with its provisional one (Redis was down at start), since Redis may meanwhile
   * decide that instance's clients under keys no other instance uses.
   */
  private schedule(): void {
    if (this.stopped) return;
    const delay = this.current === undefined ? UNCONFIRMED_RETRY_MS : this.config.policyRefreshMs;
    this.timer = setTimeout(() => void this.sync().finally(() => this.schedule()), delay).unref();
  }

  /** Stores this instance's secret if Redis has none, and uses the one Redis has. */
  async sync(): Promise<void> {
    const client = this.connection.client!;
    const candidate = this.current ?? newIdentitySecret();
    try {
      const replies = await withTimeout(
        client.multi().set(this.key, candidate, 'NX').get(this.key).exec(),
        BACKGROUND_TIMEOUT_MS,
      );
      const stored = replies?.[1]?.[1];
      // A secret written by hand must be as strong as one of the options.
      if (typeof stored !== 'string' || stored.length < MIN_IDENTITY_SECRET_LENGTH) {
        throw new Error(
          `${this.key} holds no secret of at least ${MIN_IDENTITY_SECRET_LENGTH} characters`,
        );
      }
      if (stored !== this.current) this.use(stored);
    } catch (error) {
      if (this.warned) return;
      this.warned = true;
      this.logger.warn(
        `Could not read the identity secret from Redis (${(error as Error).message}): ` +
          (this.current === undefined
            ? 'identities are keyed with a provisional secret of this instance until it can'
            : 'the one read before is kept'),
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
