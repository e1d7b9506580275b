import type { ExecutionContext } from '@nestjs/common';
import { tierResolverOf } from './tier-resolver';

const http = (headers: Record<string, string | string[]>) =>
  ({
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => ({ headers }) }),
  }) as unknown as ExecutionContext;

describe('tierResolverOf', () => {
  it('gives a function back as it is', () => {
    const resolver = () => 'pro';
    expect(tierResolverOf(resolver)).toBe(resolver);
  });

  it("reads { header } from the request's headers, whatever the case of its name", () => {
    const tier = tierResolverOf({ header: 'X-Plan' });
    expect(tier(http({ 'x-plan': 'pro' }))).toBe('pro');
    expect(tier(http({ 'x-plan': ['pro', 'free'] }))).toBe('pro');
  });

  it('names no tier for a missing or empty header, or a call without a request', () => {
    const tier = tierResolverOf({ header: 'x-plan' });
    expect(tier(http({}))).toBeUndefined();
    expect(tier(http({ 'x-plan': '' }))).toBeUndefined();
    const rpc = { getType: () => 'rpc' } as unknown as ExecutionContext;
    expect(tier(rpc)).toBeUndefined();
  });
});
