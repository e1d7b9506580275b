import type { ExecutionContext } from '@nestjs/common';
import type { RateLimitAlgorithm } from './rate-limit-algorithm';
import type { RateLimitMode } from './rate-limit-mode';

/** A duration: milliseconds as a number, or `'500ms' | '10s' | '5m' | '1h' | '1d'`. */
export type Duration = number | string;

export type { RateLimitMode };

/** Computes an identity from the request; return a non-empty string. */
export type IdentityFunction = (context: ExecutionContext) => string | Promise<string>;

/**
 * Who shares a bucket: the client IP (IPv6 grouped by /64), the authenticated user
 * (`request.user.id`, falling back to the IP), the API-key header (`apiKeyHeader` module option,
 * falling back to the IP), any request header, one bucket for the whole route, or a function.
 */
export type KeySource = NamedKeySource | { header: string } | IdentityFunction;

/** The key sources named by a string. */
export const NAMED_KEY_SOURCES = ['ip', 'user', 'api-key', 'route'] as const;
export type NamedKeySource = (typeof NAMED_KEY_SOURCES)[number];

/**
 * Options of one `@RateLimit()` (and of `defaultPolicy` / `policies` in the module options).
 * @publicApi
 * @example @RateLimit({ algo: 'sliding-window', limit: 5, window: '1m' })
 */
export interface RateLimitOptions {
  /** Policy name, unique per configuration. @default `<Controller>.<handler>` */
  name?: string;
  /** @default 'fixed-window' */
  algo?: RateLimitAlgorithm;
  /** Requests (units of cost) per window; integer 1..1e9. */
  limit: number;
  /** Window length; 1 ms to 366 days. */
  window: Duration;
  /** Capacity of token-bucket, leaky-bucket and GCRA; integer 1..1e9. @default limit */
  burst?: number;
  /** Units one request costs; integer 1..1e9, or a function of the request. @default 1 */
  cost?: number | ((context: ExecutionContext) => number);
  /** Who shares a bucket. @default the module's `key`, itself 'ip' by default */
  key?: KeySource;
  /** After a rejection, reject the identity outright for this long. @default none */
  blockFor?: Duration;
  /** @default 'enforce' */
  mode?: RateLimitMode;
}
