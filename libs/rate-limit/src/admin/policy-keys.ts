import { Inject, Injectable } from '@nestjs/common';
import type { RateLimitConfig } from '../config/resolve-module-options';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { storeEntry } from '../engine/request-groups';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import { RATE_LIMIT_CONFIG, RATE_LIMIT_STORE } from '../rate-limit.constants';
import { IdentityResets } from '../runtime/identity-resets.service';
import type { RateLimitStore } from '../store/rate-limit-store.interface';
import { keyUsages, listedTags } from './key-usage';
import type { KeyUsagePage } from './policy-view.interface';
import { fromStore, writing } from './store-actions';

/**
 * The admin's read model of per-identity state: what the store holds under a policy, listed a
 * page at a time as operators see identities, and reset by that listed form. Reads go to the
 * store on its own budget (no breaker, no fallback, not counted as decisions).
 */
@Injectable()
export class PolicyKeys {
  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly resets: IdentityResets,
  ) {}

  /**
   * Live usage per identity under the policy's current algorithm: every identity with state,
   * and every identity still blocked (`blockFor`) whose state has expired. `cursor` as the store
   * gave it out; `0` is where every SCAN starts, so it is the first page too (as none).
   */
  async page(
    policy: RateLimitPolicy,
    cursor: string | undefined,
    count: number,
  ): Promise<KeyUsagePage> {
    const from = cursor === undefined || cursor === '' || cursor === '0' ? null : cursor;
    const keys = this.config.keys;
    const page = await fromStore(() => this.store.scan(keys.listingPattern(policy), from, count));
    const tags = await fromStore(() => listedTags(this.store, keys, page.keys, policy));
    const usages = await fromStore(() => this.usages(policy, tags));
    return { items: keyUsages(keys, policy, tags, usages), cursor: page.cursor };
  }

  /**
   * Resets an identity as the listing shows it: a long identity is listed as the readable form
   * of its hashed key, which encoding it again would not find.
   */
  reset(policyName: string, listedIdentity: string): Promise<void> {
    return writing(() =>
      this.resets.reset(policyName, this.config.keys.operatorTags(listedIdentity)),
    );
  }

  /** The standing of each tag without charging; undefined where its keys could not be read. */
  private async usages(
    policy: RateLimitPolicy,
    tags: readonly string[],
  ): Promise<(RateLimitDecision | undefined)[]> {
    const groups = tags.map((tag) => [storeEntry(this.config.keys, policy, tag, 0)]);
    const replies = await this.store.inspect(groups);
    return replies.map((reply) => (reply instanceof Error ? undefined : reply.decisions[0]));
  }
}
