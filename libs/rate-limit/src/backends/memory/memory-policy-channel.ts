import type { PolicyOverride } from '../../policy/policy-thresholds';
import type {
  ClientOverrideListener,
  OverrideListener,
  PolicyChannel,
  ResetListener,
} from '../../runtime/policy-channel';

/** A single instance without Redis: announcements reach this process's listeners at once. */
export class MemoryPolicyChannel implements PolicyChannel {
  private readonly overrideListeners: OverrideListener[] = [];
  private readonly resetListeners: ResetListener[] = [];
  private readonly clientListeners: ClientOverrideListener[] = [];

  onOverride(listener: OverrideListener): void {
    this.overrideListeners.push(listener);
  }

  onReset(listener: ResetListener): void {
    this.resetListeners.push(listener);
  }

  onClientOverride(listener: ClientOverrideListener): void {
    this.clientListeners.push(listener);
  }

  async subscribe(): Promise<void> {}

  async announceClientOverride(name: string, tags: readonly string[]): Promise<void> {
    for (const listener of this.clientListeners) listener(name, tags);
  }

  async announceOverride(name: string, override: PolicyOverride | null): Promise<void> {
    for (const listener of this.overrideListeners) listener(name, override);
  }

  async announceReset(name: string, tags: readonly string[]): Promise<void> {
    for (const listener of this.resetListeners) listener(name, tags);
  }

  async close(): Promise<void> {}
}
