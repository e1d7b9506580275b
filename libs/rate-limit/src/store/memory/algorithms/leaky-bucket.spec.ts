import { MemoryStoreDriver, T0, thresholds } from '../../../../test/support/memory-store-driver';

describe('leaky-bucket (memory store)', () => {
  // Holds 5, leaks one every 2 s.
  const p = thresholds('leaky-bucket', 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  describe('refund', () => {
    it('takes the cost back out of the bucket', async () => {
      await client.hits(p, 3);
      await client.refund(p, T0);
      expect(await client.peek(p)).toMatchObject({ remaining: 3, resetMs: 4_000 });
      expect(client.pttl(p)).toBe(4_000);
    });

    it('of exactly the level leaves nothing held', async () => {
      await client.hits(p, 2);
      await client.refund(p, T0, 2);
      expect(client.pttl(p)).toBe(-2);
    });

    it('never below empty, and an empty bucket is held as nothing', async () => {
      await client.hit(p);
      await client.refund(p, T0, 3);
      expect((await client.peek(p)).remaining).toBe(5);
      expect(client.pttl(p)).toBe(-2);
    });
  });
});
