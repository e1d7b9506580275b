import type { RateLimitConfig } from '../../config/resolve-module-options';
import { MemoryStore } from '../../store/memory/memory-store';
import type { Backend } from '../backend';
import { MemoryAuditStore } from './memory-audit-store';
import { MemoryClientOverrideIndex } from './memory-client-override-index';
import { MemoryPolicyChannel } from './memory-policy-channel';
import { MemoryPolicyOverrideStore } from './memory-policy-override-store';
import { MemoryTrafficStore } from './memory-traffic-store';

/** Everything in this process: one instance, tests, or no Redis configured. */
export function memoryBackend(config: RateLimitConfig): Backend {
  const channel = new MemoryPolicyChannel();
  return {
    store: memoryStore(config),
    channel,
    policyOverrides: new MemoryPolicyOverrideStore(channel),
    clientOverrides: new MemoryClientOverrideIndex(),
    traffic: () => new MemoryTrafficStore(),
    audit: (apiWindowMs) => new MemoryAuditStore(apiWindowMs),
  };
}

/** A store in this process, sized by `memoryMaxKeys`: the backend's, and the outage fallback's. */
export function memoryStore(config: RateLimitConfig): MemoryStore {
  return new MemoryStore({ maxKeys: config.memoryMaxKeys });
}
