import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import { RateLimitMetrics } from './rate-limit-metrics';

const decision = (over: Partial<RateLimitDecision>): RateLimitDecision => ({
  policy: 'api',
  allowed: true,
  shadow: false,
  limit: 10,
  remaining: 9,
  resetMs: 1_000,
  retryAfterMs: 0,
  source: 'redis',
  ...over,
});
const verdict = (...decisions: RateLimitDecision[]): RateLimitVerdict => ({
  allowed: decisions.every((d) => d.allowed || d.shadow),
  decisions,
  source: 'redis',
});

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('RateLimitMetrics (decisions counted in bulk, added to the counters when scraped)', () => {
  it('counts each decision once however often it is scraped', async () => {
    const metrics = new RateLimitMetrics();
    metrics.observe(verdict(decision({})));
    metrics.observe(verdict(decision({ remaining: 1 }))); // near the limit
    metrics.observe(verdict(decision({ allowed: false, remaining: 0, reason: 'limit' })));
    metrics.observe(verdict(decision({ policy: 'web', allowed: false, shadow: true })));
    const first = await metrics.registry.metrics();
    expect(sample(first, 'rate_limit_decisions_total{policy="api",outcome="allowed"}')).toBe(2);
    expect(sample(first, 'rate_limit_decisions_total{policy="api",outcome="rejected"}')).toBe(1);
    expect(
      sample(first, 'rate_limit_decisions_total{policy="web",outcome="shadow_rejected"}'),
    ).toBe(1);
    expect(sample(first, 'rate_limit_near_limit_total{policy="api"}')).toBe(1);

    metrics.observe(verdict(decision({})));
    const second = await metrics.registry.metrics();
    expect(sample(second, 'rate_limit_decisions_total{policy="api",outcome="allowed"}')).toBe(3);
    expect(sample(second, 'rate_limit_near_limit_total{policy="api"}')).toBe(1);
    expect(await metrics.registry.metrics()).toBe(second);
  });

  it('shows no series for a policy that decided nothing, and times every command', async () => {
    const metrics = new RateLimitMetrics();
    metrics.observeCommand(0.0007);
    metrics.observeCommand(0.2);
    const text = await metrics.registry.metrics();
    expect(text).not.toContain('rate_limit_decisions_total{');
    expect(sample(text, 'rate_limit_redis_command_duration_seconds_count')).toBe(2);
    expect(sample(text, 'rate_limit_redis_command_duration_seconds_bucket{le="0.001"}')).toBe(1);
  });
});
