import { Inject, Injectable } from '@nestjs/common';
import { DecisionEngine } from '../engine/decision-engine';
import { RATE_LIMIT_CHANNEL } from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import type { PolicyChannel } from './policy-channel';

/**
 * Resets identities under a policy on every instance: their state in the store and in this
 * instance's fallback here, then announced so that other instances forget what they hold of
 * them (fallback state, remembered rejections).
 */
@Injectable()
export class IdentityResets {
  constructor(
    private readonly engine: DecisionEngine,
    private readonly registry: PolicyRegistry,
    @Inject(RATE_LIMIT_CHANNEL) private readonly channel: PolicyChannel,
  ) {
    channel.onReset((name, tags) => void engine.forgetIdentities(name, tags));
  }

  /** `tags`: the key tags of the identities (see KeyBuilder). */
  async reset(policyName: string, tags: readonly string[]): Promise<void> {
    await this.engine.reset(this.registry.require(policyName), tags);
    await this.channel.announceReset(policyName, tags);
  }
}
