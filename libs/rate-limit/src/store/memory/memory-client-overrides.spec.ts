import { MemoryClientOverrides } from './memory-client-overrides';

const T0 = 1_700_000_000_000;

describe('MemoryClientOverrides', () => {
  let now: number;
  let overrides: MemoryClientOverrides;

  beforeEach(() => {
    now = T0;
    overrides = new MemoryClientOverrides(() => now);
  });

  it('holds a decoded override per key', () => {
    overrides.put('a', 'deny:Go away');
    overrides.put('b', 'quota:5::');
    expect(overrides.get('a')).toEqual({ action: 'deny', message: 'Go away' });
    expect(overrides.get('b')).toEqual({
      action: 'quota',
      limit: 5,
      windowMs: undefined,
      burst: 5,
    });
    expect(overrides.get('c')).toBeUndefined();
    expect(overrides.size).toBe(2);
  });

  it('answers an override until its expiry on the injected clock, then drops it', () => {
    overrides.put('a', 'allow', T0 + 1_000);
    now = T0 + 999;
    expect(overrides.get('a')).toEqual({ action: 'allow' });
    expect(overrides.size).toBe(1);
    now = T0 + 1_000;
    expect(overrides.get('a')).toBeUndefined();
    expect(overrides.size).toBe(0);
    // Gone for good, even if the clock went back.
    now = T0;
    expect(overrides.get('a')).toBeUndefined();
  });

  it('keeps an override without expiry whatever the time', () => {
    overrides.put('a', 'deny');
    now = Number.MAX_SAFE_INTEGER;
    expect(overrides.get('a')).toEqual({ action: 'deny', message: undefined });
  });

  it('takes an expiry already past as gone at the first read', () => {
    overrides.put('a', 'allow', T0 - 1);
    expect(overrides.size).toBe(1);
    expect(overrides.get('a')).toBeUndefined();
    expect(overrides.size).toBe(0);
  });

  it('replaces an override and its expiry', () => {
    overrides.put('a', 'allow', T0 + 10);
    overrides.put('a', 'deny:later', T0 + 1_000);
    now = T0 + 500;
    expect(overrides.get('a')).toEqual({ action: 'deny', message: 'later' });
    overrides.put('a', 'allow');
    now = T0 + 5_000;
    expect(overrides.get('a')).toEqual({ action: 'allow' });
  });

  it('removes the override of a key put as null, leaving the others', () => {
    overrides.put('a', 'allow');
    overrides.put('b', 'allow');
    overrides.put('a', null);
    expect(overrides.get('a')).toBeUndefined();
    expect(overrides.get('b')).toEqual({ action: 'allow' });
    expect(overrides.size).toBe(1);
  });

  it('removes the override of a key put with a value that is none', () => {
    overrides.put('a', 'allow');
    overrides.put('a', 'quota:1:2');
    expect(overrides.get('a')).toBeUndefined();
    expect(overrides.size).toBe(0);
  });

  it('asks the clock only about a key it holds', () => {
    const clock = jest.fn(() => T0);
    const watched = new MemoryClientOverrides(clock);
    expect(watched.get('a')).toBeUndefined();
    watched.put('b', 'allow');
    expect(watched.get('a')).toBeUndefined();
    expect(clock).not.toHaveBeenCalled();
    expect(watched.get('b')).toEqual({ action: 'allow' });
    expect(clock).toHaveBeenCalledTimes(1);
  });
});
