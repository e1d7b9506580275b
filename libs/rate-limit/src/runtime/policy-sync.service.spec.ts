import { ChangeTrail } from './audit/change-trail';
import { AuditLog } from './audit/audit-log.service';
import { MemoryAuditStore } from '../backends/memory/memory-audit-store';
import type { InstanceHeartbeat } from './instance-heartbeat.service';
import { Logger } from '@nestjs/common';
import { resolveModuleOptions } from '../config/resolve-module-options';
import { normalizePolicy } from '../policy/normalize-policy';
import { PolicyRegistry } from '../registry/policy-registry';
import { MemoryPolicyChannel } from '../backends/memory/memory-policy-channel';
import type { PolicyOverrideStore } from './policy-override-store';
import { PolicySync } from './policy-sync.service';

/** An override store whose reads the test answers by hand, so a read can be held mid-flight. */
class HeldReads implements Partial<PolicyOverrideStore> {
  readonly pending: ((hashes: Map<string, Record<string, string>>) => void)[] = [];
  reads = 0;

  readAll = () => {
    this.reads++;
    return new Promise<Map<string, Record<string, string>>>((resolve) =>
      this.pending.push(resolve),
    );
  };
}

function trailTo(audit: AuditLog): ChangeTrail {
  const trail = new ChangeTrail();
  trail.attach(audit);
  return trail;
}

describe('PolicySync', () => {
  let registry: PolicyRegistry;
  let store: HeldReads;
  let sync: PolicySync;
  let channel: MemoryPolicyChannel;

  beforeEach(async () => {
    registry = new PolicyRegistry();
    registry.register(normalizePolicy({ limit: 5, window: '10s' }, 'p', 'test'), 'test', true);
    store = new HeldReads();
    channel = new MemoryPolicyChannel();
    sync = new PolicySync(
      registry,
      store as unknown as PolicyOverrideStore,
      channel,
      resolveModuleOptions({ policyRefreshMs: 3_600_000 }),
      trailTo(new AuditLog(new MemoryAuditStore(), { id: 'test' } as InstanceHeartbeat)),
    );
    const booted = sync.onApplicationBootstrap();
    await Promise.resolve();
    store.pending.shift()!(new Map([['p', {}]]));
    await booted;
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await sync.onModuleDestroy();
  });

  it('does not let a read that began before an announced change undo it', async () => {
    const refreshing = sync.refresh();
    void channel.announceOverride('p', { limit: 2, updatedAt: 2 });
    const [refreshRead, confirmRead] = store.pending.splice(0, 2);
    refreshRead(new Map([['p', { limit: '9', updatedAt: '1' }]]));
    await refreshing;
    expect(registry.get('p')!.limit).toBe(2);
    confirmRead(new Map([['p', { limit: '2', updatedAt: '2' }]]));
    // The next read, begun after the change, applies what Redis holds.
    const next = sync.refresh();
    await Promise.resolve();
    store.pending.shift()!(new Map([['p', { limit: '3', updatedAt: '3' }]]));
    await next;
    expect(registry.get('p')!.limit).toBe(3);
  });

  it('runs one read at a time, and a refresh asked for during a read reads again after it', async () => {
    const first = sync.refresh();
    const second = sync.refresh();
    await Promise.resolve();
    expect(store.reads).toBe(2); // bootstrap's read and the first
    store.pending.shift()!(new Map([['p', { limit: '9' }]]));
    await first;
    // The second call did not return the first read's result: it reads anew.
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.reads).toBe(3);
    store.pending.shift()!(new Map([['p', { limit: '4' }]]));
    await second;
    expect(registry.get('p')!.limit).toBe(4);
  });

  it('after an announcement, reads the hash back: of two changes announced out of order, the stored one wins', async () => {
    // Both PATCHes are stored; the message of the older one arrives last.
    void channel.announceOverride('p', { limit: 2, mode: 'shadow', updatedAt: 2 });
    void channel.announceOverride('p', { limit: 2, updatedAt: 1 });
    expect(registry.get('p')!.mode).toBe('enforce');
    // Only the read after the last message counts; the first one's answer is ignored.
    expect(store.pending).toHaveLength(2);
    const stored = new Map([['p', { limit: '2', mode: 'shadow', updatedAt: '2' }]]);
    store.pending.shift()!(new Map([['p', {}]]));
    store.pending.shift()!(stored);
    await new Promise((resolve) => setImmediate(resolve));
    expect(registry.get('p')).toMatchObject({ limit: 2, mode: 'shadow' });
  });

  it('ignores, with a warning, an override whose result is invalid as a whole', async () => {
    const warnings: string[] = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
    const refreshing = sync.refresh();
    await Promise.resolve();
    // Each field is valid; together they ask for a sliding-window log of 20,000 per client.
    store.pending.shift()!(new Map([['p', { algo: 'sliding-window', limit: '20000' }]]));
    await refreshing;
    expect(registry.get('p')).toMatchObject({ algo: 'fixed-window', limit: 5 });
    expect(warnings.join('\n')).toMatch(/Ignored the override of "p".*sliding-window-counter/);
  });
});
