import { isCluster } from '../../util/ioredis-shapes';
import { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import type {
  LateRepliesListener,
  RateLimitStore,
  ScanPage,
  StoreEntry,
  StoreOp,
  StoreReply,
} from '../rate-limit-store.interface';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker';
import { DecideBatcher } from './decide-batcher';
import { encodeDecideCall, parseDecideReply } from './decide-call';
import { loadDecideScripts, type DecideScripts } from './decide-script';
import { inspectGroups } from './inspect-groups';
import { scanKeys } from './scan-keys';
import { GuardedCalls, type StoreObserver } from './guarded-calls';
import type { RedisClient } from './redis-script';
import { DecideRunner, type DecideWith } from './decide-runner';

export type { StoreObserver };
import { withTimeout } from './with-timeout';
import { watchLateReply } from './late-reply';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';

export interface RedisStoreOptions {
  readonly client: RedisClient;
  /** Each round trip of a request's decision (the module's `commandTimeoutMs`). */
  readonly commandTimeoutMs: number;
  /** @default the programs of lua/, loaded once */
  readonly scripts?: DecideScripts;
  /**
   * 'functions': the decide library (FUNCTION LOAD once, FCALL) where the server has Redis
   * Functions, else the scripts; 'scripts': EVALSHA always.
   * @default 'functions'
   */
  readonly decideWith?: DecideWith;
  /** @default 3 failures in a row open it; a probe every 200 ms */
  readonly breaker?: CircuitBreakerOptions;
  /** Told of every command's latency and failure, and of circuit changes (the metrics). */
  readonly observer?: StoreObserver;
}

const REFUNDED: StoreReply = { admitted: true, decisions: [], decidedAtUs: 0 };
const DEFAULT_BREAKER: CircuitBreakerOptions = { failureThreshold: 3, probeIntervalMs: 200 };

/**
 * Decides in Redis: one EVALSHA per identity, or on a single Redis per batch of the consume calls
 * made in one event-loop turn, bounded by the command timeout. A client that is not connected
 * fails at once (no offline queue), so no request waits on a dead Redis.
 * @publicApi
 */
export class RedisStore implements RateLimitStore {
  readonly source = 'redis' as const;

  /** Opens after consecutive failures so a dead or frozen Redis costs requests no waiting. */
  readonly breaker: CircuitBreaker;

  /** Concurrent consume calls share one script call (not on a cluster). */
  private readonly batcher?: DecideBatcher;

  readonly client: RedisClient;
  private readonly program: DecideRunner;
  private readonly observer?: StoreObserver;
  private readonly calls: GuardedCalls;
  private lateListener?: LateRepliesListener;

  constructor(options: RedisStoreOptions) {
    const { client, commandTimeoutMs, observer } = options;
    this.client = client;
    this.program = new DecideRunner(
      client,
      options.scripts ?? loadDecideScripts(),
      options.decideWith ?? 'functions',
    );
    this.observer = observer;
    this.breaker = new CircuitBreaker(options.breaker ?? DEFAULT_BREAKER, () =>
      withTimeout(client.ping(), commandTimeoutMs),
    );
    this.calls = new GuardedCalls(client, this.breaker, commandTimeoutMs, observer);
    // On a cluster one call may only touch one slot, and the identities of a batch are spread.
    this.batcher = isCluster(client)
      ? undefined
      : new DecideBatcher((groups) => this.decideGroups('consume', groups));
    if (observer) {
      this.breaker.on('open', () => observer.setCircuitOpen(true));
      this.breaker.on('close', () => observer.setCircuitOpen(false));
    }
  }

  onModuleDestroy(): void {
    this.breaker.dispose();
    this.calls.dispose();
  }

  // Not async: an async function returning the batcher's promise would settle two microtask
  // turns after it, on every request.
  decide(op: StoreOp, entries: readonly StoreEntry[], nowUs?: number, chargedAtUs?: number) {
    if (this.batcher && op === 'consume' && nowUs === undefined)
      return this.batcher.decide(entries);
    return this.decideAlone(op, entries, nowUs, chargedAtUs);
  }

  /** One call for one group (async: whatever it throws is a rejection, as from the batcher). */
  private async decideAlone(
    op: StoreOp,
    entries: readonly StoreEntry[],
    nowUs?: number,
    chargedAtUs?: number,
  ): Promise<StoreReply> {
    const [reply] = await this.decideGroups(op, [entries], nowUs, chargedAtUs);
    if (reply instanceof RateLimitStoreError) throw reply;
    return reply;
  }

  /** One script call for several groups; each group is decided all-or-nothing on its own. */
  private decideGroups(
    op: StoreOp,
    groups: readonly (readonly StoreEntry[])[],
    nowUs?: number,
    chargedAtUs?: number,
  ): Promise<(StoreReply | RateLimitStoreError)[]> {
    const { keys, args } = encodeDecideCall(op, groups, nowUs, chargedAtUs);
    return this.calls.send(
      (roundTrip) => this.program.run(groups, keys, args, roundTrip),
      (reply) => this.repliesOf(op, groups, reply),
      (error) => {
        if (op === 'consume' && this.lateListener) watchLateReply(error, groups, this.lateListener);
      },
    );
  }

  private repliesOf(
    op: StoreOp,
    groups: readonly (readonly StoreEntry[])[],
    reply: unknown,
  ): (StoreReply | RateLimitStoreError)[] {
    if (op === 'refund') return groups.map(() => REFUNDED);
    const replies = parseDecideReply(reply, groups);
    for (const r of replies) {
      // Redis answered, so the breaker is not told; the metrics still count the failed request.
      if (r instanceof RateLimitStoreError) this.observer?.observeCommand(0, r.failure);
    }
    return replies;
  }

  onLateReplies(listener: LateRepliesListener): void {
    this.lateListener = listener;
  }

  inspect(
    groups: readonly (readonly StoreEntry[])[],
  ): Promise<(StoreReply | RateLimitStoreError)[]> {
    return inspectGroups(this.client, groups, (call, keys, args, roundTrip) =>
      this.program.run(call, keys, args, roundTrip),
    );
  }

  async existing(keys: readonly string[]): Promise<boolean[]> {
    const counts = await this.perKey(keys, (key) => this.client.exists(key));
    return counts.map((count) => count > 0);
  }

  async shortenExpiries(keys: readonly string[], maxMs: number): Promise<void> {
    // PEXPIRE ... LT: only an expiry later than the new one is moved (Redis 7).
    await this.perKey(keys, (key) => this.client.pexpire(key, maxMs, 'LT'));
  }

  /**
   * One command per key (different identities are different cluster slots), sent together, on
   * the admin listing's own time budget (never the request path's breaker).
   */
  private perKey<T>(keys: readonly string[], command: (key: string) => Promise<T>): Promise<T[]> {
    return withTimeout(Promise.all(keys.map(command)), BACKGROUND_TIMEOUT_MS);
  }

  async delete(keys: readonly string[]): Promise<void> {
    // One DEL per key: on a cluster, keys of different identities live in different slots.
    await this.calls.send((roundTrip) =>
      roundTrip(Promise.all(keys.map((key) => this.client.del(key)))),
    );
  }

  async putClientOverride(key: string, value: string | null, expiresAt?: number): Promise<void> {
    const write: Promise<unknown> =
      value === null
        ? this.client.del(key)
        : expiresAt === undefined
          ? this.client.set(key, value)
          : this.client.set(key, value, 'PXAT', expiresAt);
    await withTimeout(write, BACKGROUND_TIMEOUT_MS);
  }

  scan(match: string, cursor: string | null, count: number): Promise<ScanPage> {
    return scanKeys(this.client, match, cursor, count);
  }
}
