import type { PolicyOverride } from '../../policy/policy-thresholds';
import type { PolicyChannel } from '../../runtime/policy-channel';
import { encodeOverride, parseOverrideHash } from '../../runtime/policy-override-codec';
import type { PolicyOverrideStore } from '../../runtime/policy-override-store';

/** Overrides for a single instance without Redis: kept in this process. */
export class MemoryPolicyOverrideStore implements PolicyOverrideStore {
  private readonly hashes = new Map<string, Record<string, string>>();

  constructor(private readonly channel: PolicyChannel) {}

  async readAll(names: readonly string[]): Promise<Map<string, Record<string, string>>> {
    return new Map(names.map((name) => [name, { ...(this.hashes.get(name) ?? {}) }]));
  }

  async update(
    name: string,
    fields: PolicyOverride,
    removed: readonly string[] = [],
  ): Promise<PolicyOverride | null> {
    const hash = { ...(this.hashes.get(name) ?? {}), ...encodeOverride(fields) };
    for (const field of removed) delete hash[field];
    this.hashes.set(name, hash);
    const { override } = parseOverrideHash(hash);
    await this.channel.announceOverride(name, override);
    return override;
  }

  async clear(name: string): Promise<void> {
    this.hashes.delete(name);
    await this.channel.announceOverride(name, null);
  }
}
