/**
 * One running instance as the dashboard shows it: what it reported at its last heartbeat.
 * @publicApi
 */
export interface InstanceView {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** The library's version. */
  readonly version: string;
  /** Where its decisions are made when all is well. */
  readonly store: 'redis' | 'memory';
  /** Its Redis circuit breaker ('closed' without Redis). */
  readonly breaker: 'closed' | 'open';
  /** Whether it decided requests without Redis in the last 10 seconds, as `onRedisError` says. */
  readonly fallback: boolean;
  /** What it does when Redis cannot decide (absent in reports of versions before it was). */
  readonly onRedisError?: 'memory' | 'open' | 'closed';
  readonly startedAt: number;
  /** When it reported this (epoch ms, its clock). */
  readonly lastBeatAt: number;
  /** When it last added its counts to the traffic series, if ever. */
  readonly lastFlushAt: number | null;
}

/** Every live instance, and whether the instance answering could reach Redis. */
export interface InstancesView {
  readonly redis: 'up' | 'down' | 'none';
  /** The id of the instance that answered. */
  readonly self: string;
  readonly instances: (InstanceView & { readonly self: boolean })[];
}
