import { encodeOverride, parseOverrideHash } from './policy-override-codec';

describe('parseOverrideHash', () => {
  it('reads every valid field as its type', () => {
    const { override, problems } = parseOverrideHash({
      algo: 'gcra',
      limit: '10',
      windowMs: '60000',
      burst: '20',
      mode: 'shadow',
      enabled: 'false',
      updatedAt: '1700000000000',
    });
    expect(problems).toEqual([]);
    expect(override).toEqual({
      algo: 'gcra',
      limit: 10,
      windowMs: 60_000,
      burst: 20,
      mode: 'shadow',
      enabled: false,
      updatedAt: 1_700_000_000_000,
    });
  });

  it.each([
    ['limit', '0'],
    ['limit', '-3'],
    ['limit', '1.5'],
    ['limit', 'ten'],
    ['limit', '1000000001'],
    ['burst', ''],
    ['windowMs', '0'],
    ['windowMs', String(366 * 86_400_000 + 1)],
    ['algo', 'token_bucket'],
    ['mode', 'observe'],
    ['enabled', 'yes'],
  ])('drops %s=%j and reports it, keeping the valid fields', (field, raw) => {
    const { override, problems } = parseOverrideHash({
      limit: '7',
      [field]: raw,
      ...(field === 'limit' ? {} : {}),
    });
    expect(problems).toEqual([`${field}=${JSON.stringify(raw)}`]);
    expect(override).toEqual(field === 'limit' ? null : { limit: 7 });
  });

  it('reports unknown fields and ignores a hash with nothing valid', () => {
    const { override, problems } = parseOverrideHash({ limt: '5', updatedAt: '1' });
    expect(override).toBeNull();
    expect(problems).toEqual(['limt="5" (unknown field)']);
  });

  it('round-trips through encodeOverride', () => {
    const override = { algo: 'sliding-window' as const, limit: 3, enabled: true, updatedAt: 5 };
    expect(parseOverrideHash(encodeOverride(override)).override).toEqual(override);
  });

  it.each(['__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'toString'])(
    'treats the field %s as unknown instead of crashing',
    (field) => {
      const hash = Object.fromEntries([
        [field, '1'],
        ['limit', '4'],
      ]);
      const { override, problems } = parseOverrideHash(hash);
      expect(override).toEqual({ limit: 4 });
      expect(problems).toEqual([`${field}="1" (unknown field)`]);
    },
  );

  // Every field's value is checked against an allow-list: `enabled=__proto__` once became {}
  // and `enabled=constructor` a function, both applied without a warning.
  it.each(['algo', 'mode', 'enabled', 'limit', 'burst', 'windowMs', 'updatedAt'])(
    'the field %s with a prototype name as its value is reported and ignored',
    (field) => {
      for (const raw of ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']) {
        const { override, problems } = parseOverrideHash({ limit: '4', [field]: raw });
        expect(problems).toEqual([`${field}=${JSON.stringify(raw)}`]);
        expect(override).toEqual(field === 'limit' ? null : { limit: 4 });
      }
    },
  );
});
