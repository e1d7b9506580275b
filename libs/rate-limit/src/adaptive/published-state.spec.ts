import fc from 'fast-check';
import {
  appliedMultipliers,
  decodeAdaptiveState,
  encodeAdaptiveState,
  isNewer,
  STALE_STATE_MS,
  type PublishedAdaptiveState,
} from './published-state';

const tiers = [
  { name: 'free', floor: 0.2 },
  { name: 'pro', floor: 0.5 },
  { name: 'enterprise', floor: 1 },
];
const state = (epoch: number, level: number, at: number, boost = 0): PublishedAdaptiveState => ({
  epoch,
  level,
  boost,
  at,
});

describe('published adaptive state', () => {
  it('applies the leader state while fresh, the configured thresholds once stale', () => {
    const s = state(3, 1.5, 1_000);
    expect(appliedMultipliers(s, tiers, 1_000 + STALE_STATE_MS)).toEqual({
      free: 0.2,
      pro: 0.75,
      enterprise: 1,
    });
    expect(appliedMultipliers(s, tiers, 1_001 + STALE_STATE_MS)).toEqual({
      free: 1,
      pro: 1,
      enterprise: 1,
    });
    expect(appliedMultipliers(undefined, tiers, 0)).toEqual({ free: 1, pro: 1, enterprise: 1 });
  });

  it('takes only a higher epoch, or the same epoch written later (a deposed leader is fenced out)', () => {
    expect(isNewer(undefined, state(0, 0, 0))).toBe(true);
    expect(isNewer(state(5, 1, 100), state(4, 0, 900))).toBe(false);
    expect(isNewer(state(5, 1, 100), state(5, 1.5, 200))).toBe(true);
    expect(isNewer(state(5, 1, 100), state(5, 1.5, 100))).toBe(false);
    expect(isNewer(state(5, 1, 100), state(6, 0, 50))).toBe(true);
  });

  it('round-trips what it encodes', () => {
    const s = state(12, 0, 1_764_000_000_000, 0.35);
    expect(decodeAdaptiveState(encodeAdaptiveState(s))).toEqual(s);
  });

  it.each([
    ['not JSON', '{'],
    ['an object', '{"epoch":1}'],
    ['three numbers', '[1,0,0]'],
    ['a string inside', '[1,"0",0,5]'],
    ['a negative level', '[1,-1,0,5]'],
    ['a level past any waterfall', '[1,65,0,5]'],
    ['a boost past 3x', '[1,0,2.5,5]'],
    ['a boost while shedding', '[1,0.5,0.1,5]'],
    ['a fractional epoch', '[1.5,0,0,5]'],
    ['an unsafe time', '[1,0,0,1e300]'],
  ])('refuses %s', (_, text) => {
    expect(decodeAdaptiveState(text)).toBeUndefined();
  });

  it('never throws and returns only states within bounds, whatever arrives', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const decoded = decodeAdaptiveState(text);
        return (
          decoded === undefined ||
          (decoded.level >= 0 && decoded.boost >= 0 && decoded.boost <= 2 && decoded.epoch >= 0)
        );
      }),
    );
  });
});
