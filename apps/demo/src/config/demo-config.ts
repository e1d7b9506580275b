import {
  ADAPTIVE_MODES,
  ON_REDIS_ERROR,
  type AdaptiveMode,
  type OnRedisError,
  type TrustProxy,
} from '@app/rate-limit';
import { MIN_ADMIN_TOKEN_LENGTH } from '@app/rate-limit/admin';

/** The Nest HTTP platforms the demo runs on (HTTP_PLATFORM). */
export const HTTP_PLATFORMS = ['express', 'fastify'] as const;
export type HttpPlatform = (typeof HTTP_PLATFORMS)[number];

/** The demo's settings, read from the environment once at start. */
export interface DemoConfig {
  port: number;
  httpPlatform: HttpPlatform;
  redisUrl?: string;
  clusterNodes?: { host: string; port: number }[];
  sentinels?: { host: string; port: number }[];
  sentinelName: string;
  onRedisError: OnRedisError;
  keyPrefix: string;
  commandTimeoutMs: number;
  policyRefreshMs: number;
  statsFlushMs: number;
  trustProxy: TrustProxy;
  /** Bearer token of the admin API; undefined means one is generated at start (and logged once). */
  adminToken?: string;
  /** Failed admin token attempts allowed per client address in 15 minutes. */
  adminFailedTokenLimit: number;
  /** RATE_LIMIT_SHED_REJECTIONS: remembered rejections answered before routing. */
  shedRejections: boolean;
  /** RATE_LIMIT_ADAPTIVE: adaptive protection's mode (off, shadow, enforce). */
  adaptive: AdaptiveMode;
  /** RATE_LIMIT_ADAPTIVE_ELU_TARGET: its event-loop utilisation target; unset, the library's. */
  adaptiveEluTarget?: number;
}

function hostPorts(
  name: string,
  value: string | undefined,
): { host: string; port: number }[] | undefined {
  if (!value) return undefined;
  return value.split(',').map((item) => {
    // host:port, or [IPv6]:port
    const match = /^\s*(?:\[([0-9A-Fa-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})\s*$/.exec(item);
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65535)
      throw new Error(
        `${name} must be host:port[,host:port...] with ports 1-65535 (got ${JSON.stringify(value)})`,
      );
    return { host: match[1] ?? match[2], port };
  });
}

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(
      `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`,
    );
  }
  return n;
}

/**
 * TRUST_PROXY in Express's forms: unset or `false` (the socket address is the client), a hop
 * count (`1` behind one load balancer), addresses/subnets/names (`loopback`,
 * `10.0.0.0/8,192.168.1.7`), or `true` (every hop: the library warns at start). The library
 * validates the list and names the bad entry.
 */
function trustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text;
}

/** `true` or `false` (unset or empty: `false`); anything else stops the start. */
function flag(name: string, value: string | undefined): boolean {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw new Error(`${name} must be true or false (got ${JSON.stringify(value)})`);
}

/**
 * HTTP_PLATFORM: `express` (unset) or `fastify`. Read by main.ts before the app exists (the
 * adapter is chosen before any module loads) and again with the other settings.
 */
export function httpPlatform(value: string | undefined): HttpPlatform {
  const text = value?.trim() || 'express';
  if (!(HTTP_PLATFORMS as readonly string[]).includes(text)) {
    throw new Error(
      `HTTP_PLATFORM must be one of ${HTTP_PLATFORMS.join(', ')} (got ${JSON.stringify(value)})`,
    );
  }
  return text as HttpPlatform;
}

/**
 * Validates the environment for ConfigModule. The result is nested under `demo` so that
 * ConfigModule does not copy it back into process.env (two apps in one test process stay apart).
 */
export function validateDemoEnv(env: Record<string, string | undefined>): { demo: DemoConfig } {
  const onRedisError = (env.RATE_LIMIT_ON_REDIS_ERROR ?? 'memory') as OnRedisError;
  if (!ON_REDIS_ERROR.includes(onRedisError)) {
    throw new Error(
      `RATE_LIMIT_ON_REDIS_ERROR must be one of ${ON_REDIS_ERROR.join(', ')} (got ${JSON.stringify(onRedisError)})`,
    );
  }
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && /\s/.test(adminToken)) {
    throw new Error('ADMIN_TOKEN must not contain whitespace (it is sent as a Bearer token)');
  }
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(
      `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (got ${adminToken.length}): ` +
        'generate one with `openssl rand -hex 32`, or leave it unset to have one generated and logged',
    );
  }
  return {
    demo: {
      port: integer('PORT', env.PORT, 3000, 0, 65535),
      httpPlatform: httpPlatform(env.HTTP_PLATFORM),
      redisUrl: env.REDIS_URL || undefined,
      clusterNodes: hostPorts('REDIS_CLUSTER_NODES', env.REDIS_CLUSTER_NODES),
      sentinels: hostPorts('REDIS_SENTINELS', env.REDIS_SENTINELS),
      sentinelName: env.REDIS_SENTINEL_NAME || 'mymaster',
      onRedisError,
      keyPrefix: env.RATE_LIMIT_KEY_PREFIX || 'rl',
      commandTimeoutMs: integer('RATE_LIMIT_TIMEOUT_MS', env.RATE_LIMIT_TIMEOUT_MS, 100, 1, 60_000),
      policyRefreshMs: integer(
        'RATE_LIMIT_POLICY_REFRESH_MS',
        env.RATE_LIMIT_POLICY_REFRESH_MS,
        5_000,
        50,
        3_600_000,
      ),
      statsFlushMs: integer(
        'RATE_LIMIT_STATS_FLUSH_MS',
        env.RATE_LIMIT_STATS_FLUSH_MS,
        1_000,
        50,
        60_000,
      ),
      trustProxy: trustProxy(env.TRUST_PROXY),
      adminToken,
      adminFailedTokenLimit: integer(
        'ADMIN_FAILED_TOKEN_LIMIT',
        env.ADMIN_FAILED_TOKEN_LIMIT,
        10,
        1,
        10_000, // counted in a sliding-window log, whose limit is at most 10,000
      ),
      shedRejections: flag('RATE_LIMIT_SHED_REJECTIONS', env.RATE_LIMIT_SHED_REJECTIONS),
      adaptive: adaptiveMode(env.RATE_LIMIT_ADAPTIVE),
      adaptiveEluTarget: fractionOrUnset(
        'RATE_LIMIT_ADAPTIVE_ELU_TARGET',
        env.RATE_LIMIT_ADAPTIVE_ELU_TARGET,
      ),
    },
  };
}

/** RATE_LIMIT_ADAPTIVE: `off` (unset), `shadow` or `enforce`. */
function adaptiveMode(value: string | undefined): AdaptiveMode {
  const mode = (value || 'off') as AdaptiveMode;
  if (!(ADAPTIVE_MODES as readonly string[]).includes(mode)) {
    throw new Error(
      `RATE_LIMIT_ADAPTIVE must be one of ${ADAPTIVE_MODES.join(', ')} (got ${JSON.stringify(value)})`,
    );
  }
  return mode;
}

/** A number above 0 and at most 1, or undefined when unset or empty. */
function fractionOrUnset(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!(n > 0 && n <= 1)) {
    throw new Error(
      `${name} must be a number above 0 and at most 1 (got ${JSON.stringify(value)})`,
    );
  }
  return n;
}
