import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { DecisionEngine } from '../engine/decision-engine';
import type { PolicyRequest } from '../engine/policy-request';
import { normalizePolicy } from '../policy/normalize-policy';
import type { CompiledRoute, RoutePolicy } from '../registry/compiled-route';
import type { PolicyRegistry } from '../registry/policy-registry';
import type { RejectedRoutes } from '../registry/rejected-routes';
import { RejectionShedder } from './rejection-shedder';

const enforced = normalizePolicy({ limit: 1, window: '1h' }, 'p', 'test');
const disabled = { ...normalizePolicy({ limit: 1, window: '1h' }, 'off', 'test'), enabled: false };
const REJECTED: RateLimitVerdict = {
  allowed: false,
  source: 'redis',
  decisions: [
    {
      policy: 'p',
      allowed: false,
      shadow: false,
      limit: 1,
      remaining: 0,
      resetMs: 9_000,
      retryAfterMs: 2_500,
      reason: 'limit',
      source: 'redis',
    },
  ],
};
const byIp: RoutePolicy = { name: 'p', cost: 2, identity: () => 'ip:192.0.2.9', keySource: 'ip' };

function shedder(route: CompiledRoute | undefined, remembers = true) {
  const asked: PolicyRequest[][] = [];
  const replies: unknown[][] = [];
  const routeOf = jest.fn(() => route);
  const engine = {
    remembersRejections: remembers,
    remembered: (requests: PolicyRequest[]) => (asked.push(requests), REJECTED),
  } as unknown as DecisionEngine;
  const registry = {
    get: (name: string) => (name === 'off' ? disabled : enforced),
  } as unknown as PolicyRegistry;
  const it = new RejectionShedder(
    { routeOf } as unknown as RejectedRoutes,
    registry,
    engine,
    'standard',
    (...reply) => replies.push(reply),
  );
  return { it, asked, replies, routeOf };
}

const response = () => {
  const headers: Record<string, string> = {};
  return { headers, setHeader: (name: string, value: string) => (headers[name] = value) };
};

describe('RejectionShedder', () => {
  it('looks at nothing while no rejection is remembered', () => {
    const { it: s, routeOf } = shedder({ policies: [byIp], kind: 'http' }, false);
    expect(s.answer({ method: 'GET', url: '/x' }, response())).toBe(false);
    expect(routeOf).not.toHaveBeenCalled();
  });

  it("answers with the guard's headers and body, asking for the enabled policies only", () => {
    const route = { policies: [byIp, { ...byIp, name: 'off' }], kind: 'http' as const };
    const { it: s, asked, replies } = shedder(route);
    const res = response();
    expect(s.answer({ method: 'GET', url: '/x' }, res)).toBe(true);
    expect(asked).toEqual([[{ policy: enforced, identity: 'ip:192.0.2.9', cost: 2 }]]);
    expect(res.headers).toEqual({
      'RateLimit-Limit': '1',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '9',
      'Retry-After': '3',
    });
    expect(replies).toEqual([
      [res, { statusCode: 429, message: 'Too Many Requests', policy: 'p', retryAfter: 3 }, 429],
    ]);
  });

  it.each<[string, RoutePolicy]>([
    [
      'an identity that throws',
      {
        ...byIp,
        identity: () => {
          throw new Error('no socket');
        },
      },
    ],
    ['an identity that is not at hand', { ...byIp, identity: () => Promise.resolve('ip:x') }],
  ])('leaves the request to the guard, writing nothing, for %s', (_what, policy) => {
    const { it: s, asked, replies } = shedder({ policies: [policy], kind: 'http' });
    const res = response();
    expect(s.answer({ method: 'GET', url: '/x' }, res)).toBe(false);
    expect([asked, replies, res.headers]).toEqual([[], [], {}]);
  });

  it('leaves a path it has not learned, or a route with every policy disabled, to the guard', () => {
    expect(shedder(undefined).it.answer({ method: 'GET', url: '/x' }, response())).toBe(false);
    const allOff = shedder({ policies: [{ ...byIp, name: 'off' }], kind: 'http' });
    expect(allOff.it.answer({ method: 'GET', url: '/x' }, response())).toBe(false);
    expect(allOff.asked).toEqual([]);
  });
});
