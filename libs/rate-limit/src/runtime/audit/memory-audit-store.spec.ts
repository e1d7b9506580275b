import { AUDIT_CAP, type AuditEntry } from './audit-entry';
import { MemoryAuditStore } from './memory-audit-store';

const entry = (n: number): AuditEntry => ({
  at: n,
  policy: 'p',
  action: 'update',
  before: null,
  after: { limit: n },
  instance: 'i',
  source: 'api',
});

describe('MemoryAuditStore', () => {
  it('keeps the newest AUDIT_CAP entries, newest first', async () => {
    const store = new MemoryAuditStore();
    for (let n = 1; n <= AUDIT_CAP + 5; n++) await store.append(entry(n));
    const list = await store.list();
    expect(list).toHaveLength(AUDIT_CAP);
    expect(list[0].at).toBe(AUDIT_CAP + 5);
  });

  it('logs a state that differs from the last audited one; the first is a baseline', async () => {
    const store = new MemoryAuditStore();
    const hash = { ...entry(1), source: 'hash' as const };
    expect(await store.appendIfChanged(hash, '{"limit":1}')).toBe(false);
    expect(await store.appendIfChanged(hash, '{"limit":1}')).toBe(false);
    await store.append(entry(2), '{"limit":2}');
    expect(await store.appendIfChanged(hash, '{"limit":2}')).toBe(false);
    expect(await store.appendIfChanged(hash, '{"limit":3}')).toBe(true);
    expect(await store.list()).toHaveLength(2);
    expect((await store.list())[0]).toMatchObject({ source: 'hash' });
  });
});
