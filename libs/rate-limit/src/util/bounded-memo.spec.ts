import { boundedMemo } from './bounded-memo';

describe('boundedMemo', () => {
  it('computes a short input once and returns the remembered result after', () => {
    const fn = jest.fn((s: string) => s.toUpperCase());
    const memo = boundedMemo(fn);
    expect([memo('ab'), memo('ab'), memo('cd')]).toEqual(['AB', 'AB', 'CD']);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('does not keep inputs longer than the bound (client-controlled text)', () => {
    const fn = jest.fn((s: string) => String(s.length));
    const memo = boundedMemo(fn, 10, 4);
    memo('12345');
    memo('12345');
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('starts over when full, so memory stays bounded', () => {
    const fn = jest.fn((s: string) => s);
    const memo = boundedMemo(fn, 2);
    memo('a');
    memo('b');
    memo('c'); // clears, then remembers 'c'
    memo('c');
    memo('a');
    expect(fn.mock.calls.map(([s]) => s)).toEqual(['a', 'b', 'c', 'a']);
  });
});
