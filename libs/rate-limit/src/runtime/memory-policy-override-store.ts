import type { PolicyOverride } from '../admin/policy-view.interface';
import { encodeOverride, parseOverrideHash } from './policy-override-codec';
import type { OverrideListener, PolicyOverrideStore, ResetListener } from './policy-override-store';

/** Overrides for a single instance without Redis: kept and announced in this process. */
export class MemoryPolicyOverrideStore implements PolicyOverrideStore {
  private readonly hashes = new Map<string, Record<string, string>>();
  private listener?: OverrideListener;
  private onReset?: ResetListener;

  async readAll(names: readonly string[]): Promise<Map<string, Record<string, string>>> {
    return new Map(names.map((name) => [name, { ...(this.hashes.get(name) ?? {}) }]));
  }

  async update(name: string, fields: PolicyOverride): Promise<PolicyOverride | null> {
    const hash = { ...(this.hashes.get(name) ?? {}), ...encodeOverride(fields) };
    this.hashes.set(name, hash);
    const { override } = parseOverrideHash(hash);
    this.listener?.(name, override);
    return override;
  }

  async clear(name: string): Promise<void> {
    this.hashes.delete(name);
    this.listener?.(name, null);
  }

  async subscribe(
    listener: OverrideListener,
    _waitMs: number,
    onReset?: ResetListener,
  ): Promise<void> {
    this.listener = listener;
    this.onReset = onReset;
  }

  async announceReset(name: string, tags: readonly string[]): Promise<void> {
    this.onReset?.(name, tags);
  }

  async close(): Promise<void> {}
}
