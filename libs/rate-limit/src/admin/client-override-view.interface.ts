import type { ClientOverrideAction } from '../policy/client-override';

export type { ClientOverrideAction };

/** One client's override under a policy, as the admin API shows it. */
export interface ClientOverrideView {
  /** As the keys listing shows identities (a fingerprint for hashed ones). */
  identity: string;
  action: ClientOverrideAction;
  limit?: number;
  windowMs?: number;
  burst?: number;
  message?: string;
  /** ISO 8601; null when it lasts until removed. */
  expiresAt: string | null;
  /** ISO 8601. */
  updatedAt: string;
}

export interface ClientOverrideViewPage {
  items: ClientOverrideView[];
  /** Pass back to get the next page; null when the listing is complete. */
  cursor: string | null;
}
