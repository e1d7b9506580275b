import { parseRecord } from './client-override-index';

describe('parseRecord (an index entry, which redis-cli may have written)', () => {
  const good = { identity: 'ip:203.0.113.7', action: 'allow', updatedAt: 1_767_225_600_000 };

  it('reads a record as the service wrote it', () => {
    expect(parseRecord(JSON.stringify(good))).toEqual(good);
    const expiring = { ...good, expiresAt: 1_767_225_900_000 };
    expect(parseRecord(JSON.stringify(expiring))).toEqual(expiring);
  });

  it.each([
    ['no value', undefined],
    ['not JSON', '{'],
    ['null', 'null'],
    ['a number', '7'],
    ['no identity', JSON.stringify({ ...good, identity: undefined })],
    ['updatedAt as text', JSON.stringify({ ...good, updatedAt: 'yesterday' })],
    ['updatedAt missing', JSON.stringify({ identity: 'ip:1.2.3.4', action: 'allow' })],
    ['expiresAt a fraction', JSON.stringify({ ...good, expiresAt: 1.5 })],
    ['expiresAt as text', JSON.stringify({ ...good, expiresAt: '2030-01-01' })],
  ])('ignores %s', (_what, raw) => {
    expect(parseRecord(raw)).toBeUndefined();
  });
});
