import { UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import crypto from 'node:crypto';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { adminTokenDigest } from './admin-token';
import { AdminTokenGuard } from './admin-token.guard';

const TOKEN = 's3cret-admin-token';

interface FakeHttp {
  context: ExecutionContext;
  setHeader: jest.Mock;
}

function httpContext(headers: Record<string, string | string[] | undefined>): FakeHttp {
  const setHeader = jest.fn();
  const context = {
    switchToHttp: () => ({
      getRequest: () => ({ headers }),
      getResponse: () => ({ setHeader }),
    }),
  } as unknown as ExecutionContext;
  return { context, setHeader };
}

describe('AdminTokenGuard', () => {
  const guard = new AdminTokenGuard(adminTokenDigest({ token: TOKEN }));

  it.each([`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer  ${TOKEN} `])(
    'admits %j',
    (authorization) => {
      expect(guard.canActivate(httpContext({ authorization }).context)).toBe(true);
    },
  );

  it.each<[string, string | string[] | undefined]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['a wrong token', 'Bearer not-the-token'],
    ['a token prefix', `Bearer ${TOKEN.slice(0, -1)}`],
    ['a longer token', `Bearer ${TOKEN}x`],
    ['another scheme', `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}`],
    ['the bare token', TOKEN],
    ['a scheme without token', 'Bearer '],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
    ['a repeated header (array)', [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]],
  ])('rejects %s with 401 and WWW-Authenticate: Bearer', (_label, authorization) => {
    const { context, setHeader } = httpContext({ authorization });
    expect(() => guard.canActivate(context)).toThrow(UnauthorizedException);
    expect(setHeader).toHaveBeenCalledWith('WWW-Authenticate', 'Bearer');
  });

  it('never echoes the presented token', () => {
    const { context } = httpContext({ authorization: 'Bearer guess-123' });
    try {
      guard.canActivate(context);
      throw new Error('admitted');
    } catch (error) {
      expect(JSON.stringify((error as UnauthorizedException).getResponse())).not.toContain(
        'guess-123',
      );
    }
  });

  it('compares equal-length SHA-256 digests with timingSafeEqual', () => {
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      guard.canActivate(httpContext({ authorization: 'Bearer x' }).context);
    } catch {
      // expected 401
    }
    expect(spy).toHaveBeenCalledTimes(1);
    const [a, b] = spy.mock.calls[0];
    expect([a.byteLength, b.byteLength]).toEqual([32, 32]);
    spy.mockRestore();
  });
});

describe('adminTokenDigest (bootstrap validation)', () => {
  it.each<[string, unknown]>([
    ['missing', undefined],
    ['empty', ''],
    ['whitespace only', '   '],
    ['containing a space', 'two words'],
    ['not a string', 12345],
  ])('rejects a token that is %s, naming the field', (_label, token) => {
    const call = () => adminTokenDigest({ token } as { token: string });
    expect(call).toThrow(RateLimitConfigError);
    expect(call).toThrow(/RateLimitAdminModule: "token" must be a non-empty string/);
  });

  it('does not put the token into the error', () => {
    expect(() => adminTokenDigest({ token: 'leak me' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('leak me') }),
    );
  });
});
