import type { Cluster, Redis } from 'ioredis';
import { isCluster } from '../../util/ioredis-shapes';
import { InvalidCursorError } from '../../errors/invalid-cursor.error';
import type { ScanPage } from '../rate-limit-store.interface';
import type { RedisClient } from './redis-script';
import { isScanCursor, refusedCursor } from './scan-cursor';
import { withTimeout } from './with-timeout';
import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';

/** SCAN calls per page (each examines about `count` keys): bounded work, never a blocking command. */
const MAX_SCAN_CALLS = 20;

/**
 * A page of the keys matching `match`, by SCAN: a cluster is scanned master by master, and the
 * cursor (`<master>:<SCAN cursor>`) says which master and where in it.
 */
export async function scanKeys(
  client: RedisClient,
  match: string,
  cursor: string | null,
  count: number,
): Promise<ScanPage> {
  const nodes = isCluster(client) ? sortedMasters(client) : [client];
  let [node, nodeCursor] = parseCursor(cursor);
  const keys: string[] = [];
  for (
    let calls = 0;
    node < nodes.length && keys.length < count && calls < MAX_SCAN_CALLS;
    calls++
  ) {
    const [next, found] = await withTimeout(
      nodes[node]
        .scan(nodeCursor, 'MATCH', match, 'COUNT', Math.max(10, count - keys.length))
        .catch(refusedCursor),
      BACKGROUND_TIMEOUT_MS,
    );
    keys.push(...found);
    if (next === '0') [node, nodeCursor] = [node + 1, '0'];
    else nodeCursor = next;
  }
  return { keys, cursor: node >= nodes.length ? null : `${node}:${nodeCursor}` };
}

function sortedMasters(cluster: Cluster): Redis[] {
  const id = (node: Redis) => `${node.options.host}:${node.options.port}`;
  return cluster.nodes('master').sort((a, b) => id(a).localeCompare(id(b)));
}

/** `<master>:<SCAN cursor>`, as given out above; anything else was not. */
function parseCursor(cursor: string | null): [number, string] {
  const match = cursor === null ? null : /^(\d{1,4}):(\d+)$/.exec(cursor);
  if (cursor !== null && !(match && isScanCursor(match[2]))) throw new InvalidCursorError();
  return match ? [Number(match[1]), match[2]] : [0, '0'];
}
