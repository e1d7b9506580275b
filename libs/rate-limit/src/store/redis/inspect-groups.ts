import type { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';
import type { StoreEntry, StoreReply } from '../rate-limit-store.interface';
import { encodeDecideCall, parseDecideReply } from './decide-call';
import type { RedisClient, RoundTrip } from './redis-script';

/** One call of the decide program for `groups` (the store's: FCALL or EVALSHA). */
export type DecideRun = (
  groups: readonly (readonly StoreEntry[])[],
  keys: readonly string[],
  args: readonly (string | number)[],
  roundTrip: RoundTrip,
) => Promise<unknown>;
import { withTimeout } from './with-timeout';
import { isCluster } from '../../util/ioredis-shapes';

/** Groups the admin listing reads per script call; the steps go one after another. */
const GROUPS_PER_STEP = 100;

/**
 * The standing of many groups without charging (the admin listing), on a time budget of its
 * own, never through the request path's breaker: 100 groups at a time, one step after another,
 * so that live traffic's commands are served in between; one call per step on a single Redis,
 * one call per group on a cluster (each identity is a slot of its own), sent together.
 */
export async function inspectGroups(
  client: RedisClient,
  groups: readonly (readonly StoreEntry[])[],
  run: DecideRun,
): Promise<(StoreReply | RateLimitStoreError)[]> {
  const deadline = performance.now() + BACKGROUND_TIMEOUT_MS;
  const roundTrip: RoundTrip = (reply) =>
    withTimeout(reply, Math.max(1, deadline - performance.now()));
  const replies: (StoreReply | RateLimitStoreError)[] = [];
  const perGroup = isCluster(client);
  for (let start = 0; start < groups.length; start += GROUPS_PER_STEP) {
    const step = groups.slice(start, start + GROUPS_PER_STEP);
    const calls = perGroup ? step.map((group) => [group]) : [step];
    const answers = await Promise.all(
      calls.map(async (call) => {
        const { keys, args } = encodeDecideCall('peek', call, undefined);
        const reply = await run(call, keys, args, roundTrip);
        return parseDecideReply(reply, call);
      }),
    );
    for (const answer of answers) replies.push(...answer);
  }
  return replies;
}
