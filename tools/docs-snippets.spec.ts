/**
 * The code a reader is told to paste is code a test runs. A TypeScript block in README,
 * CHANGELOG, CONTRIBUTING or docs/ is a copy of a source file the tests compile and run, marked
 * `<!-- snippet: <path from the repository root> -->` on the line before it, and equal to that
 * file byte for byte once `@app/rate-limit` (this repository's alias) is spelled
 * `nest-redis-rate-limit` (the package). The file is the source of truth: change it, run its
 * test, then paste it into the doc. An install command a doc gives names peers of the package
 * only (libs/rate-limit/package.json), and for each entry point its comment names (`# ...
 * /admin`) exactly the peers that entry point requires (libs/rate-limit/src/<plane>/peers.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, codeBlocks, documentationFiles, repoPath } from './docs/markdown';

const SNIPPET = /^<!-- snippet: (\S+) -->$/;
/**
 * An excerpt showing the shape of a call rather than a file to paste (not compiled by a test
 * yet): allowed in the guide and the handbook, never where a reader is told to paste.
 */
const FRAGMENT = '<!-- fragment -->';
const NO_FRAGMENTS = new Set(['README.md', 'docs/guide/migrating-from-throttler.md']);
const TYPESCRIPT = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript']);

/** A source file as the docs show it: the package's name instead of the repository's alias. */
export function asPublished(source: string): string {
  return source.replaceAll("'@app/rate-limit'", "'nest-redis-rate-limit'");
}

const docs = documentationFiles().map((file) => ({
  name: repoPath(file),
  blocks: codeBlocks(readFileSync(file, 'utf8')),
}));

const manifest = JSON.parse(readFileSync(join(ROOT, 'libs/rate-limit/package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  peerDependencies: Record<string, string>;
};
/** The package's planes: its entry points besides the core (`./admin` -> `admin`). */
const planes = Object.keys(manifest.exports)
  .filter((entry) => entry !== '.' && !entry.endsWith('.json'))
  .map((entry) => entry.slice(2));

/** What importing a plane requires: the list its peers.ts checks (none without one). */
function planePeers(plane: string): string[] {
  const file = join(ROOT, 'libs/rate-limit/src', plane, 'peers.ts');
  if (!existsSync(file)) return [];
  const list = /requirePeers\(\s*'[^']+',\s*\[([^\]]*)\]/.exec(readFileSync(file, 'utf8'));
  if (!list) throw new Error(`${file} has no requirePeers('<entry point>', [...]) call`);
  return [...list[1].matchAll(/'([^']+)'/g)].map((match) => match[1]);
}
const allPlanePeers = new Set(planes.flatMap(planePeers));

/** The package's own README: npm shows it, and it gives an install line per entry point. */
const packageReadme = {
  name: 'libs/rate-limit/README.md',
  blocks: codeBlocks(readFileSync(join(ROOT, 'libs/rate-limit/README.md'), 'utf8')),
};

describe('code blocks of the documentation', () => {
  const snippets = docs.flatMap(({ name, blocks }) =>
    blocks
      .filter((block) => SNIPPET.test(block.before))
      .map((block) => ({ name, block, source: SNIPPET.exec(block.before)![1] })),
  );

  it('has the snippets of the README and the migration guide', () => {
    const sources = snippets.map((snippet) => snippet.source);
    expect(sources).toEqual(
      expect.arrayContaining([
        'libs/rate-limit/test/e2e/readme-example/app.module.ts',
        'libs/rate-limit/test/e2e/readme-example/app.controller.ts',
        'libs/rate-limit/test/e2e/migration/before/app.module.ts',
        'libs/rate-limit/test/e2e/migration/after/app.module.ts',
      ]),
    );
  });

  it.each(snippets.map((s) => [`${s.name}:${s.block.line}`, s.source, s.block.code]))(
    '%s is %s as published',
    (_where, source, code) => {
      const path = join(ROOT, source);
      expect(existsSync(path)).toBe(true);
      expect(code).toBe(asPublished(readFileSync(path, 'utf8')));
    },
  );

  it('every TypeScript or JavaScript block is such a snippet, or a marked fragment', () => {
    const unmarked = docs.flatMap(({ name, blocks }) =>
      blocks
        .filter((block) => TYPESCRIPT.has(block.lang) && !SNIPPET.test(block.before))
        .filter((block) => block.before !== FRAGMENT || NO_FRAGMENTS.has(name))
        .map((block) => `${name}:${block.line}`),
    );
    expect(unmarked).toEqual([]);
  });

  it('every relative import of a snippet ends in .js (nest new makes ESM apps, which need it)', () => {
    const bare = snippets.flatMap(({ name, block }) =>
      [...block.code.matchAll(/from '(\.{1,2}\/[^']*)'/g)]
        .map((match) => match[1])
        .filter((path) => !path.endsWith('.js'))
        .map((path) => `${name}:${block.line} ${path}`),
    );
    expect(bare).toEqual([]);
  });

  it("the README example's app.service.ts is nest new's, unchanged", () => {
    const starter = join(
      ROOT,
      'node_modules/@nestjs/schematics/dist/lib/application/files/ts/src/app.service.ts',
    );
    expect(
      readFileSync(join(ROOT, 'libs/rate-limit/test/e2e/readme-example/app.service.ts'), 'utf8'),
    ).toBe(readFileSync(starter, 'utf8'));
  });

  const installs = [...docs, packageReadme].flatMap(({ name, blocks }) =>
    blocks.flatMap((block) =>
      block.code
        .split('\n')
        .filter((line) => line.includes(`npm install ${manifest.name}`))
        .map((line) => ({ where: name, line })),
    ),
  );

  it('every npm install of the package names its peers, and the peers of the planes it names', () => {
    expect(installs.length).toBeGreaterThan(0);
    for (const { where, line } of installs) {
      const [command, comment = ''] = line.split('#');
      // `ioredis@5` is ioredis.
      const words = command
        .trim()
        .split(/\s+/)
        .slice(3)
        .map((word) => word.replace(/(?<=.)@.*$/, ''));
      const named = planes.filter((plane) => comment.includes(`/${plane}`));
      const needed = new Set(named.flatMap((plane) => planePeers(plane)));
      const unknown = words.filter((word) => !(word in manifest.peerDependencies));
      // A plane's peer without its plane, or a plane without its peers, is a wrong line.
      const planeWords = words.filter((word) => allPlanePeers.has(word)).sort();
      expect({ where, line, unknown, planePeers: planeWords }).toEqual({
        where,
        line,
        unknown: [],
        planePeers: [...needed].sort(),
      });
    }
  });

  it('the package README and the installation guide give an install line per entry point', () => {
    for (const where of ['libs/rate-limit/README.md', 'docs/guide/installation.md']) {
      const lines = installs.filter((install) => install.where === where);
      const core = lines.some(({ line }) => !line.includes('#'));
      const missing = planes.filter(
        (plane) => !lines.some(({ line }) => line.split('#')[1]?.includes(`/${plane}`)),
      );
      expect({ where, core, missing }).toEqual({ where, core: true, missing: [] });
    }
  });
});
