import { Logger } from '@nestjs/common';
import { KeyBuilder } from '../keys/key-builder';
import { normalizePolicy } from '../policy/normalize-policy';
import type {
  RateLimitStore,
  StoreEntry,
  StoreOp,
  StoreReply,
} from '../store/rate-limit-store.interface';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import { groupRequests } from './request-groups';
import { decideGroups } from './store-calls';

const policy = normalizePolicy({ limit: 5, window: '1m' }, 'p', 'test');
const outcome = (allowed: boolean, extra: Partial<RateLimitDecision> = {}): RateLimitDecision => ({
  policy: 'p',
  allowed,
  shadow: false,
  limit: 5,
  remaining: 0,
  resetMs: 1_000,
  retryAfterMs: allowed ? 0 : 1_000,
  ...(allowed ? {} : { reason: 'limit' }),
  source: 'redis',
  ...extra,
});

/** A store answering one scripted reply per identity, recording the refunds it is asked for. */
function scriptedStore(replies: Map<string, StoreReply>): {
  store: RateLimitStore;
  refunded: string[];
} {
  const refunded: string[] = [];
  const decide = async (op: StoreOp, entries: readonly StoreEntry[]): Promise<StoreReply> => {
    if (op === 'refund') {
      refunded.push(...entries.map((e) => e.key));
      return { admitted: true, decisions: [], decidedAtUs: 0 };
    }
    return [...replies].find(([tag]) => entries[0].key.includes(tag))![1];
  };
  return { store: { decide } as unknown as RateLimitStore, refunded };
}

describe('decideGroups: refunds when one group rejects', () => {
  const keys = new KeyBuilder('t');
  const groups = groupRequests(keys, [
    { policy, identity: 'ip:10.0.0.1', cost: 1 },
    { policy, identity: 'ip:10.0.0.2', cost: 1 },
  ]);
  const rejected: StoreReply = { admitted: false, decisions: [outcome(false)], decidedAtUs: 1 };

  it('gives back what an admitted group was charged', async () => {
    const { store, refunded } = scriptedStore(
      new Map([
        ['10.0.0.1', { admitted: true, decisions: [outcome(true)], decidedAtUs: 1 }],
        ['10.0.0.2', rejected],
      ]),
    );
    await decideGroups(store, 'consume', groups, undefined, new Logger('test'));
    expect(refunded).toEqual([groups[0].entries[0].key]);
  });

  it('gives nothing back for an allow admitted over its limit, which was never charged', async () => {
    const allowed = outcome(true, { clientOverride: 'allow' });
    const { store, refunded } = scriptedStore(
      new Map([
        ['10.0.0.1', { admitted: true, decisions: [allowed], decidedAtUs: 1, uncharged: [0] }],
        ['10.0.0.2', rejected],
      ]),
    );
    await decideGroups(store, 'consume', groups, undefined, new Logger('test'));
    expect(refunded).toEqual([]);
  });
});
