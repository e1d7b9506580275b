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

  it.each([null, undefined, {}, [], true])('cannot read %p', (value) => {
    expect(parseDurationMs(value)).toBeNaN();
  });
});
