import { InvalidCursorError } from '../../errors/invalid-cursor.error';
import type {
  ClientOverrideIndex,
  ClientOverridePage,
  ClientOverrideRecord,
} from '../../runtime/client-overrides/client-override-index';

/** The index of a single instance without Redis. Cursors are offsets in insertion order. */
export class MemoryClientOverrideIndex implements ClientOverrideIndex {
  private readonly byPolicy = new Map<string, Map<string, ClientOverrideRecord>>();

  async put(policy: string, tag: string, record: ClientOverrideRecord): Promise<void> {
    let records = this.byPolicy.get(policy);
    if (!records) this.byPolicy.set(policy, (records = new Map()));
    records.set(tag, record);
  }

  async remove(policy: string, tags: readonly string[]): Promise<void> {
    for (const tag of tags) this.byPolicy.get(policy)?.delete(tag);
  }

  async get(policy: string, tag: string): Promise<ClientOverrideRecord | undefined> {
    return this.byPolicy.get(policy)?.get(tag);
  }

  async count(policy: string): Promise<number> {
    return this.byPolicy.get(policy)?.size ?? 0;
  }

  async page(policy: string, cursor: string | null, count: number): Promise<ClientOverridePage> {
    if (cursor !== null && !/^\d{1,15}$/.test(cursor)) throw new InvalidCursorError();
    const all = [...(this.byPolicy.get(policy) ?? new Map<string, ClientOverrideRecord>())];
    const start = cursor === null ? 0 : Number(cursor);
    const end = start + count;
    return { records: all.slice(start, end), cursor: end < all.length ? String(end) : null };
  }
}
