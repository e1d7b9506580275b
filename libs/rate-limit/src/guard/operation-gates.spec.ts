import type {
  RateLimitDecision,
  RateLimitVerdict,
} from '../decision/rate-limit-decision.interface';
import type { PolicyRequest } from '../engine/policy-request';
import { normalizePolicy } from '../policy/normalize-policy';
import { OperationGates } from './operation-gates';

const POLICY = normalizePolicy(
  { algo: 'fixed-window', limit: 5, window: 10_000 },
  'quotes',
  'test',
);
const request = (identity: string, cost = 1): PolicyRequest[] => [
  { policy: POLICY, identity, cost },
];

/** A store of `limit` units per identity that answers each decision on a later turn. */
function counterStore(limit: number) {
  const used = new Map<string, number>();
  let decisions = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const verdict = (identity: string): RateLimitVerdict => {
    decisions++;
    const before = used.get(identity) ?? 0;
    const allowed = before < limit;
    if (allowed) used.set(identity, before + 1);
    const decision: RateLimitDecision = {
      policy: 'quotes',
      allowed,
      shadow: false,
      limit,
      remaining: Math.max(0, limit - before - (allowed ? 1 : 0)),
      resetMs: 10_000,
      retryAfterMs: allowed ? 0 : 10_000,
      reason: allowed ? undefined : 'limit',
      source: 'redis',
    };
    return { allowed, decisions: [decision], source: 'redis' };
  };
  return {
    later: (identity: string) => () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      return new Promise<RateLimitVerdict>((resolve) =>
        setImmediate(() => {
          inFlight--;
          resolve(verdict(identity));
        }),
      );
    },
    now: (identity: string) => () => verdict(identity),
    get decisions() {
      return decisions;
    },
    get mostInFlight() {
      return mostInFlight;
    },
  };
}

const admitted = (verdicts: RateLimitVerdict[]): number => verdicts.filter((v) => v.allowed).length;

describe('OperationGates', () => {
  it('4,500 calls of one operation for a fresh client: exactly the limit admitted, a handful decided', async () => {
    const gates = new OperationGates();
    const store = counterStore(5);
    const operation = {};

    const verdicts = await Promise.all(
      Array.from({ length: 4_500 }, () =>
        gates.decide(operation, request('ip:1'), store.later('ip:1')),
      ),
    );

    expect(admitted(verdicts)).toBe(5);
    // One, then the four the first answer said were left, then the one that is rejected.
    expect(store.decisions).toBe(6);
    expect(store.mostInFlight).toBe(4);
  });

  it('a client already rejected costs one decision per operation, however many calls', async () => {
    const gates = new OperationGates();
    const store = counterStore(0);
    const operation = {};

    const first = gates.decide(operation, request('ip:1'), store.now('ip:1'));
    const rest = Array.from({ length: 1_000 }, () =>
      gates.decide(operation, request('ip:1'), store.now('ip:1')),
    );

    expect(first).toMatchObject({ allowed: false });
    expect(rest.every((verdict) => verdict === first)).toBe(true);
    expect(store.decisions).toBe(1);
  });

  it('admits as many at once as the last answer said were left', async () => {
    const gates = new OperationGates();
    const store = counterStore(1_000);
    const operation = {};

    const verdicts = await Promise.all(
      Array.from({ length: 600 }, () =>
        gates.decide(operation, request('ip:1'), store.later('ip:1')),
      ),
    );

    expect(admitted(verdicts)).toBe(600);
    expect(store.decisions).toBe(600);
    // The first alone, then the other 599 together (999 were left).
    expect(store.mostInFlight).toBe(599);
  });

  it('keeps operations, identities and costs apart', async () => {
    const gates = new OperationGates();
    const store = counterStore(0);
    const [a, b] = [{}, {}];

    gates.decide(a, request('ip:1'), store.now('ip:1'));
    gates.decide(b, request('ip:1'), store.now('ip:1'));
    gates.decide(a, request('ip:2'), store.now('ip:2'));
    gates.decide(a, request('ip:1', 2), store.now('ip:1'));

    expect(store.decisions).toBe(4);
  });

  it('a decision that fails lets the next call decide (no call waits for ever)', async () => {
    const gates = new OperationGates();
    const store = counterStore(5);
    const operation = {};
    const failing = () => Promise.reject(new Error('store down'));

    const first = gates.decide(operation, request('ip:1'), failing);
    const second = gates.decide(operation, request('ip:1'), store.later('ip:1'));

    await expect(first).rejects.toThrow('store down');
    await expect(second).resolves.toMatchObject({ allowed: true });
  });

  it('a decision that throws at once lets the next call decide', () => {
    const gates = new OperationGates();
    const store = counterStore(5);
    const operation = {};

    expect(() =>
      gates.decide(operation, request('ip:1'), () => {
        throw new Error('bad cost');
      }),
    ).toThrow('bad cost');
    expect(gates.decide(operation, request('ip:1'), store.now('ip:1'))).toMatchObject({
      allowed: true,
    });
  });
});
