import fc from 'fast-check';
import { decodeLoad, encodeLoad } from './load-codec';

describe('heartbeat load codec', () => {
  it('round-trips a load, rounded to thousandths', () => {
    const text = encodeLoad({ pressure: 1.23456, dominant: 'elu', rps: 120.4, limited: 0.0125 });
    expect(text).toBe('1.235,elu,120,0.013');
    expect(decodeLoad('a', 5, text)).toEqual({
      id: 'a',
      reportedAt: 5,
      pressure: 1.235,
      dominant: 'elu',
      rps: 120,
      limited: 0.013,
    });
  });

  it.each([
    ['an unknown signal', '1,load1,10,0'],
    ['a negative pressure', '-1,elu,10,0'],
    ['a missing field', '1,elu,10'],
    ['an extra field', '1,elu,10,0,7'],
    ['not a number', '1,elu,ten,0'],
    ['infinity', 'Infinity,elu,10,0'],
  ])('leaves out %s', (_, text) => {
    expect(decodeLoad('a', 5, text)).toBeUndefined();
  });

  it('never throws, and what it accepts is finite and non-negative', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const load = decodeLoad('a', 0, text);
        return (
          load === undefined ||
          [load.pressure, load.rps, load.limited].every((n) => Number.isFinite(n) && n >= 0)
        );
      }),
    );
  });
});
