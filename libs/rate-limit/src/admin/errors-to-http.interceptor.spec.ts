import { type HttpException, UnauthorizedException } from '@nestjs/common';
import { InvalidCursorError } from '../errors/invalid-cursor.error';
import { InvalidIdentityError } from '../errors/invalid-identity.error';
import { InvalidPolicyChangeError } from '../errors/invalid-policy-change.error';
import { NoClientOverrideError } from '../errors/no-client-override.error';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import { StoredKeyConflictError } from '../errors/stored-key-conflict.error';
import { UncertainWriteError } from '../errors/uncertain-write.error';
import { UnknownPolicyError } from '../errors/unknown-policy.error';
import { UnknownTierError } from '../errors/unknown-tier.error';
import { toHttpError } from './errors-to-http.interceptor';
import { writing } from './store-actions';

const answer = (error: unknown) => {
  const http = toHttpError(error) as HttpException;
  return { status: http.getStatus(), body: http.getResponse() };
};

describe('the admin API maps the library errors to HTTP in one place', () => {
  it.each([
    [new UnknownPolicyError('p'), 404, 'Unknown rate limit policy "p"'],
    [new UnknownTierError('p', 'gold'), 404, 'Rate limit policy "p" declares no tier "gold"'],
    [
      new NoClientOverrideError('p'),
      404,
      'No client override for this identity under rate limit policy "p"',
    ],
    [new InvalidCursorError(), 400, 'cursor must be a value returned by a previous page'],
    [new InvalidIdentityError(), 400, /^identity must be .*ip:2001:db8:0:0::\/64/],
    [new StoredKeyConflictError('rl:policy:p', 'a hash'), 409, /^rl:policy:p holds a value/],
    [
      new RateLimitStoreError('unavailable', 'Redis is not connected'),
      503,
      'Redis is unavailable: Redis is not connected',
    ],
    [new UncertainWriteError('Redis did not answer'), 504, /may or may not have been applied/],
  ])('%p -> %p', (error, status, message) => {
    const { status: got, body } = answer(error);
    expect(got).toBe(status);
    expect((body as { message: string }).message).toEqual(
      typeof message === 'string' ? message : expect.stringMatching(message),
    );
  });

  it('answers an invalid change with every problem, as validation does', () => {
    const { status, body } = answer(new InvalidPolicyChangeError(['limit is too high']));
    expect(status).toBe(400);
    expect(body).toMatchObject({ message: ['limit is too high'], error: 'Bad Request' });
  });

  it('lets HTTP errors and defects pass as they are', () => {
    const unauthorized = new UnauthorizedException();
    const defect = new TypeError('x is not a function');
    expect(toHttpError(unauthorized)).toBe(unauthorized);
    expect(toHttpError(defect)).toBe(defect);
  });

  it('a write that timed out is uncertain (504); one refused at once changed nothing (503)', async () => {
    const timedOut = writing(async () => {
      throw new RateLimitStoreError('timeout', 'Redis did not answer within 2000 ms');
    });
    await expect(timedOut).rejects.toBeInstanceOf(UncertainWriteError);
    const refused = writing(async () => {
      throw new RateLimitStoreError('unavailable', 'Redis is not connected');
    });
    await expect(refused).rejects.toBeInstanceOf(RateLimitStoreError);
  });
});
