import { BadRequestException, type ArgumentMetadata } from '@nestjs/common';
import { MAX_WINDOW_MS } from '../../policy/policy-limits';
import type { PolicyPatch } from '../policy-view.interface';
import { createAdminValidationPipe, toPolicyPatch } from '../to-policy-patch';
import { ListKeysQueryDto } from './list-keys-query.dto';
import { UpdatePolicyDto } from './update-policy.dto';

const pipe = createAdminValidationPipe();
const BODY: ArgumentMetadata = { type: 'body', metatype: UpdatePolicyDto, data: '' };
const QUERY: ArgumentMetadata = { type: 'query', metatype: ListKeysQueryDto, data: '' };

/** What the controller does with a PATCH body: the pipe, then the conversion. */
async function patchFrom(body: unknown): Promise<PolicyPatch> {
  return toPolicyPatch((await pipe.transform(body, BODY)) as UpdatePolicyDto);
}

/** The 400 messages for `body` (fails the test if it is accepted). */
async function rejection(run: () => Promise<unknown>): Promise<string[]> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    const { message } = (error as BadRequestException).getResponse() as { message: string[] };
    expect(Array.isArray(message)).toBe(true);
    return message;
  }
  throw new Error('accepted, expected a 400');
}

describe('UpdatePolicyDto (PATCH /admin/policies/:name)', () => {
  it.each<[unknown, PolicyPatch]>([
    [{ limit: 1 }, { limit: 1 }],
    [{ limit: 1_000_000_000 }, { limit: 1_000_000_000 }],
    [{ window: '500ms' }, { windowMs: 500 }],
    [{ window: '10s' }, { windowMs: 10_000 }],
    [{ window: '5m' }, { windowMs: 300_000 }],
    [{ window: '1h' }, { windowMs: 3_600_000 }],
    [{ window: '1d' }, { windowMs: 86_400_000 }],
    [{ window: '1.5s' }, { windowMs: 1_500 }],
    [{ window: 2_500 }, { windowMs: 2_500 }],
    [{ window: '366d' }, { windowMs: MAX_WINDOW_MS }],
    [{ windowMs: 1 }, { windowMs: 1 }],
    [{ window: '1m', windowMs: 60_000 }, { windowMs: 60_000 }],
    [{ algo: 'gcra' }, { algo: 'gcra' }],
    [{ burst: 20 }, { burst: 20 }],
    [{ mode: 'shadow' }, { mode: 'shadow' }],
    [{ enabled: false }, { enabled: false }],
    [
      { limit: 5, window: '10s', algo: 'token-bucket', burst: 10, mode: 'enforce', enabled: true },
      {
        limit: 5,
        windowMs: 10_000,
        algo: 'token-bucket',
        burst: 10,
        mode: 'enforce',
        enabled: true,
      },
    ],
  ])('accepts %j as %j', async (body, patch) => {
    await expect(patchFrom(body)).resolves.toEqual(patch);
  });

  it.each<[string, unknown, string]>([
    ['a negative limit', { limit: -1 }, 'limit must not be less than 1'],
    ['a zero limit', { limit: 0 }, 'limit must not be less than 1'],
    ['a fractional limit', { limit: 1.5 }, 'limit must be an integer number'],
    ['a numeric-string limit', { limit: '5' }, 'limit must be an integer number'],
    ['a non-numeric limit', { limit: 'abc' }, 'limit must be an integer number'],
    ['a null limit', { limit: null }, 'limit must be an integer number'],
    ['a too large limit', { limit: 1_000_000_001 }, 'limit must not be greater than 1000000000'],
    ['an unsafe limit', { limit: 1e20 }, 'limit must not be greater than 1000000000'],
    ['an unparsable window', { window: 'soon' }, 'window must be a duration'],
    ['a window with an unknown unit', { window: '10y' }, 'window must be a duration'],
    ['a negative window', { window: '-5s' }, 'window must be a duration'],
    ['a zero window', { window: '0s' }, 'window must be a duration'],
    ['a zero numeric window', { window: 0 }, 'window must be a duration'],
    ['a fractional-ms window', { window: '1.5ms' }, 'window must be a duration'],
    ['a window over 366 days', { window: '367d' }, 'window must be a duration'],
    ['a boolean window', { window: true }, 'window must be a duration'],
    ['a fractional windowMs', { windowMs: 10.5 }, 'windowMs must be an integer number'],
    ['a zero windowMs', { windowMs: 0 }, 'windowMs must not be less than 1'],
    [
      'a windowMs over 366 days',
      { windowMs: MAX_WINDOW_MS + 1 },
      `windowMs must not be greater than ${MAX_WINDOW_MS}`,
    ],
    [
      'window and windowMs that disagree',
      { window: '10s', windowMs: 5_000 },
      'windowMs (5000) disagrees with window ("10s" = 10000 ms)',
    ],
    ['an unknown algo', { algo: 'leaky' }, 'algo must be one of the following values'],
    ['an unknown mode', { mode: 'audit' }, 'mode must be one of the following values'],
    ['a zero burst', { burst: 0 }, 'burst must not be less than 1'],
    ['a fractional burst', { burst: 2.5 }, 'burst must be an integer number'],
    ['a string enabled', { enabled: 'yes' }, 'enabled must be a boolean value'],
    ['an unknown field', { limit: 5, limt: 5 }, 'property limt should not exist'],
    ['a prototype-polluting field', JSON.parse('{"__proto__x": 1}'), 'property __proto__x'],
  ])('rejects %s with a message naming the field', async (_label, body, message) => {
    const messages = await rejection(() => patchFrom(body));
    expect(messages.some((m) => m.includes(message))).toBe(true);
  });

  it('lists every bad field at once', async () => {
    const messages = await rejection(() => patchFrom({ limit: 0, algo: 'x', extra: 1 }));
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^limit /),
        expect.stringMatching(/^algo /),
        'property extra should not exist',
      ]),
    );
  });

  it.each<[string, unknown]>([
    ['an empty object', {}],
    ['no body at all', undefined],
  ])('rejects %s: nothing to change', async (_label, body) => {
    const messages = await rejection(() => patchFrom(body));
    expect(messages).toEqual([
      'body must set at least one of limit, window, windowMs, algo, burst, mode, enabled (nothing to change)',
    ]);
  });

  it('rejects a JSON array body', async () => {
    await rejection(() => patchFrom([{ limit: 5 }]));
  });
});

describe('ListKeysQueryDto (GET /admin/policies/:name/keys)', () => {
  const query = (q: Record<string, unknown>) =>
    pipe.transform(q, QUERY) as Promise<ListKeysQueryDto>;

  it('defaults count to 100 and cursor to undefined', async () => {
    await expect(query({})).resolves.toEqual({ count: 100 });
  });

  it('converts count from the query string and keeps the cursor', async () => {
    await expect(query({ count: '1000', cursor: '1739' })).resolves.toEqual({
      count: 1000,
      cursor: '1739',
    });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ count: '0' }, 'count must not be less than 1'],
    [{ count: '-3' }, 'count must not be less than 1'],
    [{ count: '1001' }, 'count must not be greater than 1000'],
    [{ count: '2.5' }, 'count must be an integer number'],
    [{ count: 'many' }, 'count must be an integer number'],
    [{ cursor: ['1', '2'] }, 'cursor must be a string'],
    [{ cursor: 'x'.repeat(4097) }, 'cursor must be shorter than or equal to 4096 characters'],
    [{ match: '*' }, 'property match should not exist'],
  ])('rejects %j', async (q, message) => {
    const messages = await rejection(() => query(q));
    expect(messages.some((m) => m.includes(message))).toBe(true);
  });
});
