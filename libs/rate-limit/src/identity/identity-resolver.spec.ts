import type { ExecutionContext } from '@nestjs/common';
import { createIdentityResolver } from './identity-resolver';

const context = (remoteAddress = '192.0.2.7'): ExecutionContext =>
  ({
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => ({ headers: {}, socket: { remoteAddress } }) }),
  }) as unknown as ExecutionContext;

const resolverFor = (fn: (ctx: ExecutionContext) => unknown) =>
  createIdentityResolver(fn as never, (req) => req.socket.remoteAddress ?? '', 'x-api-key', 'p');

describe('createIdentityResolver with a key function', () => {
  it('answers synchronously when the function does', () => {
    expect(resolverFor(() => 'tenant-7')(context())).toBe('fn:tenant-7');
  });

  it('awaits a native promise', async () => {
    await expect(resolverFor(async () => 'tenant-7')(context())).resolves.toBe('fn:tenant-7');
  });

  it('awaits any thenable (promise libraries, query builders)', async () => {
    const thenable = { then: (resolve: (v: string) => void) => resolve('tenant-8') };
    await expect(resolverFor(() => thenable)(context())).resolves.toBe('fn:tenant-8');
  });

  it('falls back to the client IP for an empty or non-string identity', async () => {
    expect(resolverFor(() => '')(context())).toBe('ip:192.0.2.7');
    expect(resolverFor(() => 42)(context())).toBe('ip:192.0.2.7');
    await expect(resolverFor(async () => undefined)(context())).resolves.toBe('ip:192.0.2.7');
  });
});
