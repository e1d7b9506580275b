import type { ClientOverride } from '../policy/client-override';
import {
  decodeClientOverride,
  encodeClientOverride,
  type StoredClientOverride,
} from './client-override-value';

describe('encodeClientOverride', () => {
  it.each([
    [{ action: 'allow' }, 'allow'],
    [{ action: 'deny' }, 'deny'],
    [{ action: 'deny', message: 'Account suspended' }, 'deny:Account suspended'],
    [{ action: 'deny', message: 'see: /help' }, 'deny:see: /help'],
    [{ action: 'quota', limit: 5, windowMs: 60_000, burst: 8 }, 'quota:5:60000:8'],
    [{ action: 'quota', limit: 5 }, 'quota:5::'],
    [{ action: 'quota', windowMs: 1_000 }, 'quota::1000:'],
    [{ action: 'quota', burst: 3 }, 'quota:::3'],
  ] as [ClientOverride, string][])('stores %j as %p', (override, stored) => {
    expect(encodeClientOverride(override)).toBe(stored);
  });

  it('leaves out what the stored value does not carry (expiry, thresholds of allow and deny)', () => {
    expect(encodeClientOverride({ action: 'allow', limit: 5, expiresAt: 9 })).toBe('allow');
    expect(encodeClientOverride({ action: 'deny', expiresAt: 9 })).toBe('deny');
    expect(encodeClientOverride({ action: 'quota', limit: 2, expiresAt: 9 })).toBe('quota:2::');
  });
});

describe('decodeClientOverride', () => {
  it.each([
    ['allow', { action: 'allow' }],
    ['deny', { action: 'deny', message: undefined }],
    ['deny:Go away', { action: 'deny', message: 'Go away' }],
    ['deny:a:b', { action: 'deny', message: 'a:b' }],
    ['deny:', { action: 'deny', message: '' }],
    ['quota:5:60000:8', { action: 'quota', limit: 5, windowMs: 60_000, burst: 8 }],
    ['quota::1000:', { action: 'quota', limit: undefined, windowMs: 1_000, burst: undefined }],
    ['quota:::3', { action: 'quota', limit: undefined, windowMs: undefined, burst: 3 }],
    ['quota:::', { action: 'quota', limit: undefined, windowMs: undefined, burst: undefined }],
  ] as [string, StoredClientOverride][])('reads %p as %j', (raw, decoded) => {
    expect(decodeClientOverride(raw)).toEqual(decoded);
  });

  it('gives a quota that sets a limit and no burst its limit as burst', () => {
    expect(decodeClientOverride('quota:5::')).toEqual({
      action: 'quota',
      limit: 5,
      windowMs: undefined,
      burst: 5,
    });
    expect(decodeClientOverride('quota:5:100:2')).toMatchObject({ limit: 5, burst: 2 });
  });

  it("reads a zero threshold (written by hand) as the policy's own", () => {
    expect(decodeClientOverride('quota:0:0:0')).toEqual({
      action: 'quota',
      limit: undefined,
      windowMs: undefined,
      burst: undefined,
    });
    expect(decodeClientOverride('quota:4:0:')).toMatchObject({ limit: 4, windowMs: undefined });
  });

  it.each([
    [''],
    ['Allow'],
    ['allow '],
    ['DENY'],
    ['denied'],
    ['quota'],
    ['quota:1:2'],
    ['quota:1:2:3:4'],
    ['quota:a::'],
    ['quota:-1::'],
    ['quota:1.5::'],
    ['block'],
  ])('reads %p as no override', (raw) => {
    expect(decodeClientOverride(raw)).toBeUndefined();
  });

  it.each([[null], [undefined], [5], [{ action: 'allow' }], [Buffer.from('allow')]])(
    'reads the non-string %p as no override',
    (raw) => {
      expect(decodeClientOverride(raw)).toBeUndefined();
    },
  );
});

describe('client override values round trip', () => {
  it.each([
    [{ action: 'allow' }, { action: 'allow' }],
    [{ action: 'deny' }, { action: 'deny', message: undefined }],
    [
      { action: 'deny', message: 'Contact support: billing' },
      { action: 'deny', message: 'Contact support: billing' },
    ],
    [
      { action: 'quota', limit: 1_000_000_000, windowMs: 31_622_400_000, burst: 1 },
      { action: 'quota', limit: 1_000_000_000, windowMs: 31_622_400_000, burst: 1 },
    ],
    [
      { action: 'quota', windowMs: 5 },
      { action: 'quota', limit: undefined, windowMs: 5, burst: undefined },
    ],
  ] as [ClientOverride, StoredClientOverride][])('%j', (override, decoded) => {
    expect(decodeClientOverride(encodeClientOverride(override))).toEqual(decoded);
  });
});
