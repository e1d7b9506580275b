import { parseDurationMs } from './parse-duration';

describe('parseDurationMs', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1.5s', 1_500],
    ['0.5m', 30_000],
    [' 10s ', 10_000],
    ['250', 250],
    [' 250 ', 250],
    ['1.25s', 1_250],
    ['2.125m', 127_500],
    ['1.001s', 1_001],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it('passes numbers through as milliseconds', () => {
    expect(parseDurationMs(1)).toBe(1);
    expect(parseDurationMs(60_000)).toBe(60_000);
  });

  it.each(['10 parsecs', 'abc', '', 's', '-5s', '1e3ms', '10S', '1w', '1 h 2 m'])(
    'cannot read %j',
    (text) => {
      expect(parseDurationMs(text)).toBeNaN();
    },
  );

  // Only plain digits may stand for milliseconds without a unit: what Number() would also take
  // (exponents, hex, signs, separators) is not a duration.
  it.each(['1e3', '0x10', '-5', '+5', '.5', '5.', '1_000', '12abc', 'abc12', '1 2'])(
    'cannot read %j, which is no whole number of milliseconds',
    (text) => {
      expect(parseDurationMs(text)).toBeNaN();
    },
  );

  it('keeps a real fraction of a millisecond, for the caller to refuse', () => {
    expect(parseDurationMs('1.5ms')).toBe(1.5);
  });

  it.each([null, undefined, {}, [], ['10s'], [250], new String('10s'), true])(
    'cannot read %p',
    (value) => {
      expect(parseDurationMs(value)).toBeNaN();
    },
  );
});
