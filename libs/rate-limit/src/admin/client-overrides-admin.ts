import { Injectable } from '@nestjs/common';
import { NoClientOverrideError } from '../errors/no-client-override.error';
import type { ClientOverride } from '../policy/client-override';
import type { ClientOverrideRecord } from '../runtime/client-overrides/client-override-index';
import { ClientOverrides } from '../runtime/client-overrides/client-overrides.service';
import type { ClientOverrideView, ClientOverrideViewPage } from './client-override-view.interface';
import { fromStore, writing } from './store-actions';

/**
 * What the admin API does with per-client overrides, independent of HTTP: list, show, set and
 * remove them, as `ClientOverrides` does, with the admin's errors (UnknownPolicyError,
 * NoClientOverrideError, InvalidPolicyChangeError, RateLimitStoreError, ...) and views.
 * Identities are taken raw or as the keys listing shows them.
 */
@Injectable()
export class ClientOverridesAdmin {
  constructor(private readonly overrides: ClientOverrides) {}

  /** `cursor` as a previous page gave it out; none, `''` or `0` is the first page (as keys). */
  async list(
    policy: string,
    cursor: string | undefined,
    count: number,
  ): Promise<ClientOverrideViewPage> {
    const from = cursor === undefined || cursor === '' || cursor === '0' ? null : cursor;
    const page = await fromStore(() => this.overrides.list(policy, from, count));
    return { items: page.items.map(toView), cursor: page.cursor };
  }

  async get(policy: string, identity: string): Promise<ClientOverrideView> {
    const record = await fromStore(() => this.overrides.get(policy, identity));
    if (!record) throw new NoClientOverrideError(policy);
    return toView(record);
  }

  /** Sets (replaces) the identity's override, on every instance at once. */
  async set(
    policy: string,
    identity: string,
    override: ClientOverride,
  ): Promise<ClientOverrideView> {
    return toView(await writing(() => this.overrides.set(policy, identity, override)));
  }

  /** Removes the identity's override; false when it had none. */
  remove(policy: string, identity: string): Promise<boolean> {
    return writing(() => this.overrides.remove(policy, identity));
  }
}

function toView(record: ClientOverrideRecord): ClientOverrideView {
  const { identity, action, limit, windowMs, burst, message, expiresAt, updatedAt } = record;
  return {
    identity,
    action,
    ...(limit !== undefined && { limit }),
    ...(windowMs !== undefined && { windowMs }),
    ...(burst !== undefined && { burst }),
    ...(message !== undefined && { message }),
    expiresAt: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
  };
}
