import { MemoryStoreDriver, T0, thresholds } from '../../../../test/support/memory-store-driver';

describe('token-bucket (memory store)', () => {
  // 5 tokens, one more every 2 s.
  const p = thresholds('token-bucket', 5, 10_000);
  let client: MemoryStoreDriver;
  beforeEach(() => {
    client = new MemoryStoreDriver();
  });
  afterEach(() => client.close());

  it('keeps its tokens across a change of thresholds, clamped to a lower capacity', async () => {
    const ten = thresholds('token-bucket', 10, 10_000);
    await client.hits(ten, 2); // 8 left
    expect((await client.peek({ ...ten, burst: 4 })).remaining).toBe(4);
    expect((await client.peek(thresholds('token-bucket', 20, 10_000))).remaining).toBe(8);
  });

  describe('refund', () => {
    it('gives back the cost', async () => {
      await client.hits(p, 3);
      await client.refund(p, T0);
      expect(await client.peek(p)).toMatchObject({ remaining: 3, resetMs: 4_000 });
      expect(client.pttl(p)).toBe(4_000);
    });

    it('never fills the bucket past its capacity, and a full bucket is held as nothing', async () => {
      await client.hit(p);
      await client.refund(p, T0, 3);
      expect((await client.peek(p)).remaining).toBe(5);
      expect(client.pttl(p)).toBe(-2);
    });
  });
});
