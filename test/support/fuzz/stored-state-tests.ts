/**
 * Properties of what operators (or anything with Redis access) write straight into the demo's
 * keys: the admin API and the routes keep answering 2xx/4xx with valid views, and a refused
 * PATCH still writes nothing. Registered by the fuzz suite, which owns the demo process.
 */
import fc from 'fast-check';
import { patchBody } from './admin-arbitraries';
import type { FuzzDemo } from './fuzz-demo';
import { runLanes } from './fuzz-runner';
import type { FuzzSession } from './fuzz-session';
import { hostileText, numberText } from './hostile-values';
import { policyHashWrite, sourceAddress } from './traffic-arbitraries';

export interface StoredStateContext {
  t: FuzzDemo;
  s: FuzzSession;
  names: string[];
  seed: number;
}

/** Longer than two refresh intervals (RATE_LIMIT_POLICY_REFRESH_MS=50). */
const REFRESHED_MS = 120;
const refreshed = () => new Promise((resolve) => setTimeout(resolve, REFRESHED_MS));

/** What a key can be turned into (its value fuzzed). */
const CORRUPTIONS = [
  { key: 'policy', as: 'string' },
  { key: 'policy', as: 'list' },
  { key: 'policy', as: 'set' },
  { key: 'stats', as: 'string' },
  { key: 'stats', as: 'list' },
  { key: 'stats', as: 'hash' }, // a hash whose counts are not numbers
] as const;

export function storedStateTests(context: () => StoredStateContext): void {
  it('policy hash fields written with HSET: views stay valid, routes still decide', async () => {
    const { t, s, names, seed } = context();
    await runLanes({
      surface: 'policy-hash',
      seed,
      lanes: names.length, // one lane per policy: its writes stay sequential
      runsPerLane: 60,
      arbitrary: () => fc.tuple(policyHashWrite, patchBody, sourceAddress(55), fc.nat(4)),
      async check([write, body, from, fifth], lane) {
        const name = names[lane];
        const key = `${t.prefix}:policy:${name}`;
        if (write.replace) await t.redis.del(key);
        await t.redis.hset(key, Object.fromEntries(write.fields));
        await refreshed();
        await s.views('policy-hash', name);
        await s.route('policy-hash', name, from);
        await s.route('policy-hash', name, from);
        await s.patch('policy-hash', name, body);
        if (fifth === 0) await s.views('policy-hash');
      },
    });
    await Promise.all(names.map((name) => t.redis.del(`${t.prefix}:policy:${name}`)));
  });

  // SPEC §5, §11: stored contents are validated and requests never fail on them. Found by this
  // suite: a policy or stats key of another type answered 503 ("Redis is unavailable:
  // WRONGTYPE ...") and counts that are not numbers were listed as null; now a PATCH onto such a
  // policy key is a 409 naming it, and stats read as 0.
  it.each(CORRUPTIONS)('a $key key written as a $as: 2xx/4xx with valid views', async (corrupt) => {
    const { t, s, names, seed } = context();
    const name = names[CORRUPTIONS.indexOf(corrupt)];
    const key = `${t.prefix}:${corrupt.key}:${name}`;
    await runLanes({
      surface: 'key-types',
      seed: seed + 1_000 + CORRUPTIONS.indexOf(corrupt),
      lanes: 1,
      runsPerLane: 5,
      arbitrary: () => fc.oneof(numberText, hostileText(100)),
      async check(value) {
        await t.redis.del(key);
        if (corrupt.as === 'string') await t.redis.set(key, value);
        if (corrupt.as === 'list') await t.redis.rpush(key, value);
        if (corrupt.as === 'set') await t.redis.sadd(key, value);
        if (corrupt.as === 'hash') await t.redis.hset(key, { allowed: value, rejected: value });
        try {
          await refreshed();
          await s.views('key-types');
          await s.views('key-types', name);
          await s.patch('key-types', name, {
            contentType: 'application/json',
            text: '{"limit":3}',
          });
          await s.route('key-types', name, '127.44.0.1');
        } finally {
          await t.redis.del(key);
        }
      },
    });
  });
}
