import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';
import { readLuaFile } from '../../store/redis/lua-file';
import { RedisScript, type RedisClient } from '../../store/redis/redis-script';
import { withTimeout } from '../../store/redis/with-timeout';
import { isWrongType } from '../../store/redis/wrong-type';
import {
  AUDIT_CAP,
  POLICY_AUDIT_CAP,
  isAuditEntry,
  type AuditEntry,
} from '../../runtime/audit/audit-entry';
import type { AuditStore } from '../../runtime/audit/audit-store';

const script = new RedisScript('audit', readLuaFile('audit'));

/**
 * The audit log as capped lists `<prefix>:audit:{audit}` (all) and
 * `<prefix>:audit:{audit}:policy:<name>` (each policy's), the last audited override state per
 * policy in the hash `<prefix>:audit:{audit}:seen`, and the states the API wrote lately in
 * `<prefix>:audit:{audit}:api:<name>` (one hash tag: one Cluster slot, so the script may touch
 * them all).
 */
export class RedisAuditStore implements AuditStore {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly apiWindowMs: number,
  ) {}

  async append(entry: AuditEntry, state = ''): Promise<void> {
    await this.run('api', entry, state);
  }

  async appendIfChanged(entry: AuditEntry, state: string): Promise<boolean> {
    return (await this.run('hash', entry, state)) === 1;
  }

  async list(policy: string | undefined, limit: number): Promise<AuditEntry[]> {
    const key = policy === undefined ? this.log : `${this.log}:policy:${policy}`;
    const raw = await withTimeout(
      this.client.lrange(key, 0, limit - 1).catch((error: unknown) => {
        // A key of another type (written by hand) reads as an empty log; appends warn meanwhile.
        if (isWrongType(error)) return [] as string[];
        throw error;
      }),
      BACKGROUND_TIMEOUT_MS,
    );
    return raw.flatMap((json) => {
      try {
        const entry: unknown = JSON.parse(json);
        return isAuditEntry(entry) ? [entry] : [];
      } catch {
        return []; // a line written by hand is skipped, not fatal
      }
    });
  }

  private get log(): string {
    return `${this.prefix}:audit:{audit}`;
  }

  private run(mode: 'api' | 'hash', entry: AuditEntry, state: string): Promise<unknown> {
    const keys = [
      this.log,
      `${this.log}:seen`,
      `${this.log}:policy:${entry.policy}`,
      `${this.log}:api:${entry.policy}`,
    ];
    const args = [mode, entry.policy, state, JSON.stringify(entry), AUDIT_CAP, POLICY_AUDIT_CAP];
    return script.run(this.client, keys, [...args, this.apiWindowMs], (reply) =>
      withTimeout(reply, BACKGROUND_TIMEOUT_MS),
    );
  }
}
