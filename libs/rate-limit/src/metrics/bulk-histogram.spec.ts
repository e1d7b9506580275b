import { Histogram, Registry } from 'prom-client';
import { BulkHistogram } from './bulk-histogram';

const BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

describe('BulkHistogram', () => {
  it("is scraped exactly as prom-client's Histogram with the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const bulk = new BulkHistogram('cmd_seconds', 'Latency', BUCKETS, ours);
    const reference = new Histogram({
      name: 'cmd_seconds',
      help: 'Latency',
      buckets: BUCKETS,
      registers: [theirs],
    });
    // On a bucket's bound, between bounds, above the last, and zero.
    for (const value of [0, 0.0005, 0.0007, 0.001, 0.003, 0.5, 1, 2.5, 0.0002, 0.02]) {
      bulk.observe(value);
      reference.observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('reads zero in every bucket before any observation, and after reset', async () => {
    const registry = new Registry();
    const bulk = new BulkHistogram('cmd_seconds', 'Latency', [0.1, 1], registry);
    bulk.observe(0.5);
    bulk.reset();
    const text = await registry.metrics();
    expect(text).toContain('cmd_seconds_bucket{le="0.1"} 0');
    expect(text).toContain('cmd_seconds_bucket{le="+Inf"} 0');
    expect(text).toContain('cmd_seconds_count 0');
  });
});
