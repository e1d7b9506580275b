/**
 * The guard alone, on HTTP: a route table, registry and engine stubbed (test/support/
 * guard-harness.ts), contexts built by hand. What the guard does with a route and a verdict;
 * the guard on a booted app, over HTTP, is libs/rate-limit/test/e2e/guard/.
 */
import { ServiceUnavailableException, type ExecutionContext } from '@nestjs/common';
import {
  httpContext,
  incoming,
  recordingResponse,
  type Handler,
} from '../../test/support/execution-contexts';
import {
  activate,
  decision,
  guardHarness,
  policy,
  routePolicy,
  verdict,
  type GuardSetup,
} from '../../test/support/guard-harness';
import type { RateLimitModuleOptions } from '../config/rate-limit-module-options.interface';
import { InvalidCostError } from '../errors/invalid-cost.error';
import type { CompiledRoute } from '../registry/compiled-route';
import { RateLimitExceededException } from './rate-limit-exceeded.exception';

function limited() {}
function unlimited() {}
const A = policy('a');
const B = policy('b', { limit: 2 });
const ROUTE: CompiledRoute = { kind: 'http', policies: [routePolicy('a'), routePolicy('b')] };
const ADMITTED = verdict(
  decision('a', { remaining: 3 }),
  decision('b', { limit: 2, remaining: 1, resetMs: 1_500 }),
);
const REJECTED = verdict(decision('a'), decision('b', { limit: 2, retryAfterMs: 4_200 }));
const FAIL_CLOSED = { allowed: false, source: 'fail-closed' as const, decisions: [] };

function setup(parts: Partial<GuardSetup> = {}) {
  return guardHarness({
    routes: new Map<Handler, CompiledRoute>([[limited, ROUTE]]),
    policies: [A, B],
    verdicts: () => ADMITTED,
    ...parts,
  });
}

/** A call of `handler` with its own response, whose headers the test reads. */
function call(handler: Handler = limited, request = incoming()) {
  const response = recordingResponse();
  return { context: httpContext({ handler }, request, response), headers: response.headers };
}

describe('RateLimitGuard on HTTP', () => {
  it('lets a handler without a route through, with no decision and no header', async () => {
    const { guard, decided } = setup();
    const { context, headers } = call(unlimited);
    expect(await activate(guard, context)).toBe(true);
    expect([decided, headers]).toEqual([[], {}]);
  });

  it("admits after one decision of the route's policies, with the most restrictive one's headers", async () => {
    const { guard, decided, learned } = setup();
    const { context, headers } = call();
    expect(await activate(guard, context)).toBe(true);
    expect(decided).toEqual([
      [
        { policy: A, identity: 'ip:192.0.2.1', cost: 1 },
        { policy: B, identity: 'ip:192.0.2.1', cost: 1 },
      ],
    ]);
    expect(headers).toEqual({
      'ratelimit-limit': '2',
      'ratelimit-remaining': '1',
      'ratelimit-reset': '2',
    });
    expect(learned).toEqual([]);
  });

  it('rejects with a 429 body naming the rejecting policy, Retry-After, and teaches the shedder', async () => {
    const { guard, learned } = setup({ verdicts: () => REJECTED });
    const request = incoming();
    const { context, headers } = call(limited, request);
    const error = await activate(guard, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitExceededException);
    expect((error as RateLimitExceededException).getStatus()).toBe(429);
    expect((error as RateLimitExceededException).getResponse()).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      policy: 'b',
      retryAfter: 5,
    });
    expect(headers).toEqual({
      'ratelimit-limit': '2',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '30',
      'retry-after': '5',
    });
    expect(learned).toEqual([[request, ROUTE]]);
  });

  it('answers 503 when Redis cannot decide and onRedisError is closed, with no header', async () => {
    const { guard, learned } = setup({ verdicts: () => FAIL_CLOSED });
    const { context, headers } = call();
    await expect(activate(guard, context)).rejects.toThrow(ServiceUnavailableException);
    expect([headers, learned]).toEqual([{}, []]);
  });

  it.each<[RateLimitModuleOptions['headers'], Record<string, string>, Record<string, string>]>([
    [
      'ietf-draft',
      { 'ratelimit-policy': '"b";q=2', ratelimit: '"b";r=1;t=2' },
      { 'ratelimit-policy': '"b";q=2', ratelimit: '"b";r=0;t=30', 'retry-after': '5' },
    ],
    ['none', {}, { 'retry-after': '5' }],
  ])(
    'with headers: %s writes its own style (Retry-After on a 429 in every style)',
    async (style, ok, rejected) => {
      const admitted = setup({ options: { headers: style } });
      const first = call();
      await activate(admitted.guard, first.context);
      expect(first.headers).toEqual(ok);
      const refused = setup({ options: { headers: style }, verdicts: () => REJECTED });
      const second = call();
      await expect(activate(refused.guard, second.context)).rejects.toThrow(
        RateLimitExceededException,
      );
      expect(second.headers).toEqual(rejected);
    },
  );

  it("skips every policy when the module's skip says so, synchronously or not", async () => {
    for (const skip of [() => true, () => Promise.resolve(true)]) {
      const { guard, decided } = setup({ options: { skip } });
      expect(await activate(guard, call().context)).toBe(true);
      expect(decided).toEqual([]);
    }
    const { guard, decided } = setup({ options: { skip: () => Promise.resolve(false) } });
    expect(await activate(guard, call().context)).toBe(true);
    expect(decided).toHaveLength(1);
  });

  it('leaves out disabled policies, and asks nothing when none is left', async () => {
    const off = { ...B, enabled: false };
    const one = setup({ policies: [A, off] });
    await activate(one.guard, call().context);
    expect(one.decided).toEqual([[{ policy: A, identity: 'ip:192.0.2.1', cost: 1 }]]);
    const none = setup({ policies: [{ ...A, enabled: false }, off] });
    expect(await activate(none.guard, call().context)).toBe(true);
    expect(none.decided).toEqual([]);
  });

  it('charges what a cost function returns, and refuses a cost that is no positive integer', async () => {
    let units: unknown = 3;
    const cost = (() => units) as (context: ExecutionContext) => number;
    const route: CompiledRoute = { kind: 'http', policies: [routePolicy('a', { cost })] };
    const { guard, decided } = setup({ routes: new Map([[limited, route]]) });
    await activate(guard, call().context);
    expect(decided[0][0].cost).toBe(3);
    for (units of [0, 1.5, '2', undefined]) {
      await expect(activate(guard, call().context)).rejects.toThrow(InvalidCostError);
    }
    expect(decided).toHaveLength(1);
  });
});
