import { overrideState } from './audit-entry';
import { HashWriteWatch } from './hash-write-watch';

describe('HashWriteWatch', () => {
  it('reports a state read twice in a row, once, with the thresholds before its first read', () => {
    const watch = new HashWriteWatch();
    let limit = 5;
    const now = () => ({ limit });
    expect(watch.read('p', { limit: 6 }, now)).toBeUndefined();
    limit = 6; // applied
    expect(watch.read('p', { limit: 6 }, now)).toEqual({ limit: 5 });
    expect(watch.read('p', { limit: 6 }, now)).toBeUndefined();
    expect(watch.read('p', { limit: 7 }, now)).toBeUndefined();
    limit = 7;
    expect(watch.read('p', { limit: 7 }, now)).toEqual({ limit: 6 });
    expect(watch.read('p', null, now)).toBeUndefined();
    expect(watch.read('p', null, now)).toEqual({ limit: 7 });
  });

  it('tells policies apart', () => {
    const watch = new HashWriteWatch();
    const now = () => 'before';
    watch.read('p', { limit: 5 }, now);
    expect(watch.read('q', { limit: 5 }, now)).toBeUndefined();
    expect(watch.read('p', { limit: 5 }, now)).toBe('before');
  });
});

describe('overrideState', () => {
  it('is canonical: key order and the updatedAt stamp do not matter', () => {
    expect(overrideState({ limit: 5, burst: 7, updatedAt: 1 } as object)).toBe(
      overrideState({ burst: 7, limit: 5, updatedAt: 2 } as object),
    );
    expect(overrideState({ tiers: { b: { limit: 1 }, a: { limit: 2 } } })).toBe(
      '{"tiers":{"a":{"limit":2},"b":{"limit":1}}}',
    );
    expect(overrideState(null)).toBe('null');
  });
});
