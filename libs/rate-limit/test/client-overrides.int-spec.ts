import { RATE_LIMIT_ALGORITHMS } from '../src/policy/rate-limit-algorithm';
import { encodeClientOverride } from '../src/store/client-override-value';
import type { ClientOverride } from '../src/policy/client-override';
import type { RateLimitPolicy } from '../src/policy/rate-limit-policy.interface';
import type { StoreEntry } from '../src/store/rate-limit-store.interface';
import {
  Client,
  T0,
  memoryFactory,
  policy,
  redisFactory,
  type StoreFactory,
  type StoreUnderTest,
} from './support/store-harness';

/**
 * Client overrides as both stores decide them (decide.lua reads the client's key in the same
 * call; the memory store mirrors it): the same expectations for Redis and memory, every algorithm.
 */
const factories: StoreFactory[] = [redisFactory(), redisFactory('scripts'), memoryFactory()];

describe.each(factories)('client overrides: $name store', (factory) => {
  let sut: StoreUnderTest;
  let client: Client;
  let other: Client;

  beforeAll(() => factory.setup());
  afterAll(() => factory.teardown());
  beforeEach(async () => {
    sut = await factory.create();
    // As ClientOverrides does once an override exists: decisions read the override keys.
    sut.keys.clientOverridesInUse = true;
    client = new Client(sut, 'ip:198.51.100.7');
    other = new Client(sut, 'ip:198.51.100.8');
  });

  function put(p: RateLimitPolicy, override: ClientOverride | null, who = client): Promise<void> {
    const key = client
      .entry(p)
      .overrideKey!.replace(
        sut.keys.identityTag(client.identity),
        sut.keys.identityTag(who.identity),
      );
    return sut.store.putClientOverride(
      key,
      override && encodeClientOverride(override),
      override?.expiresAt,
    );
  }

  async function admitted(who: Client, p: RateLimitPolicy, count: number, nowMs = T0) {
    let n = 0;
    for (let i = 0; i < count; i++) if ((await who.hit(p, nowMs)).allowed) n++;
    return n;
  }

  describe.each(RATE_LIMIT_ALGORITHMS)('%s (policy: 5 per 10 s)', (algo) => {
    const p = policy({ algo, limit: 5, window: 10_000 });

    it('a quota decides its client alone on its own thresholds', async () => {
      await put(p, { action: 'quota', limit: 8 });
      expect(await admitted(client, p, 12)).toBe(8);
      expect(await admitted(other, p, 12)).toBe(5);
      const rejected = await client.hit(p, T0);
      // The quota's capacity is what the client was decided on, so it is the limit reported.
      expect(rejected).toMatchObject({ allowed: false, reason: 'limit', remaining: 0, limit: 8 });
      expect((await other.hit(p, T0)).limit).toBe(5);
      expect(rejected.retryAfterMs).toBeGreaterThan(0);
    });

    it('a quota that sets only the window keeps the policy limit', async () => {
      await put(p, { action: 'quota', windowMs: 60_000 });
      expect(await admitted(client, p, 9)).toBe(5);
      // A minute-long window (or refill) leaves longer to wait than the policy's 10 s.
      expect((await client.hit(p, T0)).retryAfterMs).toBeGreaterThan(10_000);
    });

    it('allow admits whatever the state, charging only while within the limit', async () => {
      await put(p, { action: 'allow' });
      const out = [];
      for (let i = 0; i < 20; i++) out.push(await client.hit(p, T0));
      expect(out.every((o) => o.allowed && o.reason === undefined && o.retryAfterMs === 0)).toBe(
        true,
      );
      expect((await client.peek(p, T0)).remaining).toBe(0);
      // Lifted: the client is where its counted requests left it (5 charged, not 20).
      await put(p, null);
      expect(await admitted(client, p, 3)).toBe(0);
      expect(await admitted(client, p, 5, T0 + 10_000 * 5)).toBe(5);
    });

    it('deny rejects with its message and no retry time, charging nothing', async () => {
      await put(p, { action: 'deny', message: 'Your key is suspended' });
      const out = await client.hit(p, T0);
      expect(out).toEqual({
        policy: p.name,
        shadow: false,
        limit: 5,
        source: sut.store.source,
        allowed: false,
        remaining: 0,
        resetMs: 0,
        retryAfterMs: 0,
        reason: 'denied',
        message: 'Your key is suspended',
        clientOverride: 'deny',
      });
      expect(await admitted(client, p, 10)).toBe(0);
      await put(p, { action: 'deny' });
      expect((await client.hit(p, T0)).message).toBeUndefined();
      await put(p, null);
      expect(await admitted(client, p, 7)).toBe(5);
    });
  });

  it('a denied entry of a stacked request rejects it whole; the other policy is not charged', async () => {
    const a = policy({ algo: 'fixed-window' }, 'a');
    const b = policy({ algo: 'gcra' }, 'b');
    await put(b, { action: 'deny', message: 'no' });
    const reply = await client.run('consume', [a, b], T0);
    expect(reply.admitted).toBe(false);
    expect(reply.decisions.map((o) => [o.allowed, o.reason, o.message])).toEqual([
      [true, undefined, undefined],
      [false, 'denied', 'no'],
    ]);
    expect((await client.peek(a, T0)).remaining).toBe(5);
  });

  it('under a shadow policy a denied client is reported, not refused', async () => {
    const shadow = policy({ algo: 'fixed-window', mode: 'shadow' });
    await put(shadow, { action: 'deny' });
    const reply = await client.run('consume', [shadow], T0);
    expect(reply.admitted).toBe(true);
    expect(reply.decisions[0]).toMatchObject({ allowed: false, reason: 'denied' });
  });

  it('allow lets a client under a blockFor penalty through', async () => {
    const blocking = policy({ algo: 'fixed-window', limit: 1, blockFor: '1m' });
    await client.hit(blocking, T0);
    expect(await client.hit(blocking, T0)).toMatchObject({ allowed: false, reason: 'limit' });
    expect(await client.hit(blocking, T0)).toMatchObject({ allowed: false, reason: 'blocked' });
    await put(blocking, { action: 'allow' });
    const allowed = await client.hit(blocking, T0);
    expect(allowed).toMatchObject({ allowed: true });
    expect(allowed.reason).toBeUndefined();
  });

  it('a value written by hand that is no override is ignored', async () => {
    const p = policy({ algo: 'token-bucket' });
    for (const junk of [
      'quota:x:1:1',
      'ALLOW',
      'quota:',
      '',
      'quota:0:0:0',
      // Out of bounds: an integer reply cannot hold it (1e20), a window beyond 366 days.
      'quota:99999999999999999999::',
      'quota::99999999999999:',
      'quota:1000000001::1000000001',
    ]) {
      await sut.store.putClientOverride(client.entry(p).overrideKey!, junk);
      expect((await client.peek(p, T0)).remaining).toBe(5);
    }
  });

  it('a quota on a shadow policy stays in shadow', async () => {
    const p = policy({ algo: 'fixed-window', limit: 5, window: 10_000, mode: 'shadow' });
    await put(p, { action: 'quota', limit: 1 });
    await client.hit(p, T0);
    const reply = await client.run('consume', [p], T0);
    expect(reply.admitted).toBe(true);
    expect(reply.decisions[0]).toMatchObject({ allowed: false, reason: 'limit', limit: 1 });
  });

  it('keeps a quota threshold at either of its bounds', async () => {
    const MAX_LIMIT = 1_000_000_000;
    const p = policy({ algo: 'token-bucket', limit: 5, window: 10_000 });
    const key = client.entry(p).overrideKey!;
    // A token bucket reports its burst as its limit: the quota's, or its limit's when unset.
    for (const [raw, limit] of [
      ['quota:1::', 1],
      [`quota:${MAX_LIMIT}::`, MAX_LIMIT],
      ['quota:5::1', 1],
      [`quota:5::${MAX_LIMIT}`, MAX_LIMIT],
    ] as const) {
      await sut.store.putClientOverride(key, raw);
      expect(await client.peek(p, T0)).toMatchObject({ clientOverride: 'quota', limit });
    }
    // A window of 1 ms refills the bucket within 1 ms; one of 366 days not within 2 s, where the
    // policy's 10 s would have refilled a token. Two clients: the first one's key expires within
    // a millisecond of Redis's own clock.
    await sut.store.putClientOverride(key, 'quota::1:');
    await client.hit(p, T0);
    expect((await client.peek(p, T0 + 1)).remaining).toBe(5);
    await sut.store.putClientOverride(other.entry(p).overrideKey!, 'quota::31622400000:');
    await other.hit(p, T0);
    expect((await other.peek(p, T0 + 2_000)).remaining).toBe(4);
  });

  it("a quota threshold one past its bound is the policy's", async () => {
    const p = policy({ algo: 'token-bucket', limit: 5, window: 10_000 });
    // 366 days and 1 ms: the policy's 10 s refill a token within 2 s.
    await sut.store.putClientOverride(client.entry(p).overrideKey!, 'quota::31622400001:');
    await client.hit(p, T0);
    expect((await client.peek(p, T0 + 2_000)).remaining).toBe(5);
    const sliding = policy({ algo: 'sliding-window', limit: 5 });
    await put(sliding, { action: 'quota', limit: 10_001 });
    const decision = await client.hit(sliding, T0);
    expect(decision.limit).toBe(5);
    expect(decision.clientOverride).toBeUndefined();
  });

  it('a sliding-window quota above the log cap is no quota (written before an algo change)', async () => {
    const p = policy({ algo: 'sliding-window', limit: 5 });
    await put(p, { action: 'quota', limit: 20_000 });
    expect(await admitted(client, p, 7)).toBe(5);
    await put(p, { action: 'quota', limit: 10_000 });
    expect((await client.hit(p, T0)).limit).toBe(10_000);
  });

  it('reports which override applied, and an allow over its limit as uncharged', async () => {
    const p = policy({ algo: 'gcra', limit: 2 });
    await put(p, { action: 'allow' });
    const out = [];
    for (let i = 0; i < 3; i++) {
      const reply = await client.run('consume', [p], T0, 1);
      out.push([reply.decisions[0].clientOverride, reply.uncharged]);
    }
    expect(out).toEqual([
      ['allow', undefined],
      ['allow', undefined],
      ['allow', [0]],
    ]);
    await put(p, { action: 'quota', limit: 4 });
    expect(await client.hit(p, T0)).toMatchObject({ clientOverride: 'quota', limit: 4 });
    await put(p, { action: 'deny' });
    expect(await client.hit(p, T0)).toMatchObject({ clientOverride: 'deny', reason: 'denied' });
    expect((await other.hit(p, T0)).clientOverride).toBeUndefined();
  });

  it("one client's override never carries over to the next client decided", async () => {
    // Two policies: groups of several entries, whose overrides are read into entry slots that
    // the groups of one call share. On Redis time, so that the two calls below are one batch.
    const p = policy({ algo: 'fixed-window', limit: 1, window: '1h' }, 'no-carry');
    const wide = policy({ algo: 'fixed-window', limit: 100, window: '1h' }, 'no-carry-wide');
    await put(p, { action: 'allow' });
    expect((await other.run('consume', [p, wide])).admitted).toBe(true);
    const [mine, next] = await Promise.all([
      client.run('consume', [p, wide]),
      other.run('consume', [p, wide]),
    ]);
    expect(mine.decisions[0].clientOverride).toBe('allow');
    expect(next.admitted).toBe(false);
    expect(next.decisions[0]).toMatchObject({ allowed: false, reason: 'limit' });
    expect(next.decisions[0]).not.toHaveProperty('clientOverride');
  });

  it('a batch mixing entries with and without override keys reads only their own', async () => {
    // Entries made before an instance learned that overrides are in use carry no override key,
    // and may share a batch with entries made after.
    const p = policy({ algo: 'fixed-window', limit: 1, window: '1h' }, 'mixed-keys');
    const wide = policy({ algo: 'fixed-window', limit: 100, window: '1h' }, 'mixed-keys-wide');
    await put(p, { action: 'allow' });
    const withoutKey = ({ overrideKey: _, ...entry }: StoreEntry): StoreEntry => entry;
    const others = [other.entry(p), other.entry(wide)].map(withoutKey);
    expect((await sut.store.decide('consume', others)).admitted).toBe(true);
    const [mine, next] = await Promise.all([
      sut.store.decide('consume', [client.entry(p), client.entry(wide)]),
      sut.store.decide('consume', others),
    ]);
    expect(mine.decisions[0].clientOverride).toBe('allow');
    expect(next.admitted).toBe(false);
    expect(next.decisions[0]).not.toHaveProperty('clientOverride');
  });

  it('each kind of override in one batch leaves the groups after it their own replies', async () => {
    // On Redis time, so that the five calls are one batch: a deny, a quota, an allow and a
    // quota with a deny in one group each add extras to the reply, before a plain group.
    const [pD, pQ, pA] = ['deny', 'quota', 'allow'].map((name) =>
      policy({ algo: 'fixed-window', limit: 5, window: '1h' }, `batch-${name}`),
    );
    const wide = policy({ algo: 'fixed-window', limit: 100, window: '1h' }, 'batch-wide');
    const [c1, c2, c3, c4, c5] = [11, 12, 13, 14, 15].map(
      (n) => new Client(sut, `ip:198.51.100.${n}`),
    );
    await put(pD, { action: 'deny' }, c1);
    await put(pQ, { action: 'quota', limit: 3 }, c2);
    await put(pA, { action: 'allow' }, c3);
    await put(pQ, { action: 'quota', limit: 3 }, c4);
    await put(pD, { action: 'deny' }, c4);
    await c5.hit(wide); // the script is loaded before the batch
    const [denied, quota, allowed, both, plain] = await Promise.all([
      c1.run('consume', [pD, wide]),
      c2.run('consume', [pQ, wide]),
      c3.run('consume', [pA, wide]),
      c4.run('consume', [pQ, pD]),
      c5.run('consume', [wide]),
    ]);
    expect(denied.admitted).toBe(false);
    expect(denied.decisions[0]).toMatchObject({ reason: 'denied', clientOverride: 'deny' });
    expect(quota.admitted).toBe(true);
    expect(quota.decisions[0]).toMatchObject({ remaining: 2, limit: 3, clientOverride: 'quota' });
    expect(allowed.admitted).toBe(true);
    expect(allowed.decisions[0].clientOverride).toBe('allow');
    expect(both.admitted).toBe(false);
    expect(both.decisions.map((o) => o.clientOverride)).toEqual(['quota', 'deny']);
    expect(plain.admitted).toBe(true);
    expect(plain.decisions[0]).toMatchObject({ remaining: 98 });
    expect(plain.decisions[0]).not.toHaveProperty('clientOverride');
  });

  it("a quota on one of many stacked policies leaves the others' thresholds alone", async () => {
    // Seven specs: the quota's own spec goes after all of them in the call (decide.lua).
    const stack = [11, 12, 13, 14, 15, 16, 17].map((limit) =>
      policy({ algo: 'fixed-window', limit, window: '1h' }, `stack-${limit}`),
    );
    await put(stack[6], { action: 'quota', limit: 3 });
    const reply = await client.run('consume', stack, T0);
    expect(reply.admitted).toBe(true);
    expect(reply.decisions.map((o) => o.remaining)).toEqual([10, 11, 12, 13, 14, 15, 2]);
  });

  it('an override with an expiry vanishes by itself at that time', async () => {
    const p = policy({ algo: 'sliding-window-counter', limit: 5, window: '1h' });
    const expiresAt = Date.now() + 400;
    await put(p, { action: 'deny', expiresAt });
    expect((await client.hit(p)).reason).toBe('denied');
    // Waits on the clock itself: the expiry is the event under test.
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 5));
    expect((await client.hit(p)).allowed).toBe(true);
  });
});
