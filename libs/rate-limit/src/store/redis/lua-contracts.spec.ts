import { RATE_LIMIT_ALGORITHMS } from '../../policy/rate-limit-algorithm';
import { readLuaFile } from './lua-file';

/**
 * The decide script is one chunk assembled from fragments (decide-script.ts): the prelude, the
 * algorithm files, decide.lua. Each algorithm file opens with the prelude names it `Uses`, the
 * prelude with what it `Provides`. A fragment that reads a prelude name it does not declare, or
 * declares one the prelude does not provide, would break silently when either side changes:
 * here both are read from the files and held against the code.
 */

/** Names of a header field's list: `-- <Field>  a, b(x), c d` and its indented continuation. */
function declared(text: string, field: 'Provides' | 'Uses'): Set<string> {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^-- ${field}\\b`).test(line));
  if (start === -1) return new Set();
  const names = new Set<string>();
  const add = (list: string) => {
    // A function's parameters are not names it provides: `write(key, value, ttl, atMs)`.
    for (const word of list.replace(/\([^)]*\)?/g, '').split(/[\s,]+/)) {
      const name = word;
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) names.add(name);
    }
  };
  if (field === 'Uses') {
    add(lines[start].replace(/^-- Uses\s+/, ''));
    for (let i = start + 1; /^--\s{6,}\S/.test(lines[i] ?? ''); i++) add(lines[i].slice(2));
    return names;
  }
  // The prelude's list: one entry per line at `--   `, its description after two spaces or
  // more (continuation lines are indented further, and describe).
  for (let i = start + 1; /^--( |$)/.test(lines[i] ?? ''); i++) {
    const entry = /^-- {3}(\S.*?)(?: {2,}.*)?$/.exec(lines[i]);
    if (entry) add(entry[1]);
  }
  return names;
}

/** Identifiers the code reads, comments and string literals left out. */
function identifiers(text: string): Set<string> {
  const code = text
    .replace(/--\[\[[\s\S]*?\]\]/g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, ' ');
  return new Set(code.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
}

const prelude = readLuaFile('prelude');
const provided = declared(prelude, 'Provides');

describe('the Lua fragments and the prelude', () => {
  it('the prelude provides what it lists, and lists what it defines at its top level', () => {
    expect(provided.size).toBeGreaterThan(20);
    const defined = new Set(
      [...prelude.matchAll(/^local (?:function )?([A-Za-z_][A-Za-z0-9_, ]*)/gm)].flatMap((m) =>
        m[1].split(',').map((name) => name.trim()),
      ),
    );
    expect([...provided].filter((name) => !defined.has(name))).toEqual([]);
  });

  it.each(RATE_LIMIT_ALGORITHMS)(
    '%s uses only prelude names it declares, and declares only those',
    (algo) => {
      const text = readLuaFile(algo);
      const uses = declared(text, 'Uses');
      expect(uses.size).toBeGreaterThan(0);
      expect([...uses].filter((name) => !provided.has(name))).toEqual([]);
      const read = [...identifiers(text)].filter(
        (name) => provided.has(name) && name !== 'algorithms',
      );
      expect(read.filter((name) => !uses.has(name))).toEqual([]);
      expect([...uses].filter((name) => !read.includes(name))).toEqual([]);
    },
  );
});
