import type { AuditStore } from '../runtime/audit/audit-store';
import type { ClientOverrideIndex } from '../runtime/client-overrides/client-override-index';
import type { PolicyChannel } from '../runtime/policy-channel';
import type { PolicyOverrideStore } from '../runtime/policy-override-store';
import type { TrafficStore } from '../runtime/traffic/traffic-store';
import type { RateLimitStore } from '../store/rate-limit-store.interface';

/**
 * Every port the runtime and the planes need of where state lives, from one factory per backend
 * (backends/redis, backends/memory): the rest of the library knows only these interfaces. A new
 * backend is a folder with such a factory, and one line in the module's choice of it.
 */
export interface Backend {
  /** Decides (and what the admin reads of the decisions' state: inspect, scan, expiries). */
  readonly store: RateLimitStore;
  readonly policyOverrides: PolicyOverrideStore;
  /** Announcements of changes to every instance (Pub/Sub, or this process). */
  readonly channel: PolicyChannel;
  readonly clientOverrides: ClientOverrideIndex;
  /** The admin plane's: made when it is mounted. */
  traffic(): TrafficStore;
  /** The admin plane's: `apiWindowMs`, how long a state the API wrote is not a direct write. */
  audit(apiWindowMs: number): AuditStore;
}
