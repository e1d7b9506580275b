/**
 * The guard alone, resolving each policy's identity, tier and skip for one request, with a
 * stubbed route table, registry and engine: synchronously when every resolver is, waiting only
 * where one returns a promise.
 */
import type { ExecutionContext } from '@nestjs/common';
import { httpContext, type Handler } from '../../test/support/execution-contexts';
import {
  activate,
  decision,
  guardHarness,
  policy,
  routePolicy,
  verdict,
} from '../../test/support/guard-harness';
import type { CompiledRoute, RoutePolicy } from '../registry/compiled-route';

function limited() {}
const FIRST = policy('first');
const SECOND = policy('second');
const THIRD = policy('third');
const PRO = policy('second', { limit: 50 });
const ADMITTED = verdict(decision('first'), decision('second'), decision('third'));

function setup(policies: RoutePolicy[]) {
  const route: CompiledRoute = { kind: 'http', policies };
  return guardHarness({
    routes: new Map<Handler, CompiledRoute>([[limited, route]]),
    policies: [FIRST, SECOND, THIRD],
    tiers: new Map([['second/pro', PRO]]),
    verdicts: () => ADMITTED,
  });
}

const context = () => httpContext({ handler: limited });
const identities = (decided: { identity: string }[][]) =>
  decided.map((r) => r.map((q) => q.identity));

describe('RateLimitGuard resolving identities, tiers and skips', () => {
  it('answers synchronously when every resolver and the engine do: no promise per request', () => {
    const { guard, decided } = setup([routePolicy('first'), routePolicy('second')]);
    expect(guard.canActivate(context())).toBe(true);
    expect(decided).toHaveLength(1);
  });

  it('waits for an asynchronous identity, calling each resolver once, in the declared order', async () => {
    const calls: string[] = [];
    const sync = (name: string) => () => (calls.push(name), `fn:${name}`);
    const later = (name: string) => () => (calls.push(name), Promise.resolve(`fn:${name}`));
    const { guard, decided } = setup([
      routePolicy('first', { identity: sync('first') }),
      routePolicy('second', { identity: later('second') }),
      routePolicy('third', { identity: sync('third') }),
    ]);
    const answer = guard.canActivate(context());
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBe(true);
    expect(calls).toEqual(['first', 'second', 'third']);
    expect(identities(decided)).toEqual([['fn:first', 'fn:second', 'fn:third']]);
  });

  it.each([
    ['a synchronous', (tier?: string) => () => tier],
    ['an asynchronous', (tier?: string) => () => Promise.resolve(tier)],
  ])(
    "takes the tier %s resolver names, and the policy's own thresholds otherwise",
    async (_, resolver) => {
      const tiered = (tier?: string) => setup([routePolicy('second', { tier: resolver(tier) })]);
      for (const [tier, expected] of [
        ['pro', PRO],
        ['platinum', SECOND],
        [undefined, SECOND],
      ] as const) {
        const { guard, decided } = tiered(tier);
        await activate(guard, context());
        expect([tier, decided[0][0].policy]).toEqual([tier, expected]);
      }
    },
  );

  it.each([
    ['a synchronous', (skip: boolean) => () => skip],
    ['an asynchronous', (skip: boolean) => () => Promise.resolve(skip)],
  ])('leaves out a policy %s skip answers true for, and keeps the others', async (_, resolver) => {
    const identity = jest.fn(() => 'ip:192.0.2.9');
    const { guard, decided } = setup([
      routePolicy('first'),
      routePolicy('second', { skip: resolver(true), identity }),
      routePolicy('third', { skip: resolver(false) }),
    ]);
    await activate(guard, context());
    expect(decided[0].map((r) => r.policy)).toEqual([FIRST, THIRD]);
    // A skipped policy resolves no identity: a key function may be costly, or fail.
    expect(identity).not.toHaveBeenCalled();
  });

  it('hands the request context to every resolver', async () => {
    const seen: ExecutionContext[] = [];
    const record =
      <T>(value: T) =>
      (ctx: ExecutionContext) => (seen.push(ctx), value);
    const { guard } = setup([
      routePolicy('second', {
        skip: record(false),
        identity: record('ip:192.0.2.7'),
        tier: record('pro'),
        cost: record(2),
      }),
    ]);
    const call = context();
    await activate(guard, call);
    expect(seen).toHaveLength(4);
    for (const ctx of seen) expect(ctx).toBe(call);
  });
});
