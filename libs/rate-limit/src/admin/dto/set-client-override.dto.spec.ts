import { BadRequestException, type ArgumentMetadata } from '@nestjs/common';
import type { ClientOverride } from '../../policy/client-override';
import { MAX_WINDOW_MS } from '../../policy/policy-limits';
import { toClientOverride } from '../to-client-override';
import { createAdminValidationPipe } from '../to-policy-patch';
import { ListClientsQueryDto } from './list-clients-query.dto';
import { SetClientOverrideDto } from './set-client-override.dto';

const pipe = createAdminValidationPipe();
const BODY: ArgumentMetadata = { type: 'body', metatype: SetClientOverrideDto, data: '' };
const QUERY: ArgumentMetadata = { type: 'query', metatype: ListClientsQueryDto, data: '' };
const NOW = Date.UTC(2026, 0, 1);

/** What the controller does with a PUT body: the pipe, then the conversion. */
async function overrideFrom(body: unknown): Promise<ClientOverride> {
  return toClientOverride((await pipe.transform(body, BODY)) as SetClientOverrideDto, NOW);
}

/** The 400 messages of `run` (fails the test if it is accepted). */
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

describe('SetClientOverrideDto (PUT /admin/policies/:name/clients/:identity)', () => {
  it.each<[unknown, ClientOverride]>([
    [{ action: 'allow' }, { action: 'allow' }],
    [{ action: 'deny' }, { action: 'deny' }],
    [
      { action: 'deny', message: 'Revoked' },
      { action: 'deny', message: 'Revoked' },
    ],
    [
      { action: 'deny', message: 'x'.repeat(200) },
      { action: 'deny', message: 'x'.repeat(200) },
    ],
    // No action is a quota: the service then asks for a threshold.
    [{}, { action: 'quota' }],
    [undefined, { action: 'quota' }],
    [{ limit: 5 }, { action: 'quota', limit: 5 }],
    [
      { action: 'quota', window: '1m' },
      { action: 'quota', windowMs: 60_000 },
    ],
    [
      { window: 2_500, windowMs: 2_500 },
      { action: 'quota', windowMs: 2_500 },
    ],
    [
      { windowMs: 1, burst: 9 },
      { action: 'quota', windowMs: 1, burst: 9 },
    ],
    [
      { action: 'allow', expiresIn: '1h' },
      { action: 'allow', expiresAt: NOW + 3_600_000 },
    ],
    [
      { action: 'allow', expiresIn: 1_000 },
      { action: 'allow', expiresAt: NOW + 1_000 },
    ],
    [
      { action: 'allow', expiresIn: '366d' },
      { action: 'allow', expiresAt: NOW + MAX_WINDOW_MS },
    ],
    [
      { action: 'allow', expiresAt: '2026-01-02T00:00:00Z' },
      { action: 'allow', expiresAt: NOW + 86_400_000 },
    ],
    [
      { action: 'allow', expiresAt: '2026-01-02T01:30:00.250+01:30' },
      { action: 'allow', expiresAt: NOW + 86_400_250 },
    ],
    [
      { action: 'allow', expiresAt: NOW + 5_000 },
      { action: 'allow', expiresAt: NOW + 5_000 },
    ],
  ])('accepts %j as %j', async (body, override) => {
    await expect(overrideFrom(body)).resolves.toEqual(override);
  });

  it.each<[string, unknown, string]>([
    ['an unknown action', { action: 'block' }, 'action must be one of the following values'],
    ['a null action', { action: null }, 'action must be one of the following values'],
    ['a zero limit', { limit: 0 }, 'limit must not be less than 1'],
    ['a fractional limit', { limit: 1.5 }, 'limit must be an integer number'],
    ['a string limit', { limit: '5' }, 'limit must be an integer number'],
    ['a null limit', { limit: null }, 'limit must be an integer number'],
    ['a too large limit', { limit: 1_000_000_001 }, 'limit must not be greater than 1000000000'],
    ['an unparsable window', { window: 'soon' }, 'window must be a duration'],
    ['a null window', { window: null }, 'window must be a duration'],
    ['a zero windowMs', { windowMs: 0 }, 'windowMs must not be less than 1'],
    [
      'window and windowMs that disagree',
      { window: '10s', windowMs: 5_000 },
      'windowMs (5000) disagrees with window',
    ],
    ['a zero burst', { burst: 0 }, 'burst must not be less than 1'],
    ['a null burst', { burst: null }, 'burst must be an integer number'],
    ['a numeric message', { action: 'deny', message: 5 }, 'message must be a string'],
    ['a null message', { action: 'deny', message: null }, 'message must be a string'],
    [
      'a message over 200 characters',
      { action: 'deny', message: 'x'.repeat(201) },
      'message must be shorter than or equal to 200 characters',
    ],
    [
      'a message with a line break',
      { action: 'deny', message: 'a\r\nSet-Cookie: x' },
      'message must not contain control characters',
    ],
    ['an empty message', { action: 'deny', message: '' }, 'message must not be blank'],
    ['a blank message', { action: 'deny', message: '  ' }, 'message must not be blank'],
    [
      'a message with a C1 control',
      { action: 'deny', message: 'a\u0085b' },
      'message must not contain control characters',
    ],
    ...['\u202e', '\u200e', '\u200b', '\ufeff', '\u2028', '\u2029', '\ud800'].map(
      (char): [string, object, string] => [
        `a message with U+${char.charCodeAt(0).toString(16).toUpperCase()}`,
        { action: 'deny', message: `Paid${char}etats` },
        'message must not contain format characters (such as U+202E or U+200B), line or paragraph separators',
      ],
    ),
    ['a date without a time zone', { expiresAt: '2026-01-02T00:00:00' }, 'expiresAt must be'],
    ['a date only', { expiresAt: '2026-01-02' }, 'expiresAt must be an ISO 8601 date-time'],
    ['a day the month lacks', { expiresAt: '2026-02-30T00:00:00Z' }, 'expiresAt must be'],
    ['an hour past 23', { expiresAt: '2026-01-02T24:00:00Z' }, 'expiresAt must be'],
    ['an unparsable date', { expiresAt: 'tomorrow' }, 'expiresAt must be'],
    ['a fractional epoch', { expiresAt: 1.5 }, 'expiresAt must be'],
    ['a negative epoch', { expiresAt: -1 }, 'expiresAt must be'],
    ['a boolean expiresAt', { expiresAt: true }, 'expiresAt must be'],
    ['a null expiresAt', { expiresAt: null }, 'expiresAt must be'],
    ['an unparsable expiresIn', { expiresIn: 'later' }, 'expiresIn must be a duration'],
    ['an expiresIn over 366 days', { expiresIn: '367d' }, 'expiresIn must be a duration'],
    ['a zero expiresIn', { expiresIn: 0 }, 'expiresIn must be a duration'],
    ['a null expiresIn', { expiresIn: null }, 'expiresIn must be a duration'],
    [
      'both expiresAt and expiresIn',
      { action: 'allow', expiresAt: NOW + 5_000, expiresIn: '1h' },
      'expiresIn and expiresAt are exclusive: send only one of them',
    ],
    ['an unknown field', { action: 'allow', reason: 'vip' }, 'property reason should not exist'],
    ['an identity in the body', { identity: 'ip:1.2.3.4' }, 'property identity should not exist'],
    ['a member-named field', JSON.parse('{"__proto__x": 1}'), 'property __proto__x'],
  ])('rejects %s with a message naming the field', async (_label, body, message) => {
    const messages = await rejection(() => overrideFrom(body));
    expect(messages.some((m) => m.includes(message))).toBe(true);
  });

  it('lists every bad field at once', async () => {
    const messages = await rejection(() =>
      overrideFrom({ action: 'x', limit: 0, expiresAt: 'soon', extra: 1 }),
    );
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^action /),
        expect.stringMatching(/^limit /),
        expect.stringMatching(/^expiresAt /),
        'property extra should not exist',
      ]),
    );
  });

  it('rejects a JSON array body', async () => {
    await rejection(() => overrideFrom([{ action: 'allow' }]));
  });
});

describe('ListClientsQueryDto (GET /admin/policies/:name/clients)', () => {
  const query = (q: Record<string, unknown>) =>
    pipe.transform(q, QUERY) as Promise<ListClientsQueryDto>;

  it('defaults count to 100 and cursor to undefined', async () => {
    await expect(query({})).resolves.toEqual({ count: 100 });
  });

  it('converts count from the query string and keeps the cursor', async () => {
    await expect(query({ count: '1000', cursor: '17' })).resolves.toEqual({
      count: 1000,
      cursor: '17',
    });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ count: '0' }, 'count must not be less than 1'],
    [{ count: '1001' }, 'count must not be greater than 1000'],
    [{ count: '2.5' }, 'count must be an integer number'],
    [{ cursor: ['1', '2'] }, 'cursor must be a string'],
    [{ cursor: 'x'.repeat(4097) }, 'cursor must be shorter than or equal to 4096 characters'],
    [{ action: 'deny' }, 'property action should not exist'],
  ])('rejects %j', async (q, message) => {
    const messages = await rejection(() => query(q));
    expect(messages.some((m) => m.includes(message))).toBe(true);
  });
});
