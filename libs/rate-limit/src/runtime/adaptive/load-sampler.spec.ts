import { setTimeout as sleep } from 'node:timers/promises';
import { LoadSampler } from './load-sampler';

/**
 * Node's signals measured for real. Only lower bounds are asserted: a busy host can make a
 * block look longer, never shorter.
 */
describe('LoadSampler', () => {
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };

  it('reads a 200 ms block as utilisation, event-loop delay, CPU and a late tick', async () => {
    const sampler = new LoadSampler(1);
    try {
      sampler.sample(performance.now());
      await sleep(20);
      const dueAt = performance.now();
      const recorded = sampler.delaysRecorded;
      busy(200);
      // Until the delay histogram's timer has fired after the block (it records the block's
      // delay then): a fixed 15 ms wait once read before it on a loaded CI host.
      while (sampler.delaysRecorded === recorded) await sleep(5);
      const signals = sampler.sample(dueAt);
      expect(signals.elu).toBeGreaterThan(0.6);
      expect(signals.eventLoopDelayMs).toBeGreaterThanOrEqual(180);
      expect(signals.tickLatenessMs).toBeGreaterThanOrEqual(200);
      expect(signals.cpu).toBeGreaterThan(0.2);
      expect(signals.heap).toBeGreaterThan(0);
      expect(signals.heap).toBeLessThan(1);
    } finally {
      sampler.stop();
    }
  });

  it('records a block that begins right after a sample, before its timer fires again', async () => {
    const sampler = new LoadSampler(1);
    try {
      await sleep(30);
      const dueAt = performance.now();
      sampler.sample(dueAt);
      busy(200);
      const recorded = sampler.delaysRecorded;
      while (sampler.delaysRecorded === recorded) await sleep(5);
      expect(sampler.sample(dueAt).eventLoopDelayMs).toBeGreaterThanOrEqual(180);
    } finally {
      sampler.stop();
    }
  });

  it('has no CPU signal without a quota', () => {
    const sampler = new LoadSampler(undefined);
    try {
      expect(sampler.sample(performance.now()).cpu).toBeUndefined();
    } finally {
      sampler.stop();
    }
  });
});
