/**
 * Every relative link in README, CHANGELOG, CONTRIBUTING and docs/ resolves: the file or folder
 * exists, and a `#anchor` is a heading (GitHub's slug) or an explicit id of that file. Links with
 * a scheme (https:, mailto:) are not fetched: no network in tests. The package README is read on
 * npm, where a relative link leads nowhere: it may hold none.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ROOT, anchors, documentationFiles, links, repoPath, slug } from './docs/markdown';

const read = (path: string): string => readFileSync(path, 'utf8');
const external = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with one link of `file`, or undefined. */
function problemOf(file: string, target: string): string | undefined {
  if (external(target)) return undefined;
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = decodeURIComponent(rawPath);
  const resolved = path === '' ? file : resolve(dirname(file), path);
  if (!resolved.startsWith(ROOT)) return 'points outside the repository';
  if (!existsSync(resolved)) return `${repoPath(resolved)} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
    return `#${anchor} on a file that is not Markdown`;
  }
  return anchors(read(resolved)).has(anchor)
    ? undefined
    : `${repoPath(resolved)} has no heading or id #${anchor}`;
}

describe('documentation links', () => {
  const files = documentationFiles();

  it('reads the documentation files (README, CHANGELOG, CONTRIBUTING, docs/)', () => {
    const names = files.map(repoPath);
    expect(names).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md']));
    expect(names.filter((name) => name.startsWith('docs/')).length).toBeGreaterThan(5);
  });

  it.each(files.map((file) => [repoPath(file), file]))(
    '%s: every relative link and anchor resolves',
    (_name, file) => {
      const broken = links(read(file))
        .map(({ target, line }) => ({ line, target, problem: problemOf(file, target) }))
        .filter((link) => link.problem !== undefined)
        .map(({ line, target, problem }) => `line ${line}: ${target} (${problem})`);
      expect(broken).toEqual([]);
    },
  );

  it('the package README links to nothing relative (npm shows it outside the repository)', () => {
    const relative = links(read(join(ROOT, 'libs/rate-limit/README.md'))).filter(
      ({ target }) => !external(target),
    );
    expect(relative).toEqual([]);
  });

  describe('anchors as GitHub makes them', () => {
    it.each([
      ['Quick start', 'quick-start'],
      [
        '`@RateLimit(options)` — on a handler or a controller, repeatable',
        'ratelimitoptions--on-a-handler-or-a-controller-repeatable',
      ],
      ['GraphQL, WebSockets and microservices', 'graphql-websockets-and-microservices'],
      ['OpenAPI (Swagger)', 'openapi-swagger'],
      ['0.2.0 - 2026-11-24', '020---2026-11-24'],
      ['What `__proto__` does', 'what-__proto__-does'],
      ['[Unreleased]', 'unreleased'],
    ])('%s -> #%s', (heading, anchor) => {
      expect(slug(heading)).toBe(anchor);
    });

    it('numbers a repeated heading', () => {
      expect([...anchors('# A\n\n## Notes\n\n```md\n## Notes\n```\n\n## Notes\n')]).toEqual([
        'a',
        'notes',
        'notes-1',
      ]);
    });
  });
});
