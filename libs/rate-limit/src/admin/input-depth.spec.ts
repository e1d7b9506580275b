import { BadRequestException } from '@nestjs/common';
import { SetClientOverrideDto } from './dto/set-client-override.dto';
import { UpdatePolicyDto } from './dto/update-policy.dto';
import { UpdateTierDto } from './dto/update-tier.dto';
import { nestedDeeperThan } from './input-depth';
import { createAdminValidationPipe } from './to-policy-patch';

/** JSON nested `depth` levels deep, alternating arrays and objects, parsed as a body would be. */
const nested = (depth: number): unknown => {
  let text = '1';
  for (let i = 0; i < depth; i++) text = i % 2 ? `{"a":${text}}` : `[${text}]`;
  return JSON.parse(text);
};

describe('nestedDeeperThan', () => {
  it.each([
    [1, 0, false],
    [null, 0, false],
    ['text', 0, false],
    [{}, 0, true],
    [{}, 1, false],
    [{ limit: 5, window: '1m' }, 1, false],
    [{ limit: [5] }, 1, true],
    [{ limit: 5, burst: { a: [] } }, 2, true],
    [{ limit: 5, burst: { a: [] } }, 3, false],
  ])('%j deeper than %d: %p', (value, max, deeper) => {
    expect(nestedDeeperThan(value, max)).toBe(deeper);
  });

  it('tells 16 levels from 17, whichever branch goes deep', () => {
    expect(nestedDeeperThan(nested(16), 16)).toBe(false);
    expect(nestedDeeperThan(nested(17), 16)).toBe(true);
    expect(nestedDeeperThan({ a: 1, b: [2, { c: nested(13) }] }, 16)).toBe(false);
    expect(nestedDeeperThan({ a: 1, b: [2, { c: nested(14) }] }, 16)).toBe(true);
  });

  it('checks 100,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(nested(100_000), 16)).toBe(true);
  });
});

describe('the admin validation pipe on deeply nested bodies', () => {
  const pipe = createAdminValidationPipe();

  // 3,100 levels (about 24 kB of JSON, under the body limit) overflowed class-transformer's
  // recursion: a RangeError, answered 500.
  it.each([UpdatePolicyDto, UpdateTierDto, SetClientOverrideDto])(
    'refuses 3,100 levels with a 400 for %p, in any field, before transforming it',
    async (metatype) => {
      for (const body of [
        nested(3_100),
        { limit: nested(3_100) },
        { constructor: nested(3_100) },
      ]) {
        const refused = pipe.transform(body, { type: 'body', metatype, data: '' });
        await expect(refused).rejects.toBeInstanceOf(BadRequestException);
        await expect(refused).rejects.toMatchObject({
          response: { message: ['body must not nest objects or arrays more than 16 levels deep'] },
        });
      }
    },
  );

  it('still names the field of a value nested a little', async () => {
    const refused = pipe.transform(
      { limit: { a: 1 } },
      { type: 'body', metatype: UpdatePolicyDto, data: '' },
    );
    await expect(refused).rejects.toMatchObject({
      response: { message: expect.arrayContaining([expect.stringMatching(/^limit must be/)]) },
    });
  });
});
