// The mutants of a Lua file: one small edit each, in code only (comments and string literals are
// left alone). Operators: comparisons (`<` and `<=` swapped, `==` and `~=`), arithmetic (`+` and
// `-`, `*` and `/`), logic (`and` and `or`, `not` dropped); constants (an integer n becomes n + 1);
// removed statements (a line that is a call alone: a write, a store, a redis call).

const SWAPS = [
  [/<=/g, '<'],
  [/>=/g, '>'],
  [/(?<![<>=~])<(?!=)/g, '<='],
  [/(?<![<>=~])>(?!=)/g, '>='],
  [/==/g, '~='],
  [/~=/g, '=='],
  [/ \+ /g, ' - '],
  [/ - /g, ' + '],
  [/ \* /g, ' / '],
  [/ \/ /g, ' * '],
  [/\band\b/g, 'or'],
  [/\bor\b/g, 'and'],
  [/\bnot /g, ''],
];

/** The code of a line: what precedes a comment, with string literals blanked (same length). */
function codeOf(line) {
  let out = '';
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      out += ' ';
      if (ch === '\\') {
        out += ' ';
        i++;
      } else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '-' && line[i + 1] === '-') break;
    if (ch === "'" || ch === '"') {
      quote = ch;
      out += ' ';
      continue;
    }
    out += ch;
  }
  return out;
}

/**
 * `code`: the mutated line as written (trimmed), which names it in the list of equivalent
 * mutants (equivalent.mjs) whatever lines move around it; `at`: the edit's column in `code`.
 * @returns {{ line: number, column: number, at: number, from: string, to: string, code: string, text: string }[]}
 */
export function mutantsOf(source) {
  const lines = source.split('\n');
  const mutants = [];
  const add = (index, column, from, to) => {
    const line = lines[index];
    const text = [...lines];
    text[index] = line.slice(0, column) + to + line.slice(column + from.length);
    const code = line.trim();
    // The column within `code`: which of several alike edits of one line (stays when indented).
    const at = column - (line.length - line.trimStart().length) + 1;
    // The line before, for two lines written alike (a call's arguments continued, say).
    const prev = (lines[index - 1] ?? '').trim();
    mutants.push({
      line: index + 1,
      column: column + 1,
      at,
      prev,
      from,
      to,
      code,
      text: text.join('\n'),
    });
  };
  lines.forEach((line, index) => {
    const code = codeOf(line);
    if (code.trim() === '') return;
    for (const [pattern, to] of SWAPS) {
      for (const match of code.matchAll(pattern)) add(index, match.index, match[0], to);
    }
    // Integer constants (not part of a name or a longer number; not a table index `[1]`).
    for (const match of code.matchAll(/(?<![\w.[])\d+(?![\w.\]])/g)) {
      add(index, match.index, match[0], String(Number(match[0]) + 1));
    }
    // A statement that is a call alone, which the algorithm needs for its effect.
    if (/^\s*(write|store|call|pcall_redis|add)\(.*\)\s*$/.test(code)) {
      const indent = line.length - line.trimStart().length;
      add(index, indent, line.slice(indent), '-- (removed)');
    }
  });
  return mutants;
}

/**
 * The entry of `marks` (file, code, from, to, why; `at` when the line has alike edits, `prev`,
 * the line before, when another line is written alike) that declares this mutant of `file`
 * equivalent, if any: it changes no decision any caller can observe, so no test can kill it.
 */
export function equivalenceOf(file, mutant, marks) {
  return marks.find(
    (m) =>
      m.file === file &&
      m.code === mutant.code &&
      m.from === mutant.from &&
      m.to === mutant.to &&
      (m.at === undefined || m.at === mutant.at) &&
      (m.prev === undefined || m.prev === mutant.prev),
  );
}
