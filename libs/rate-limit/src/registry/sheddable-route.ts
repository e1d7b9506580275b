import type { KeySource } from '../policy/rate-limit-options.interface';
import { isHeaderTier } from '../policy/tier-source';
import type { CompiledRoute, RoutePolicy } from './compiled-route';

/**
 * Whether a rejection of this route may be answered before routing: only when the requests the
 * guard decides can be rebuilt from the raw request alone. A user id is set by auth guards and a
 * key function may read params, body or user, none of which exist yet; a skip, tier or cost
 * function may read them too (a tier named by a header, `{ header }`, is known); and a module-wide `skip` may exempt any request. Rebuilt wrongly,
 * a request would be refused for someone else's rejection, so anything unsure is not shed.
 */
export function isSheddable(route: CompiledRoute, moduleSkip: unknown): boolean {
  if (moduleSkip !== undefined || route.kind !== 'http' || route.policies.length === 0) {
    return false;
  }
  return route.policies.every(isPlainBeforeRouting);
}

function isPlainBeforeRouting(policy: RoutePolicy): boolean {
  return (
    policy.skip === undefined &&
    (policy.tier === undefined || isHeaderTier(policy.tierSource)) &&
    typeof policy.cost === 'number' &&
    readsRawRequestOnly(policy.keySource)
  );
}

/** The client address and headers are what the raw request carries before routing. */
function readsRawRequestOnly(source: KeySource | undefined): boolean {
  if (source === undefined || typeof source === 'function') return false;
  if (typeof source === 'object') return true; // { header }
  return source === 'ip' || source === 'api-key' || source === 'route';
}
