import type { RateLimitPolicy } from '../../policy/rate-limit-policy.interface';
import type { StoreEntry, StoreReply } from '../rate-limit-store.interface';
import { storeDecision } from '../store-decision';

/**
 * The lone form (see decide.lua): one entry decided on Redis time, without a client override
 * key or a penalty. The usual request, in 1 argument instead of 14: every argument costs Redis
 * (about 1,000 instructions, callgrind) and the client more (about 2,300: ioredis writes each
 * one apart), and Redis parses a spec once per library load. A policy's spec is built once.
 * Undefined when the entry cannot be sent so.
 */
export function encodeLoneCall(
  op: 'consume' | 'peek',
  entry: StoreEntry,
): { keys: string[]; args: string[] } | undefined {
  const { policy, cost } = entry;
  if (entry.overrideKey !== undefined || policy.blockForMs > 0) return undefined;
  let specs = loneSpecs.get(policy);
  if (specs === undefined) loneSpecs.set(policy, (specs = loneSpecsOf(policy)));
  if (cost === 1) return { keys: [entry.key], args: [specs[op]] };
  const { algo, limit, windowMs, burst } = policy;
  const op1 = op === 'consume' ? 'c' : 'p';
  return {
    keys: [entry.key],
    args: [`${op1}${algo}:${limit}:${windowMs}:${burst}:${specs.shadow}:${cost}`],
  };
}

/** Per policy object (a new one on every change), its lone specs for cost 1. */
const loneSpecs = new WeakMap<RateLimitPolicy, LoneSpecs>();

interface LoneSpecs {
  readonly consume: string;
  readonly peek: string;
  readonly shadow: 0 | 1;
}

function loneSpecsOf({ algo, limit, windowMs, burst, mode }: RateLimitPolicy): LoneSpecs {
  const shadow = mode === 'shadow' ? 1 : 0;
  // burst, shadow and cost only when one of them is not its default.
  const more = burst !== limit || shadow ? `:${burst}:${shadow}:1` : '';
  return {
    consume: `c${algo}:${limit}:${windowMs}${more}`,
    peek: `p${algo}:${limit}:${windowMs}${more}`,
    shadow,
  };
}

/**
 * The lone form's reply when it admits (see decide.lua): '<seconds>:<microseconds>:<remaining>:
 * <resetMs>', read without splitting it (no array, no strings but the four numbers); undefined
 * when it is not one.
 */
export function readLoneReply(reply: string, entry: StoreEntry): StoreReply | undefined {
  const a = reply.indexOf(':');
  const b = reply.indexOf(':', a + 1);
  const c = reply.indexOf(':', b + 1);
  const decidedAtUs = Number(reply.slice(0, a)) * 1_000_000 + Number(reply.slice(a + 1, b));
  const remaining = Number(reply.slice(b + 1, c));
  const resetMs = Number(reply.slice(c + 1));
  // Every field present (an empty one would read as 0) and a number.
  const present = a > 0 && b > a + 1 && c > b + 1 && c + 1 < reply.length;
  if (!(present && decidedAtUs >= 0 && remaining >= 0 && resetMs >= 0)) return undefined;
  const decision = storeDecision(entry, 'redis', remaining, resetMs, 0, 0);
  return { admitted: true, decisions: [decision], decidedAtUs };
}
