/**
 * Properties of the admin listings' query strings beyond the keys listing's own property: the
 * client-overrides listing with hostile queries answers pages or 4xx, and on both listings a
 * cursor Redis would refuse (past 2^64 - 1) is a 400 (it once reached HSCAN and answered 503
 * "Redis is unavailable" while Redis was healthy), one it takes a 200. Registered by the fuzz
 * suite, which owns the demo process.
 */
import fc from 'fast-check';
import { expectThat } from './fuzz-checks';
import { runLanes } from './fuzz-runner';
import { decoded, type FuzzSession } from './fuzz-session';
import { cursorPastU64, cursorWithinU64, pathSegment } from './hostile-values';
import { clientsQuery } from './listing-arbitraries';

export interface ListingContext {
  s: FuzzSession;
  names: string[];
  seed: number;
}

export function listingTests(context: () => ListingContext): void {
  it('GET /admin/policies/:name/clients with hostile query strings: a page or a 4xx', async () => {
    const { s, names, seed } = context();
    await runLanes({
      surface: 'clients-query',
      seed,
      lanes: 8,
      runsPerLane: 100,
      arbitrary: () => fc.tuple(pathSegment(names), clientsQuery),
      async check([name, query]) {
        const path = `/admin/policies/${name}/clients?${query}`;
        const { req, res, status, json } = await s.call(
          'clients-query',
          s.admin({ method: 'GET', path }),
        );
        if (status !== 200) return;
        expectThat(names.includes(decoded(name)!), 'an unknown policy was listed', req, res);
        const page = json as { items?: unknown; cursor?: unknown };
        const cursor = page.cursor === null || typeof page.cursor === 'string';
        expectThat(Array.isArray(page.items) && cursor, 'invalid clients page', req, res);
      },
    });
  });

  it('a cursor past 2^64 - 1 is a 400 on both listings, one within a 200', async () => {
    const { s, names, seed } = context();
    const policy = names.find((name) => name.startsWith('demo.'))!;
    await runLanes({
      surface: 'listing-cursors',
      seed: seed + 100,
      lanes: 2,
      runsPerLane: 60,
      arbitrary: () =>
        fc.tuple(
          fc.oneof(
            cursorPastU64.map((cursor) => ({ cursor, valid: false })),
            cursorWithinU64.map((cursor) => ({ cursor, valid: true })),
          ),
          fc.boolean(),
        ),
      async check([{ cursor, valid }, keys]) {
        const query = keys ? `keys?cursor=0:${cursor}` : `clients?cursor=${cursor}`;
        const path = `/admin/policies/${policy}/${query}`;
        const { req, res, status } = await s.call(
          'listing-cursors',
          s.admin({ method: 'GET', path }),
        );
        expectThat(status === (valid ? 200 : 400), `expected ${valid ? 200 : 400}`, req, res);
      },
    });
  });
}
