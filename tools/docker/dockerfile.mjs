// @ts-check
/**
 * Reads a Dockerfile into stages of steps, and a .dockerignore into a path filter: just the
 * syntax this repo's files use, and a clear error for anything else, so a new instruction in the
 * Dockerfile fails the check instead of being skipped.
 */

/**
 * @typedef {object} Step
 * @property {string} op        the instruction, upper case
 * @property {string[]} args    shell form: the words; exec (JSON) form: the array
 * @property {string} text      the instruction's text after its flags, as written
 * @property {boolean} exec     written in exec (JSON array) form
 * @property {Record<string, string>} flags  e.g. { from: 'build' } for `COPY --from=build`
 * @property {number} line
 * @typedef {{ name: string, image: string, line: number, steps: Step[] }} Stage
 */

/** What run-dockerfile.mjs can carry out; anything else is an error. */
export const SUPPORTED = ['FROM', 'WORKDIR', 'COPY', 'RUN', 'ENV', 'USER', 'EXPOSE', 'CMD'];

/**
 * Logical lines: comments dropped, `\` continuations joined, each with its first line number.
 * @param {string} text
 */
function logicalLines(text) {
  /** @type {{ text: string, line: number }[]} */
  const lines = [];
  let current = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (!current && (trimmed === '' || trimmed.startsWith('#'))) return;
    if (current && trimmed.startsWith('#')) return; // comments may sit inside a continuation
    if (!current) start = index + 1;
    if (trimmed.endsWith('\\')) {
      current += `${trimmed.slice(0, -1)} `;
      return;
    }
    lines.push({ text: `${current}${trimmed}`.trim(), line: start });
    current = '';
  });
  if (current) lines.push({ text: current.trim(), line: start });
  return lines;
}

/**
 * @param {string} text the Dockerfile
 * @returns {Stage[]}
 */
export function parseDockerfile(text) {
  /** @type {Stage[]} */
  const stages = [];
  for (const { text: line, line: number } of logicalLines(text)) {
    const [, rawOp, rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const op = rawOp.toUpperCase();
    if (!SUPPORTED.includes(op))
      throw new Error(
        `Dockerfile:${number}: ${op} is not carried out by tools/docker/run-dockerfile.mjs: teach it there, so the Dockerfile stays checked`,
      );
    if (op === 'FROM') {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? [];
      if (!image) throw new Error(`Dockerfile:${number}: cannot read FROM ${rest}`);
      stages.push({ name: name ?? String(stages.length), image, line: number, steps: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile:${number}: ${op} before any FROM`);
    /** @type {Record<string, string>} */
    const flags = {};
    let body = rest;
    for (let flag; (flag = /^--([a-z-]+)=(\S+)\s+/.exec(body)); body = body.slice(flag[0].length))
      flags[flag[1]] = flag[2];
    const exec = body.startsWith('[');
    const args = exec ? JSON.parse(body) : body.split(/\s+/).filter(Boolean);
    stage.steps.push({ op, args, text: body, exec, flags, line: number });
  }
  if (stages.length === 0) throw new Error('Dockerfile: no FROM');
  return stages;
}

/**
 * `ENV a=b c=d` or the legacy `ENV a b`, without quotes (a quoted value is refused, not misread).
 * @param {Step} step
 */
export function envOf(step) {
  if (/["']/.test(step.text))
    throw new Error(`Dockerfile:${step.line}: quoted ENV values are not supported here`);
  if (!step.args[0].includes('=')) return { [step.args[0]]: step.args.slice(1).join(' ') };
  return Object.fromEntries(
    step.args.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

/**
 * A filter for paths relative to the build context (posix separators), following .dockerignore:
 * a pattern matches a path or any of its parent folders, `*` stays within one segment, `**`
 * spans any, a leading `!` re-includes, and the last matching pattern wins.
 * @param {string} text the .dockerignore
 * @returns {(relativePath: string) => boolean} true when the path is sent to the build
 */
export function dockerignoreFilter(text) {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const pattern = line
        .replace(/^!/, '')
        .replace(/^\/+|\/+$/g, '')
        .replace(/^\.\//, '');
      const source = pattern
        .split('/')
        .map((part) =>
          part === '**'
            ? '.*'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/');
      return { include, regex: new RegExp(`^${source.replace(/\.\*\//g, '(.*/)?')}$`) };
    });
  return (relativePath) => {
    const parts = relativePath.split('/');
    let sent = true;
    for (const { include, regex } of rules)
      for (let depth = 1; depth <= parts.length; depth++)
        if (regex.test(parts.slice(0, depth).join('/'))) sent = include;
    return sent;
  };
}
