import { MAX_BOOST_CEILING } from './control-law';
import { tierMultipliers, type AdaptiveTier } from './tier-multipliers';

/**
 * What the fleet loop's leader publishes after each tick (held in Redis, announced on the policy
 * channel) and every instance applies in memory. The epoch fences out a leader that lost its
 * lease: an instance takes a state only with a higher epoch than the one it holds, or the same
 * epoch written later.
 */
export interface PublishedAdaptiveState {
  epoch: number;
  level: number;
  boost: number;
  /** When the leader wrote it (ms, Redis time). */
  at: number;
}

/**
 * A state older than this (the leader died and none took over, or Redis is unreachable) is
 * dropped: instances return to the configured thresholds, not to the floors, and their local
 * loops protect them meanwhile.
 */
export const STALE_STATE_MS = 10_000;

/** The highest level any waterfall can reach: a bound for hostile or corrupted input. */
const MAX_LEVEL = 64;

export function isNewer(
  held: PublishedAdaptiveState | undefined,
  incoming: PublishedAdaptiveState,
): boolean {
  if (held === undefined) return true;
  return incoming.epoch > held.epoch || (incoming.epoch === held.epoch && incoming.at > held.at);
}

/** Each tier's multiplier as this instance applies it at `now`: 1 for all once stale. */
export function appliedMultipliers(
  state: PublishedAdaptiveState | undefined,
  tiers: readonly AdaptiveTier[],
  now: number,
): Record<string, number> {
  const fresh = state !== undefined && now - state.at <= STALE_STATE_MS;
  return fresh ? tierMultipliers(tiers, state.level, state.boost) : tierMultipliers(tiers, 0, 0);
}

export const encodeAdaptiveState = (state: PublishedAdaptiveState): string =>
  JSON.stringify([state.epoch, state.level, state.boost, state.at]);

/**
 * Reads a published state; anything but four finite numbers within their bounds is refused
 * (undefined): a message on the channel or a value in Redis is input like any other.
 */
export function decodeAdaptiveState(text: string): PublishedAdaptiveState | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) return undefined;
  if (!parsed.every((v) => typeof v === 'number' && Number.isFinite(v))) return undefined;
  const [epoch, level, boost, at] = parsed as number[];
  if (!Number.isSafeInteger(epoch) || epoch < 0 || !Number.isSafeInteger(at) || at < 0)
    return undefined;
  if (level < 0 || level > MAX_LEVEL || boost < 0 || boost > MAX_BOOST_CEILING - 1)
    return undefined;
  if (level > 0 && boost > 0) return undefined;
  return { epoch, level, boost, at };
}
