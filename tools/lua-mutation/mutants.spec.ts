// @ts-expect-error -- an ES module of the tools, without types
import { equivalenceOf, mutantsOf } from './mutants.mjs';

interface Mutant {
  code: string;
  at: number;
  line: number;
  from: string;
  to: string;
  text: string;
}

describe('mutantsOf (the Lua mutation run)', () => {
  it('swaps comparisons, arithmetic and logic, and bumps integer constants, in code only', () => {
    const source = [
      '-- a < b is a comment: left alone',
      "if tokens >= burst and x ~= '<' then return n + 1 end",
    ].join('\n');
    const edits = (mutantsOf(source) as Mutant[]).map((m) => `${m.line}:${m.from}->${m.to}`);
    expect(edits).toEqual(
      expect.arrayContaining(['2:>=->>', '2:~=->==', '2: + -> - ', '2:and->or', '2:1->2']),
    );
    expect(edits.every((e) => e.startsWith('2:'))).toBe(true);
    // The string literal '<' is no comparison.
    expect(edits.filter((e) => e.startsWith('2:<'))).toEqual([]);
  });

  it('removes a statement that is a call alone, and changes one thing per mutant', () => {
    const source = ['local x = 1', '  write(key, false, DELETE)'].join('\n');
    const mutants = mutantsOf(source) as Mutant[];
    const removed = mutants.find((m) => m.to === '-- (removed)')!;
    expect(removed.text).toBe('local x = 1\n  -- (removed)');
    for (const m of mutants) {
      const changed = m.text.split('\n').filter((line, i) => line !== source.split('\n')[i]);
      expect(changed).toHaveLength(1);
    }
  });
});

describe('equivalenceOf', () => {
  const marks = [
    { file: 'a.lua', code: 'if s < 0 then', from: '<', to: '<=', why: 's is never 0' },
  ];

  it('finds the mark of a mutant by file, code line, from and to, wherever the line moved', () => {
    const source = ['local s = small(x)', '  if s < 0 then', 'end'].join('\n');
    const [lessOrEqual] = (mutantsOf(source) as Mutant[]).filter((m) => m.to === '<=');
    expect(equivalenceOf('a.lua', lessOrEqual, marks)).toBe(marks[0]);
    const moved = (mutantsOf(`\n\n${source}`) as Mutant[]).find((m) => m.to === '<=');
    expect(equivalenceOf('a.lua', moved, marks)).toBe(marks[0]);
    // Another mutant of the line, the same line in another file, or a changed line: not marked.
    const bumped = (mutantsOf(source) as Mutant[]).find((m) => m.from === '0');
    expect(equivalenceOf('a.lua', bumped, marks)).toBeUndefined();
    expect(equivalenceOf('b.lua', lessOrEqual, marks)).toBeUndefined();
    const changed = (mutantsOf('if s < 1 then') as Mutant[]).find((m) => m.to === '<=');
    expect(equivalenceOf('a.lua', changed, marks)).toBeUndefined();
  });

  it('tells two lines written alike apart by the line before', () => {
    const source = ['commit(a,', '  x + 1)', 'move(a,', '  x + 1)'].join('\n');
    const marks = [
      { file: 'a.lua', code: 'x + 1)', prev: 'move(a,', from: ' + ', to: ' - ', why: '' },
    ];
    const plus = (mutantsOf(source) as Mutant[]).filter((m) => m.from === ' + ');
    expect(plus.map((m) => equivalenceOf('a.lua', m, marks) !== undefined)).toEqual([false, true]);
  });

  it('tells alike edits of one line apart by their column in it, however indented', () => {
    const code = "if ARGV[a + 4] ~= '0' then x = ARGV[a + 4] * 1000 end";
    const first = [{ file: 'a.lua', code, from: ' + ', to: ' - ', at: 10, why: '' }];
    for (const indent of ['', '    ']) {
      const plus = (mutantsOf(indent + code) as Mutant[]).filter((m) => m.from === ' + ');
      expect(plus.map((m) => m.at)).toEqual([10, 38]);
      expect(plus.map((m) => equivalenceOf('a.lua', m, first) !== undefined)).toEqual([
        true,
        false,
      ]);
    }
  });
});
