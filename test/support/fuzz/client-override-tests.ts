/**
 * Properties of the admin routes that take client identities, and of every route with a body:
 * an address typed in any spelling is taken in the limiter's form (the override then reaches
 * the client at that address, and the spelling finds it again) or refused with nothing written;
 * bodies nested past any admin input's depth are 4xx that write nothing. Registered by the fuzz
 * suite, which owns the demo process.
 */
import fc from 'fast-check';
import type { FuzzDemo } from './fuzz-demo';
import { runLanes } from './fuzz-runner';
import type { Answer, FuzzSession } from './fuzz-session';
import { deeplyNestedJson, pct } from './hostile-values';
import { LIMITER_ADDRESS_FORM, type TypedAddress, typedAddress } from './identity-arbitraries';
import { expectThat } from './fuzz-checks';

export interface ClientOverrideContext {
  t: FuzzDemo;
  s: FuzzSession;
  seed: number;
}

/** Policies keyed by client address, one per lane: lanes never share an override listing. */
const BY_ADDRESS = ['demo.gcra', 'demo.token-bucket', 'demo.leaky-bucket', 'demo.sliding-window'];
const JSON_TYPE = { 'content-type': 'application/json' };
const FORMS = 'ip:203.0.113.7 or ip:2001:db8:0:0::/64';

export function clientOverrideTests(context: () => ClientOverrideContext): void {
  const clients = (policy: string, identity?: string) =>
    `/admin/policies/${policy}/clients${identity === undefined ? '' : `/${pct(identity)}`}`;
  /** The policy's override listing and its policy hash, as stored: what a 4xx must not change. */
  const stored = async ({ t }: ClientOverrideContext, policy: string) =>
    JSON.stringify([
      await t.redis.hgetall(`${t.prefix}:clients:${policy}`),
      await t.policyState(policy),
    ]);

  it('client overrides by an address in any spelling: in the limiter’s form, or 400', async () => {
    const c = context();
    const { s } = c;
    // Earlier properties may have disabled or shadowed these policies: a deny must decide.
    for (const policy of BY_ADDRESS) {
      await s.call(
        'setup',
        s.admin({ method: 'DELETE', path: `/admin/policies/${policy}/override` }),
      );
    }
    await runLanes({
      surface: 'client-identities',
      seed: c.seed,
      lanes: BY_ADDRESS.length,
      runsPerLane: 80,
      arbitrary: (lane) => typedAddress(lane),
      async check(case_: TypedAddress, lane) {
        const policy = BY_ADDRESS[lane];
        const message = `fuzz: denied in lane ${lane}`;
        const before = await stored(c, policy);
        const put = await s.call('client-identities', {
          ...s.admin({ method: 'PUT', path: clients(policy, case_.typed) }, JSON_TYPE),
          body: JSON.stringify({ action: 'deny', message }),
        });
        if (put.status >= 400) {
          const refusal =
            case_.expect === 'either' || (case_.expect === 'refused' && hasForms(put));
          expectThat(refusal, `expected ${case_.expect}`, put.req, put.res);
          expectThat((await stored(c, policy)) === before, 'a 4xx wrote', put.req, put.res);
          const reset = await s.call(
            'client-identities',
            s.admin({
              method: 'DELETE',
              path: `/admin/policies/${policy}/keys/${pct(case_.typed)}`,
            }),
          );
          expectThat(reset.status === put.status, 'reset and PUT disagree', reset.req, reset.res);
          return;
        }
        const { identity } = put.json as { identity: string };
        expectThat(case_.expect !== 'refused', 'an ambiguous address was taken', put.req, put.res);
        expectThat(
          LIMITER_ADDRESS_FORM.test(identity),
          'stored in no limiter form',
          put.req,
          put.res,
        );
        if (case_.expect === 'taken') await deniesItsClient(c, policy, case_, message, identity);
        const removed = await s.call(
          'client-identities',
          s.admin({ method: 'DELETE', path: clients(policy, identity) }),
        );
        expectThat(
          removed.status === 204,
          'not removed by its listed form',
          removed.req,
          removed.res,
        );
      },
    });
  });

  /** The override set by `typed` stops the client at `address`, and `typed` finds it again. */
  async function deniesItsClient(
    { t, s }: ClientOverrideContext,
    policy: string,
    { address, typed }: TypedAddress,
    message: string,
    identity: string,
  ): Promise<void> {
    const path = t.policies.get(policy)!;
    const hit = await s.call('client-identities', {
      method: 'GET',
      path,
      headers: { 'x-forwarded-for': address },
    });
    const denied = hit.status === 429 && (hit.json as { message?: string }).message === message;
    expectThat(denied, `the override of ${typed} missed its client ${address}`, hit.req, hit.res);
    const shown = await s.call(
      'client-identities',
      s.admin({ method: 'GET', path: clients(policy, typed) }),
    );
    const same = shown.status === 200 && (shown.json as { identity: string }).identity === identity;
    expectThat(same, 'not found again by the spelling that set it', shown.req, shown.res);
    const reset = await s.call(
      'client-identities',
      s.admin({ method: 'DELETE', path: `/admin/policies/${policy}/keys/${pct(typed)}` }),
    );
    expectThat(reset.status === 204, 'a key reset refused it', reset.req, reset.res);
  }

  it('bodies nested past 16 levels on every route with a body: 4xx, nothing written', async () => {
    const c = context();
    const routes = [
      ['PUT', 'demo.plan', clients('demo.plan', 'ip:203.0.113.77')],
      ['PATCH', 'demo.plan', '/admin/policies/demo.plan'],
      ['PATCH', 'demo.plan', '/admin/policies/demo.plan/tiers/pro'],
    ] as const;
    await runLanes({
      surface: 'deep-bodies',
      seed: c.seed + 200,
      lanes: 1, // one policy: its writes stay sequential
      runsPerLane: 60,
      arbitrary: () => fc.tuple(fc.constantFrom(...routes), deeplyNestedJson),
      async check([[method, policy, path], body]) {
        const before = await stored(c, policy);
        const answer = await c.s.call('deep-bodies', {
          ...c.s.admin({ method, path }, JSON_TYPE),
          body,
        });
        const refused = answer.status === 400 || answer.status === 413;
        expectThat(refused, 'expected 400 or 413', answer.req, answer.res);
        expectThat((await stored(c, policy)) === before, 'a 4xx wrote', answer.req, answer.res);
      },
    });
  });
}

/** A 400 whose message names the forms the limiter keys addresses by. */
function hasForms(answer: Answer): boolean {
  if (answer.status !== 400) return false;
  return [(answer.json as { message?: unknown }).message]
    .flat()
    .some((m) => String(m).includes(FORMS));
}
