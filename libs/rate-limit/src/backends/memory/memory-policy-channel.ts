import type { PolicyOverride } from '../../policy/policy-thresholds';
import { ChannelListeners, type PolicyChannel } from '../../runtime/policy-channel';

/** A single instance without Redis: announcements reach this process's listeners at once. */
export class MemoryPolicyChannel extends ChannelListeners implements PolicyChannel {
  async subscribe(): Promise<void> {}

  async announceClientOverride(name: string, tags: readonly string[]): Promise<void> {
    this.deliverClientOverride(name, tags);
  }

  async announceOverride(name: string, override: PolicyOverride | null): Promise<void> {
    this.deliverOverride(name, override);
  }

  async announceReset(name: string, tags: readonly string[]): Promise<void> {
    this.deliverReset(name, tags);
  }

  async close(): Promise<void> {}
}
