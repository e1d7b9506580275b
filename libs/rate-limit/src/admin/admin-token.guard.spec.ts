import { UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import crypto from 'node:crypto';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { adminTokenDigest } from './admin-token';
import { AdminTokenGuard } from './admin-token.guard';
import type { FailedTokenLimiter } from './failed-token-limiter';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';

const TOKEN = 's3cret-admin-token-0123456789abcdef';

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

/** Counts failures like the real one: `allowed` failures, then refusals. */
function failureLimiter(allowed: number) {
  let failures = 0;
  const refusal = {
    policy: 'rate-limit-admin.failed-token',
    allowed: false,
    retryAfterMs: 61_000,
  } as RateLimitDecision;
  return {
    failed: async () => (++failures > allowed ? refusal : undefined),
    count: () => failures,
  };
}

describe('AdminTokenGuard', () => {
  const guard = new AdminTokenGuard(
    adminTokenDigest({ token: TOKEN }),
    failureLimiter(Infinity) as unknown as FailedTokenLimiter,
  );

  it.each([`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer  ${TOKEN} `])(
    'admits %j',
    async (authorization) => {
      await expect(guard.canActivate(httpContext({ authorization }).context)).resolves.toBe(true);
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
  ])('rejects %s with 401 and WWW-Authenticate: Bearer', async (_label, authorization) => {
    const { context, setHeader } = httpContext({ authorization });
    await expect(guard.canActivate(context)).rejects.toThrow(UnauthorizedException);
    expect(setHeader).toHaveBeenCalledWith('WWW-Authenticate', 'Bearer');
  });

  it('never echoes the presented token', async () => {
    const { context } = httpContext({ authorization: 'Bearer guess-123' });
    try {
      await guard.canActivate(context);
      throw new Error('admitted');
    } catch (error) {
      expect(JSON.stringify((error as UnauthorizedException).getResponse())).not.toContain(
        'guess-123',
      );
    }
  });

  it('compares equal-length SHA-256 digests with timingSafeEqual', async () => {
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      await guard.canActivate(httpContext({ authorization: 'Bearer x' }).context);
    } catch {
      // expected 401
    }
    expect(spy).toHaveBeenCalledTimes(1);
    const [a, b] = spy.mock.calls[0];
    expect([a.byteLength, b.byteLength]).toEqual([32, 32]);
    spy.mockRestore();
  });

  it('after too many failures answers 429 with Retry-After to wrong tokens; a right one still passes', async () => {
    const failures = failureLimiter(3);
    const limited = new AdminTokenGuard(
      adminTokenDigest({ token: TOKEN }),
      failures as unknown as FailedTokenLimiter,
    );
    for (let i = 0; i < 3; i++) {
      await expect(
        limited.canActivate(httpContext({ authorization: 'Bearer wrong' }).context),
      ).rejects.toThrow(UnauthorizedException);
    }
    const fourth = httpContext({ authorization: 'Bearer wrong' });
    await expect(limited.canActivate(fourth.context)).rejects.toMatchObject({ status: 429 });
    expect(fourth.setHeader).toHaveBeenCalledWith('Retry-After', '61');
    const right = httpContext({ authorization: `Bearer ${TOKEN}` });
    await expect(limited.canActivate(right.context)).resolves.toBe(true);
    expect(failures.count()).toBe(4); // a right token is not an attempt that counts
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

  it.each(['z', 'change-me', 'a'.repeat(31)])('refuses %j: shorter than 32 characters', (token) => {
    const call = () => adminTokenDigest({ token });
    expect(call).toThrow(/"token" must be at least 32 characters \(got \d+\)/);
    expect(call).toThrow(expect.objectContaining({ message: expect.not.stringContaining(token) }));
  });

  it('accepts 32 characters', () => {
    expect(adminTokenDigest({ token: 'a'.repeat(32) })).toHaveLength(32);
  });

  it('does not put the token into the error', () => {
    expect(() => adminTokenDigest({ token: 'leak me' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('leak me') }),
    );
  });
});
