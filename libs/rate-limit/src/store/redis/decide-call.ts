import type { RateLimitPolicy } from '../../policy/rate-limit-policy.interface';
import { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import type {
  ReasonCode,
  StoreEntry,
  StoreOp,
  StoreOutcome,
  StoreReply,
} from '../rate-limit-store.interface';

const FIELDS_PER_OUTCOME = 5;

/** The KEYS and ARGV of one decide script call (layout documented in lua/decide.lua). */
export interface DecideCall {
  readonly keys: string[];
  readonly args: (string | number)[];
}

/**
 * Encodes groups (each the entries of one identity, decided all-or-nothing) into one call. A
 * policy's thresholds are sent once per call however many entries name it, and a block key only
 * for policies with a penalty.
 */
export function encodeDecideCall(
  op: StoreOp,
  groups: readonly (readonly StoreEntry[])[],
  nowUs: number | undefined,
): DecideCall {
  const specs = new Map<RateLimitPolicy, number>();
  const specArgs: (string | number)[] = [];
  const groupArgs: number[] = [];
  const keys: string[] = [];
  for (const entries of groups) {
    groupArgs.push(entries.length);
    for (const { key, blockKey, policy, cost } of entries) {
      let spec = specs.get(policy);
      if (spec === undefined) {
        spec = specs.size + 1;
        specs.set(policy, spec);
        specArgs.push(
          policy.algo,
          policy.limit,
          policy.windowMs,
          policy.burst,
          policy.blockForMs,
          policy.mode === 'shadow' ? 1 : 0,
        );
      }
      groupArgs.push(spec, cost);
      keys.push(key);
      if (policy.blockForMs > 0) keys.push(blockKey);
    }
  }
  const now = nowUs === undefined ? '' : Math.floor(nowUs);
  return { keys, args: [op, now, specs.size, ...specArgs, ...groupArgs] };
}

/** Splits the script's flat reply back into one StoreReply per group. */
export function parseDecideReply(
  reply: unknown,
  groups: readonly (readonly StoreEntry[])[],
): StoreReply[] {
  const expected = groups.reduce((n, g) => n + 1 + g.length * FIELDS_PER_OUTCOME, 0);
  if (!Array.isArray(reply) || reply.length !== expected) {
    throw new RateLimitStoreError(
      'error',
      `Unexpected reply from the rate limit script: ${String(reply)}`,
    );
  }
  const values = reply as number[];
  const replies: StoreReply[] = new Array(groups.length);
  let i = 0;
  for (let g = 0; g < groups.length; g++) {
    const admitted = values[i++] === 1;
    const outcomes: StoreOutcome[] = new Array(groups[g].length);
    for (let j = 0; j < outcomes.length; j++, i += FIELDS_PER_OUTCOME) {
      outcomes[j] = {
        allowed: values[i] === 1,
        remaining: values[i + 1],
        resetMs: values[i + 2],
        retryAfterMs: values[i + 3],
        reason: values[i + 4] as ReasonCode,
      };
    }
    replies[g] = { admitted, outcomes };
  }
  return replies;
}
