import type { KeySource } from '../policy/rate-limit-options.interface';
import type { CompiledRoute, RoutePolicy } from './compiled-route';
import { isSheddable } from './sheddable-route';

const policy = (over: Partial<RoutePolicy> = {}): RoutePolicy => ({
  name: 'p',
  cost: 1,
  identity: () => 'ip:192.0.2.1',
  keySource: 'ip',
  ...over,
});
const route = (...policies: RoutePolicy[]): CompiledRoute => ({ policies, kind: 'http' });

describe('isSheddable: a route whose requests the raw request alone rebuilds', () => {
  it.each<[string, KeySource]>([
    ['the client IP', 'ip'],
    ['the API-key header', 'api-key'],
    ['a header', { header: 'x-tenant' }],
    ['the route', 'route'],
  ])('sheds a route keyed by %s', (_what, keySource) => {
    expect(isSheddable(route(policy({ keySource })), undefined)).toBe(true);
  });

  it('sheds stacked policies when every one is plain', () => {
    const stacked = route(policy(), policy({ name: 'q', keySource: 'route', cost: 3 }));
    expect(isSheddable(stacked, undefined)).toBe(true);
  });

  it.each<[string, Partial<RoutePolicy>]>([
    ['the user (set by auth guards after middleware)', { keySource: 'user' }],
    ['a key function (may read params, body, user)', { keySource: () => 'fn:x' }],
    ['a WebSocket connection', { keySource: 'connection' }],
    ['no known source', { keySource: undefined }],
    ['a cost function', { cost: () => 1 }],
    ['a skip predicate', { skip: () => false }],
    ['a tier resolver', { tier: () => 'pro', tierSource: () => 'pro' }],
  ])('never sheds a route with %s', (_what, over) => {
    expect(isSheddable(route(policy(over)), undefined)).toBe(false);
    // One such policy among plain ones is enough.
    expect(isSheddable(route(policy(), policy({ name: 'q', ...over })), undefined)).toBe(false);
  });

  it('sheds a route whose tier a header names, read before routing as after', () => {
    const tier = { tier: () => 'pro', tierSource: { header: 'x-plan' } };
    expect(isSheddable(route(policy(tier)), undefined)).toBe(true);
    expect(isSheddable(route(policy({ ...tier, skip: () => false })), undefined)).toBe(false);
  });

  it('sheds nothing under a module-wide skip, which may exempt any request', () => {
    expect(isSheddable(route(policy()), () => false)).toBe(false);
  });

  it('sheds only HTTP routes, and not a route without policies', () => {
    expect(isSheddable({ policies: [policy()], kind: 'graphql' }, undefined)).toBe(false);
    expect(isSheddable(route(), undefined)).toBe(false);
  });
});
