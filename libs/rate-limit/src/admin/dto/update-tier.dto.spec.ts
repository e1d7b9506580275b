import { BadRequestException, type ArgumentMetadata } from '@nestjs/common';
import { MAX_WINDOW_MS } from '../../policy/policy-limits';
import type { TierPatch } from '../policy-view.interface';
import { createAdminValidationPipe, toTierPatch } from '../to-policy-patch';
import { UpdateTierDto } from './update-tier.dto';

const pipe = createAdminValidationPipe();
const BODY: ArgumentMetadata = { type: 'body', metatype: UpdateTierDto, data: '' };

/** What the controller does with a PATCH body: the pipe, then the conversion. */
async function patchFrom(body: unknown): Promise<TierPatch> {
  return toTierPatch((await pipe.transform(body, BODY)) as UpdateTierDto);
}

/** The 400 messages for `body` (fails the test if it is accepted). */
async function rejection(body: unknown): Promise<string[]> {
  try {
    await patchFrom(body);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    const { message } = (error as BadRequestException).getResponse() as { message: string[] };
    expect(Array.isArray(message)).toBe(true);
    return message;
  }
  throw new Error('accepted, expected a 400');
}

describe('UpdateTierDto (PATCH /admin/policies/:name/tiers/:tier)', () => {
  it.each<[unknown, TierPatch]>([
    [{ limit: 1 }, { limit: 1 }],
    [{ limit: 1_000_000_000 }, { limit: 1_000_000_000 }],
    [{ window: '10s' }, { windowMs: 10_000 }],
    [{ window: 2_500 }, { windowMs: 2_500 }],
    [{ window: '366d' }, { windowMs: MAX_WINDOW_MS }],
    [{ windowMs: 1 }, { windowMs: 1 }],
    [{ window: '1m', windowMs: 60_000 }, { windowMs: 60_000 }],
    [{ burst: 20 }, { burst: 20 }],
    [
      { limit: 5, window: '1h', burst: 10 },
      { limit: 5, windowMs: 3_600_000, burst: 10 },
    ],
  ])('accepts %j as %j', async (body, patch) => {
    await expect(patchFrom(body)).resolves.toEqual(patch);
  });

  it.each<[string, unknown, string]>([
    ['a zero limit', { limit: 0 }, 'limit must not be less than 1'],
    ['a fractional limit', { limit: 1.5 }, 'limit must be an integer number'],
    ['a numeric-string limit', { limit: '5' }, 'limit must be an integer number'],
    ['a null limit', { limit: null }, 'limit must be an integer number'],
    ['a too large limit', { limit: 1_000_000_001 }, 'limit must not be greater than 1000000000'],
    ['an unparsable window', { window: 'soon' }, 'window must be a duration'],
    ['a zero window', { window: '0s' }, 'window must be a duration'],
    ['a window over 366 days', { window: '367d' }, 'window must be a duration'],
    ['a null window', { window: null }, 'window must be a duration'],
    ['a zero windowMs', { windowMs: 0 }, 'windowMs must not be less than 1'],
    ['a null windowMs', { windowMs: null }, 'windowMs must be an integer number'],
    [
      'window and windowMs that disagree',
      { window: '10s', windowMs: 5_000 },
      'windowMs (5000) disagrees with window ("10s" = 10000 ms)',
    ],
    ['a zero burst', { burst: 0 }, 'burst must not be less than 1'],
    ['a fractional burst', { burst: 2.5 }, 'burst must be an integer number'],
    ['a null burst', { burst: null }, 'burst must be an integer number'],
    // The algorithm and mode are the policy's: a tier cannot change them.
    ['an algo', { limit: 5, algo: 'gcra' }, 'property algo should not exist'],
    ['a mode', { limit: 5, mode: 'shadow' }, 'property mode should not exist'],
    ['an unknown field', { limit: 5, limt: 5 }, 'property limt should not exist'],
    ['a member-named field', JSON.parse('{"constructor": 1}'), 'property constructor'],
  ])('rejects %s with a message naming the field', async (_label, body, message) => {
    const messages = await rejection(body);
    expect(messages.some((m) => m.includes(message))).toBe(true);
  });

  it('lists every bad field at once', async () => {
    const messages = await rejection({ limit: 0, burst: 'x', extra: 1 });
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^limit /),
        expect.stringMatching(/^burst /),
        'property extra should not exist',
      ]),
    );
  });

  it.each<[string, unknown]>([
    ['an empty object', {}],
    ['no body at all', undefined],
  ])('rejects %s: nothing to change', async (_label, body) => {
    await expect(rejection(body)).resolves.toEqual([
      'body must set at least one of limit, window, windowMs, burst (nothing to change)',
    ]);
  });

  it('rejects a JSON array body', async () => {
    await rejection([{ limit: 5 }]);
  });
});
