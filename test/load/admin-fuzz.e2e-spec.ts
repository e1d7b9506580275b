/**
 * Fuzzing (fast-check) of what clients and operators can reach, against the demo as users run it
 * (`node dist/apps/demo/main.js`, a process of its own) on a real Redis: public routes with
 * hostile identity headers, listing query strings (cursors Redis refuses among them), policy
 * names and identities in paths (addresses in every spelling among them), client overrides,
 * wrong tokens, PATCH and PUT bodies (nested thousands of levels deep among them), and policy
 * hashes written straight into Redis. Every answer is a 2xx or 4xx with a JSON body (204
 * aside), a 4xx writes nothing, an override set by an address reaches the client at that
 * address, and the process never dies.
 * Seeded: FUZZ_SEED=<n> replays a run (the seed is printed at the start and in every failure).
 */
import fc from 'fast-check';
import {
  bodyWithUnknownField,
  identitySegment,
  patchBody,
  unknownQueryParam,
  wrongAuthorization,
} from '../support/fuzz/admin-arbitraries';
import { clientOverrideTests } from '../support/fuzz/client-override-tests';
import { keysQuery } from '../support/fuzz/listing-arbitraries';
import { listingTests } from '../support/fuzz/listing-tests';
import { expectKeysPage, expectThat } from '../support/fuzz/fuzz-checks';
import { type FuzzDemo, startFuzzDemo } from '../support/fuzz/fuzz-demo';
import { fuzzSeed, runLanes } from '../support/fuzz/fuzz-runner';
import { decoded, FuzzSession } from '../support/fuzz/fuzz-session';
import { pathSegment } from '../support/fuzz/hostile-values';
import { storedStateTests } from '../support/fuzz/stored-state-tests';
import { publicRequest, sourceAddress } from '../support/fuzz/traffic-arbitraries';

/** Each property's bound; about 30 s for the whole file on an idle 2-core machine. */
jest.setTimeout(120_000);
const SEED = fuzzSeed();
const started = performance.now();
let t: FuzzDemo;
let s: FuzzSession;
let names: string[];
const known = (segment: string) => names.includes(decoded(segment)!);

beforeAll(async () => {
  console.log(`admin fuzz: FUZZ_SEED=${SEED}`);
  t = await startFuzzDemo();
  s = new FuzzSession(t);
  names = [...t.policies.keys()];
}, 60_000);

afterAll(async () => {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const perSurface = JSON.stringify(Object.fromEntries(t?.client.counts ?? []), null, 2);
  console.log(`admin fuzz: ${t?.client.total} requests in ${seconds} s (FUZZ_SEED=${SEED})`);
  console.log(`admin fuzz: requests per surface ${perSurface}`);
  await t?.stop();
});

it('public routes with hostile identity headers and query strings: 200 or 429', async () => {
  await runLanes({
    surface: 'public',
    seed: SEED,
    lanes: 24,
    runsPerLane: 150,
    arbitrary: () => publicRequest,
    async check({ route, query, headers, from }) {
      const answer = await s.call('public', {
        method: 'GET',
        path: route + query,
        headers,
        from,
      });
      const limited = answer.status === 200 || answer.status === 429;
      expectThat(limited, 'expected 200 or 429', answer.req, answer.res);
    },
  });
  // Client-controlled identity material never makes an unbounded key.
  expect(Math.max(...(await t.keys()).map((key) => key.length))).toBeLessThanOrEqual(256);
});

it('GET /admin/policies/:name/keys with hostile query strings; its own cursors work', async () => {
  await runLanes({
    surface: 'keys-query',
    seed: SEED + 1_000,
    lanes: 16,
    runsPerLane: 150,
    arbitrary: () => fc.tuple(pathSegment(names), keysQuery),
    async check([name, query]) {
      const path = `/admin/policies/${name}/keys`;
      const { req, res, status, json } = await s.call(
        'keys-query',
        s.admin({ method: 'GET', path: `${path}?${query}` }),
      );
      if (status !== 200) return;
      expectThat(known(name), 'an unknown policy was listed', req, res);
      expectKeysPage(json, req, res);
      const next = (json as { cursor: string | null }).cursor;
      if (next === null) return;
      const follow = s.admin({
        method: 'GET',
        path: `${path}?cursor=${encodeURIComponent(next)}`,
      });
      const page = await s.call('keys-query', follow);
      expectThat(page.status === 200, 'its own cursor was refused', follow, page.res);
      expectKeysPage(page.json, follow, page.res);
    },
  });
});

describe('the client-overrides listing, and cursors Redis refuses on both listings', () => {
  listingTests(() => ({ s, names, seed: SEED + 1_500 }));
});

describe('client overrides by address, and bodies nested past any admin input', () => {
  clientOverrideTests(() => ({ t, s, seed: SEED + 7_000 }));
});

