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
 * falling back to the IP), any request header, one bucket for the whole route, one per WebSocket
 * connection (`'connection'`, gateways only), or a function. On GraphQL and WebSocket calls the
 * request is the HTTP request (or handshake) behind them; a microservice message has none, so
 * its handlers take a function of the payload or `'route'`.
 */
export type KeySource = NamedKeySource | { header: string } | IdentityFunction;

/** The key sources named by a string. */
export const NAMED_KEY_SOURCES = ['ip', 'user', 'api-key', 'route', 'connection'] as const;
export type NamedKeySource = (typeof NAMED_KEY_SOURCES)[number];

/**
 * Names the tier a request belongs to (say, from `request.user.plan`); undefined, or a tier the
 * policy does not declare, gets the policy's own thresholds.
 */
export type TierResolver = (
  context: ExecutionContext,
) => string | undefined | Promise<string | undefined>;

/**
 * Where a request's tier comes from: a resolver, or `{ header }` (the header's value names the
 * tier). A header is read from the request as it arrives, so `shedRememberedRejections()` can
 * answer before routing for such a route, adaptive protection's local shedding included; a
 * function may read what only exists after routing (an auth guard's `request.user`), so it
 * cannot.
 */
export type TierSource = TierResolver | { header: string };

/** Says a request is not limited at all (health probes, internal callers). */
export type SkipPredicate = (context: ExecutionContext) => boolean | Promise<boolean>;

/**
 * One tier's thresholds; what it leaves out is the policy's (its `burst` follows its own
 * `limit` when it sets one). The algorithm, mode and penalty are the policy's.
 */
export interface TierOptions {
  /** Integer 1..1e9. */
  limit?: number;
  window?: Duration;
  burst?: number;
}

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
  /**
   * Other thresholds by tier name (1-64 of A-Z a-z 0-9 _ -), chosen per request by `tier`.
   * @example { pro: { limit: 1000 }, enterprise: { limit: 10000, burst: 20000 } }
   */
  tiers?: Record<string, TierOptions>;
  /** Which tier a request is in. @default the module's `tier`, if any */
  tier?: TierSource;
  /**
   * Whether adaptive protection (the module's `adaptive` option) may lower and raise this
   * policy's thresholds with the fleet's load. @default the module's `adaptive.policies`
   */
  adaptive?: boolean;
  /** A request for which it answers true is not limited by this policy (nor counted). */
  skip?: SkipPredicate;
  /**
   * Whether the OpenAPI document shows this policy: with `@nestjs/swagger` installed, a route
   * with at least one shown policy documents its 429 response and the rate-limit headers.
   * Only decorators are documented. @default true
   */
  openApi?: boolean;
}
