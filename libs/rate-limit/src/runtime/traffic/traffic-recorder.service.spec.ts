import { resolveModuleOptions } from '../../config/resolve-module-options';
import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../../decision/rate-limit-decision.interface';
import type { PolicyRequest } from '../../engine/policy-request';
import { MemoryTrafficStore } from '../../backends/memory/memory-traffic-store';
import { BUCKET_MS } from './traffic-buckets';
import { TrafficRecorder } from './traffic-recorder.service';
import { TrafficStoreNotReady, type TrafficStore } from './traffic-store';

const decision = (policy: string, allowed: boolean, shadow = false) =>
  ({ policy, allowed, shadow }) as RateLimitDecision;
const requestOf = (policy: string, identity: string) =>
  ({ policy: { name: policy }, identity, cost: 1 }) as unknown as PolicyRequest;

describe('TrafficRecorder', () => {
  const config = resolveModuleOptions({});
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

  it('counts each decision under its policy and each rejection under its own identity', async () => {
    const recorder = new TrafficRecorder(config, new MemoryTrafficStore());
    const verdict: RateLimitVerdict = {
      allowed: false,
      source: 'redis',
      decisions: [decision('a', true), decision('b', false), decision('c', false, true)],
    };
    const requests = [requestOf('a', 'ip:1'), requestOf('b', 'ip:2'), requestOf('c', 'ip:3')];
    recorder.observe(verdict, requests);
    recorder.observe(verdict, requests);
    await recorder.flush();
    const series = await recorder.series(['a', 'b', 'c'], 5);
    // `a` admitted but the request was rejected by `b`: not charged, counted as neither.
    expect(sum(series.policies.get('a')!.allowed)).toBe(0);
    expect(sum(series.policies.get('b')!.rejected)).toBe(2);
    expect(sum(series.policies.get('c')!.shadowRejected)).toBe(2);
    expect(await recorder.topRejected('b', 5, 10)).toEqual([['ip:2', 2]]);
    expect(await recorder.topRejected('c', 5, 10)).toEqual([['ip:3', 2]]);
    expect(await recorder.topRejected('a', 5, 10)).toEqual([]);
    expect(recorder.lastFlushAt).not.toBeNull();
  });

  it('keeps counts a store could not send (Redis not connected) for the next flush', async () => {
    const memory = new MemoryTrafficStore();
    let ready = false;
    const store: TrafficStore = {
      write: (...args) =>
        ready ? memory.write(...args) : Promise.reject(new TrafficStoreNotReady()),
      series: (...args) => memory.series(...args),
      topRejected: (...args) => memory.topRejected(...args),
    };
    const recorder = new TrafficRecorder(config, store);
    const verdict: RateLimitVerdict = {
      allowed: true,
      source: 'redis',
      decisions: [decision('a', true)],
    };
    recorder.observe(verdict, [requestOf('a', 'ip:1')]);
    await recorder.flush();
    expect(recorder.lastFlushAt).toBeNull();
    recorder.observe(verdict, [requestOf('a', 'ip:1')]);
    ready = true;
    await recorder.flush();
    expect(sum((await recorder.series(['a'], 5)).policies.get('a')!.allowed)).toBe(2);
  });

  it('drops counts of a write that failed otherwise (some may have applied: never twice)', async () => {
    const memory = new MemoryTrafficStore();
    let fail = true;
    const store: TrafficStore = {
      write: (...args) => (fail ? Promise.reject(new Error('timeout')) : memory.write(...args)),
      series: (...args) => memory.series(...args),
      topRejected: (...args) => memory.topRejected(...args),
    };
    const recorder = new TrafficRecorder(config, store);
    recorder.observe({ allowed: true, source: 'redis', decisions: [decision('a', true)] }, []);
    await recorder.flush();
    fail = false;
    await recorder.flush();
    expect(sum((await recorder.series(['a'], 5)).policies.get('a')!.allowed)).toBe(0);
  });

  it('ends the series now, within the bucket in progress', async () => {
    const recorder = new TrafficRecorder(config, new MemoryTrafficStore());
    const now = 1_800_000_000_000 + 3_000;
    const series = await recorder.series(['a'], 60, now);
    expect(series.end).toBe(now);
    expect(series.start).toBe(now - 3_000 - 359 * BUCKET_MS);
    expect(series.policies.get('a')!.allowed).toHaveLength(360);
  });
});
