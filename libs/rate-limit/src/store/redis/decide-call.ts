import type { RateLimitPolicy } from '../../policy/rate-limit-policy.interface';
import { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import type { RateLimitDecision } from '../../decision/rate-limit-decision.interface';
import type { StoreEntry, StoreOp, StoreReply } from '../rate-limit-store.interface';
import type { ReasonCode } from '../reason-code';
import { storeDecision, type Mutable } from '../store-decision';
import { encodeLoneCall, readLoneReply } from './lone-call';

const FIELDS_PER_OUTCOME = 4;
/** First value of a group the script could not decide; its error message follows. */
const GROUP_FAILED = -1;
/** A group's first value from this on: its outcomes are followed by extras (see decide.lua). */
const WITH_EXTRAS = 2;

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
  chargedAtUs?: number,
): DecideCall {
  if (groups.length === 1 && groups[0].length === 1 && nowUs === undefined && op !== 'refund') {
    const lone = encodeLoneCall(op, groups[0][0]);
    if (lone) return lone;
  }
  const specs = new Map<RateLimitPolicy, number>();
  const specArgs: (string | number)[] = [];
  const groupArgs: number[] = [];
  const keys: string[] = [];
  for (const entries of groups) {
    groupArgs.push(entries.length);
    for (const { key, overrideKey, blockKey, policy, cost } of entries) {
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
      // Without an override key the spec goes negative (see decide.lua): nothing to read.
      if (overrideKey === undefined) {
        groupArgs.push(-spec, cost);
        keys.push(key);
      } else {
        groupArgs.push(spec, cost);
        keys.push(key, overrideKey);
      }
      if (policy.blockForMs > 0) keys.push(blockKey);
    }
  }
  const now = nowUs === undefined ? '' : Math.floor(nowUs);
  const charged = chargedAtUs === undefined ? '' : Math.floor(chargedAtUs);
  const distinct = allDistinct(keys) ? 1 : '';
  return { keys, args: [op, now, charged, distinct, specs.size, ...specArgs, ...groupArgs] };
}

/**
 * Whether no key appears twice: the script then reads and writes each key directly, without
 * its per-call cache (see lua/prelude.lua). A key repeats when one client has two requests in a
 * batch, or when a policy keyed by route is decided for several clients.
 */
function allDistinct(keys: readonly string[]): boolean {
  if (keys.length < 2) return true;
  return new Set(keys).size === keys.length;
}

/**
 * Splits the script's flat reply back into one StoreReply per group, or the error of a group
 * whose keys Redis could not read (that group only; nothing of it was written).
 */
export function parseDecideReply(
  reply: unknown,
  groups: readonly (readonly StoreEntry[])[],
): (StoreReply | RateLimitStoreError)[] {
  if (typeof reply === 'string') {
    const admitted =
      groups.length === 1 && groups[0].length === 1 && readLoneReply(reply, groups[0][0]);
    if (!admitted) throw unexpected(reply);
    return [admitted];
  }
  if (!Array.isArray(reply) || typeof reply[0] !== 'number') throw unexpected(reply);
  const values = reply as (number | string)[];
  const decidedAtUs = values[0] as number;
  const replies: (StoreReply | RateLimitStoreError)[] = new Array(groups.length);
  let i = 1;
  for (let g = 0; g < groups.length; g++) {
    const head = values[i++] as number;
    if (head === GROUP_FAILED) {
      replies[g] = new RateLimitStoreError('error', `Redis failed: ${String(values[i++])}`);
      continue;
    }
    const entries = groups[g];
    const decisions: Mutable<RateLimitDecision>[] = new Array(entries.length);
    if (i + decisions.length * FIELDS_PER_OUTCOME > values.length) throw unexpected(reply);
    for (let j = 0; j < decisions.length; j++, i += FIELDS_PER_OUTCOME) {
      // An entry is allowed exactly when its reason is 0 (see decide.lua).
      decisions[j] = storeDecision(
        entries[j],
        'redis',
        values[i] as number, // remaining
        values[i + 1] as number, // resetMs
        values[i + 2] as number, // retryAfterMs
        values[i + 3] as ReasonCode,
      );
    }
    const admitted = head % 2 === 1;
    if (head < WITH_EXTRAS) {
      replies[g] = { admitted, decisions, decidedAtUs };
      continue;
    }
    const uncharged: number[] = [];
    i = readExtras(values, i, decisions, uncharged, reply);
    replies[g] =
      uncharged.length === 0
        ? { admitted, decisions, decidedAtUs }
        : { admitted, decisions, decidedAtUs, uncharged };
  }
  if (i !== values.length) throw unexpected(reply);
  return replies;
}

/**
 * The extras of a group whose clients have overrides: per extra the entry's index (from 1), then
 * what its override did (see decide.lua's header), set on that entry's decision; an `allow` over
 * the limit adds the entry to `uncharged`. Answers where the next group starts.
 */
function readExtras(
  values: readonly (number | string)[],
  from: number,
  decisions: Mutable<RateLimitDecision>[],
  uncharged: number[],
  reply: unknown,
): number {
  let i = from;
  const count = values[i++];
  if (typeof count !== 'number') throw unexpected(reply);
  for (let e = 0; e < count; e++, i += 2) {
    const j = (values[i] as number) - 1;
    const value = values[i + 1];
    if (!(j in decisions) || value === undefined) throw unexpected(reply);
    const decision = decisions[j];
    if (typeof value === 'string') {
      decision.clientOverride = 'deny';
      if (value !== '') decision.message = value;
    } else if (value >= 1) {
      decision.clientOverride = 'quota';
      decision.limit = value;
    } else {
      decision.clientOverride = 'allow';
      if (value < 0) uncharged.push(j);
    }
  }
  return i;
}

function unexpected(reply: unknown): RateLimitStoreError {
  return new RateLimitStoreError(
    'error',
    `Unexpected reply from the rate limit script: ${String(reply)}`,
  );
}
