import type { PolicyOverride } from '../policy/policy-thresholds';

/** Someone (maybe another instance) changed a policy's override; null means removed. */
export type OverrideListener = (name: string, override: PolicyOverride | null) => void;

/** Identities of the policy (their key tags) were reset on some instance. */
export type ResetListener = (name: string, tags: readonly string[]) => void;

/** A client override of the policy was set or removed for the identities of these key tags. */
export type ClientOverrideListener = (name: string, tags: readonly string[]) => void;

/** The fleet loop's leader published a state (published-state.ts's text, not yet validated). */
export type AdaptiveStateListener = (state: string) => void;

/** The Pub/Sub channel of a key prefix (adaptive-publish.lua announces there too). */
export const policyChannelName = (prefix: string): string => `${prefix}:policy-changes`;

/**
 * How instances tell each other about policy changes and resets: Redis Pub/Sub on
 * `<prefix>:policy-changes`, or this process alone when no Redis is configured. Announcing
 * never throws: the change it tells of is already written, and the refresh spreads it anyway.
 */
export interface PolicyChannel {
  onOverride(listener: OverrideListener): void;
  onReset(listener: ResetListener): void;
  onClientOverride(listener: ClientOverrideListener): void;
  onAdaptiveState(listener: AdaptiveStateListener): void;
  /**
   * Starts listening for announcements of any instance (this one included); resolves once
   * listening, or after `waitMs` (the refresh interval covers a late subscription).
   */
  subscribe(waitMs: number): Promise<void>;
  announceOverride(name: string, override: PolicyOverride | null): Promise<void>;
  announceReset(name: string, tags: readonly string[]): Promise<void>;
  announceClientOverride(name: string, tags: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** The listeners of a channel, and their delivery: what every backend's channel shares. */
export abstract class ChannelListeners {
  private readonly overrideListeners: OverrideListener[] = [];
  private readonly resetListeners: ResetListener[] = [];
  private readonly clientListeners: ClientOverrideListener[] = [];
  private readonly adaptiveListeners: AdaptiveStateListener[] = [];

  onOverride(listener: OverrideListener): void {
    this.overrideListeners.push(listener);
  }

  onReset(listener: ResetListener): void {
    this.resetListeners.push(listener);
  }

  onClientOverride(listener: ClientOverrideListener): void {
    this.clientListeners.push(listener);
  }

  onAdaptiveState(listener: AdaptiveStateListener): void {
    this.adaptiveListeners.push(listener);
  }

  protected deliverAdaptiveState(state: string): void {
    for (const listener of this.adaptiveListeners) listener(state);
  }

  protected deliverOverride(name: string, override: PolicyOverride | null): void {
    for (const listener of this.overrideListeners) listener(name, override);
  }

  protected deliverReset(name: string, tags: readonly string[]): void {
    for (const listener of this.resetListeners) listener(name, tags);
  }

  protected deliverClientOverride(name: string, tags: readonly string[]): void {
    for (const listener of this.clientListeners) listener(name, tags);
  }
}
