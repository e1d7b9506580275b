import type { StoreEntry, StoreReply } from '../rate-limit-store.interface';
import { DecideBatcher } from './decide-batcher';

const reply: StoreReply = { admitted: true, outcomes: [], decidedAtUs: 0 };
const group = (i: number) => [{ key: `k${i}` } as StoreEntry];
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A batcher whose script calls the test answers by hand; records each call's group count. */
function heldBatcher() {
  const calls: { size: number; answer: () => void }[] = [];
  const batcher = new DecideBatcher(
    (groups) =>
      new Promise((resolve) => {
        calls.push({ size: groups.length, answer: () => resolve(groups.map(() => reply)) });
      }),
  );
  return { batcher, calls };
}

describe('DecideBatcher', () => {
  it('sends fewer than 16 groups as one call', async () => {
    const { batcher, calls } = heldBatcher();
    const answers = Array.from({ length: 15 }, (_, i) => batcher.decide(group(i)));
    await nextTurn();
    expect(calls.map((c) => c.size)).toEqual([15]);
    calls[0].answer();
    await expect(Promise.all(answers)).resolves.toHaveLength(15);
  });

  it('splits a batch in two when no call is in flight, so Redis and Node overlap', async () => {
    const { batcher, calls } = heldBatcher();
    const answers = Array.from({ length: 40 }, (_, i) => batcher.decide(group(i)));
    await nextTurn();
    expect(calls.map((c) => c.size)).toEqual([20, 20]);
    // While those are in flight, the next batch goes as one call.
    const more = Array.from({ length: 40 }, (_, i) => batcher.decide(group(100 + i)));
    await nextTurn();
    expect(calls.map((c) => c.size)).toEqual([20, 20, 40]);
    calls.forEach((c) => c.answer());
    await expect(Promise.all([...answers, ...more])).resolves.toHaveLength(80);
  });

  it('never sends more than 64 groups in one call', async () => {
    const { batcher, calls } = heldBatcher();
    const answers = Array.from({ length: 150 }, (_, i) => batcher.decide(group(i)));
    await nextTurn();
    expect(calls.map((c) => c.size)).toEqual([50, 50, 50]);
    calls.forEach((c) => c.answer());
    await expect(Promise.all(answers)).resolves.toHaveLength(150);
  });
});