describe('beside a client whose state must survive', () => {
  const CANARY = '127.99.0.1';
  const canaryKeys = async () => (await t.keys()).filter((key) => key.includes(CANARY));

  beforeAll(async () => {
    // A window of a day: the canary's state outlives the tests, unless something deletes it.
    const json = { 'content-type': 'application/json' };
    const patch = s.admin({ method: 'PATCH', path: '/admin/policies/demo.fixed-window' }, json);
    await s.call('setup', { ...patch, body: '{"window":"1d","algo":"fixed-window"}' });
    await s.call('setup', { method: 'GET', path: '/api/fixed-window', from: CANARY });
    expect(await canaryKeys()).toHaveLength(1);
  });

  it('path parameters (policy names, identities): 4xx unless the policy exists', async () => {
    const routes = [
      ['GET', (name: string) => `/admin/policies/${name}`],
      ['PATCH', (name: string) => `/admin/policies/${name}`],
      ['DELETE', (name: string) => `/admin/policies/${name}/override`],
      ['DELETE', (name: string, id: string) => `/admin/policies/${name}/keys/${id}`],
      ['GET', (name: string, id: string) => `/admin/policies/${name}/keys/${id}`],
      ['GET', (name: string, id: string) => `/admin/policies/${name}/clients/${id}`],
      ['PUT', (name: string, id: string) => `/admin/policies/${name}/clients/${id}`],
      ['DELETE', (name: string, id: string) => `/admin/policies/${name}/clients/${id}`],
    ] as const;
    const json = { 'content-type': 'application/json' };
    await runLanes({
      surface: 'path-params',
      seed: SEED + 2_000,
      lanes: 16,
      runsPerLane: 150,
      arbitrary: () => fc.tuple(pathSegment(names), identitySegment, fc.nat(routes.length - 1)),
      async check([name, identity, route]) {
        const [method, path] = routes[route];
        const req = s.admin({ method, path: path(name, identity) }, json);
        if (method === 'PATCH') req.body = '{"mode":"enforce"}';
        // Short-lived: a deny set here must not outlast the property.
        if (method === 'PUT') req.body = '{"action":"deny","expiresIn":"2s"}';
        const answer = await s.call('path-params', req);
        // GET /admin/policies/ (an empty name) is the list.
        const exists = known(name) || (name === '' && route === 0);
        expectThat(answer.status >= 400 || exists, 'unknown policy, 2xx', answer.req, answer.res);
      },
    });
    // Nothing was written for a policy that does not exist, and the canary was not reset.
    expect([...(await t.policyStates()).keys()].filter((n) => !names.includes(n))).toEqual([]);
    expect(await canaryKeys()).toHaveLength(1);
  });

  it('every Authorization that is not the token: 401 or 429, nothing written or reset', async () => {
    const before = await t.policyStates();
    const routes = names.flatMap((name) => [
      { method: 'GET' as const, path: `/admin/policies/${name}` },
      { method: 'PATCH' as const, path: `/admin/policies/${name}`, body: '{"limit":2}' },
      { method: 'DELETE' as const, path: `/admin/policies/${name}/override` },
      { method: 'DELETE' as const, path: `/admin/policies/${name}/keys/ip%3A${CANARY}` },
      { method: 'GET' as const, path: `/admin/policies/${name}/keys` },
    ]);
    await runLanes({
      surface: 'tokens',
      seed: SEED + 3_000,
      lanes: 16,
      runsPerLane: 80,
      arbitrary: () =>
        fc.tuple(fc.constantFrom(...routes), wrongAuthorization(t.token), sourceAddress(77, 1_000)),
      async check([route, authorization, from]) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (authorization !== undefined) headers.authorization = authorization;
        const { req, res, status } = await s.call('tokens', { ...route, headers, from });
        expectThat(status === 401 || status === 429, 'expected 401 or 429', req, res);
        const echoed = (authorization?.length ?? 0) >= 12 && res.body.includes(authorization!);
        expectThat(!echoed, 'the presented credentials were echoed', req, res);
      },
    });
    expect(await t.policyStates()).toEqual(before);
    expect(await canaryKeys()).toHaveLength(1);
  });
});

it('PATCH /admin/policies/:name with hostile bodies: a 4xx writes nothing', async () => {
  await runLanes({
    surface: 'patch-body',
    seed: SEED + 4_000,
    lanes: names.length, // one lane per policy: its writes stay sequential
    runsPerLane: 350,
    arbitrary: () => fc.tuple(patchBody, sourceAddress(66)),
    async check([body, from], lane) {
      const { status } = await s.patch('patch-body', names[lane], body);
      if (status < 300) await s.route('patch-body', names[lane], from);
    },
  });
});

// SPEC §8 "Unknown fields are rejected". Found by this suite: a field or query parameter named
// like a member of objects or classes (__proto__, constructor, prototype, ...) passed the
// allow-list and the PATCH was applied.
it('PATCH: a field outside the allow-list is a 400 whatever its name', async () => {
  await runLanes({
    surface: 'unknown-field',
    seed: SEED + 5_000,
    lanes: 4,
    runsPerLane: 50,
    arbitrary: () => bodyWithUnknownField,
    async check({ body, unknown }, lane) {
      const answer = await s.patch('unknown-field', names[lane], body);
      const why = `the unknown field ${JSON.stringify(unknown)} was accepted`;
      expectThat(answer.status === 400, why, answer.req, answer.res);
    },
  });
});

it('GET /admin/policies/:name/keys: a query parameter other than cursor and count is a 400', async () => {
  await runLanes({
    surface: 'unknown-param',
    seed: SEED + 5_500,
    lanes: 2,
    runsPerLane: 50,
    arbitrary: () => unknownQueryParam,
    async check(query) {
      const path = `/admin/policies/${names[0]}/keys?${query}`;
      const answer = await s.call('unknown-param', s.admin({ method: 'GET', path }));
      expectThat(
        answer.status === 400,
        'an unknown parameter was accepted',
        answer.req,
        answer.res,
      );
    },
  });
});

describe('stored state written directly into Redis', () => {
  storedStateTests(() => ({ t, s, names, seed: SEED + 6_000 }));
});

it('the demo is still up: alive, /health 200, no exception escaped, 10,000+ requests', async () => {
  const health = await s.call('final', { method: 'GET', path: '/health' });
  expect(health.status).toBe(200);
  expect(t.alive()).toBe(true);
  expect(t.escaped).toEqual([]);
  expect(t.client.total).toBeGreaterThanOrEqual(10_000);
});
