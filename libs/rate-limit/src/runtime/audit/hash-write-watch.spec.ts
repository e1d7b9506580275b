import { overrideState } from './audit-entry';
import { HashWriteWatch } from './hash-write-watch';

describe('HashWriteWatch', () => {
  it('asks about a state once it was read twice in a row, and only once', () => {
    const watch = new HashWriteWatch();
    expect(watch.read('p', { limit: 5 })).toBe(false);
    expect(watch.read('p', { limit: 5 })).toBe(true);
    expect(watch.read('p', { limit: 5 })).toBe(false);
    expect(watch.read('p', { limit: 6 })).toBe(false);
    expect(watch.read('p', { limit: 6 })).toBe(true);
    expect(watch.read('p', null)).toBe(false);
    expect(watch.read('p', null)).toBe(true);
  });

  it('tells policies apart', () => {
    const watch = new HashWriteWatch();
    watch.read('p', { limit: 5 });
    expect(watch.read('q', { limit: 5 })).toBe(false);
    expect(watch.read('p', { limit: 5 })).toBe(true);
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
