import type { StoreEntry, StoreReply } from '../rate-limit-store.interface';
import { DecideBatcher } from './decide-batcher';

const reply: StoreReply = { admitted: true, decisions: [], decidedAtUs: 0 };
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

  it('sends a lone call before the event loop turns when nothing is in flight', async () => {
    const { batcher, calls } = heldBatcher();
    const answer = batcher.decide(group(0));
    // Microtasks only: no setImmediate has run yet.
    await Promise.resolve();
    await Promise.resolve();
    expect(calls.map((c) => c.size)).toEqual([1]);
    calls[0].answer();
    await expect(answer).resolves.toBe(reply);
  });

  it('with a call in flight, collects the calls of the whole turn into one', async () => {
    const { batcher, calls } = heldBatcher();
    const first = batcher.decide(group(0));
    await Promise.resolve();
    expect(calls).toHaveLength(1);
    // Two callers in separate macrotasks of one turn (as two sockets read in one poll phase).
    const more: Promise<StoreReply>[] = [];
    await new Promise<void>((resolve) => {
      setImmediate(() => more.push(batcher.decide(group(1))));
      setImmediate(() => {
        more.push(batcher.decide(group(2)));
        resolve();
      });
    });
    await nextTurn();
    expect(calls.map((c) => c.size)).toEqual([1, 2]);
    calls.forEach((c) => c.answer());
    await expect(Promise.all([first, ...more])).resolves.toHaveLength(3);
  });

  it('callers woken by one reply share the next call', async () => {
    const { batcher, calls } = heldBatcher();
    // 20 callers that ask again as soon as they are answered (a closed loop).
    const loops = Array.from({ length: 20 }, (_, i) =>
      batcher.decide(group(i)).then(() => batcher.decide(group(100 + i))),
    );
    await nextTurn();
    expect(calls.map((c) => c.size)).toEqual([10, 10]);
    calls[0].answer();
    calls[1].answer();
    await nextTurn();
    // The 20 second requests: one flush, split in two as nothing is in flight.
    expect(calls.slice(2).map((c) => c.size)).toEqual([10, 10]);
    calls.slice(2).forEach((c) => c.answer());
    await expect(Promise.all(loops)).resolves.toHaveLength(20);
  });
});
