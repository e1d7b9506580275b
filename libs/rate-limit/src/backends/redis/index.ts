import type { RateLimitConfig } from '../../config/resolve-module-options';
import type { StoreObserver } from '../../store/redis/guarded-calls';
import type { RedisClient } from '../../store/redis/redis-script';
import { RedisStore } from '../../store/redis/redis-store';
import type { Backend } from '../backend';
import { RedisAuditStore } from './redis-audit-store';
import { RedisClientOverrideIndex } from './redis-client-override-index';
import { RedisPolicyChannel } from './redis-policy-channel';
import { RedisPolicyOverrideStore } from './redis-policy-override-store';
import { RedisTrafficStore } from './redis-traffic-store';

/** Everything in Redis (a single server, Sentinel or a Cluster), shared by every instance. */
export function redisBackend(
  client: RedisClient,
  config: RateLimitConfig,
  observer: StoreObserver,
): Backend {
  const { prefix } = config.keys;
  const channel = new RedisPolicyChannel(client, prefix);
  return {
    store: new RedisStore({ client, commandTimeoutMs: config.commandTimeoutMs, observer }),
    channel,
    policyOverrides: new RedisPolicyOverrideStore(client, config.keys, channel),
    clientOverrides: new RedisClientOverrideIndex(client, prefix),
    traffic: () => new RedisTrafficStore(client, prefix),
    audit: (apiWindowMs) => new RedisAuditStore(client, prefix, apiWindowMs),
  };
}
