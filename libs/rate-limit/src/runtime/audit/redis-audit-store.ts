import { BACKGROUND_TIMEOUT_MS } from '../../rate-limit.constants';
import { readLuaFile } from '../../store/redis/lua-file';
import { RedisScript, type RedisClient } from '../../store/redis/redis-script';
import { withTimeout } from '../../store/redis/with-timeout';
import { AUDIT_CAP, type AuditEntry } from './audit-entry';
import type { AuditStore } from './audit-store';

const script = new RedisScript('audit', readLuaFile('audit'));

/**
 * The audit log as a capped list `<prefix>:audit:{audit}` and the last audited override state
 * per policy as a hash `<prefix>:audit:{audit}:seen` (one hash tag: one Cluster slot, so the
 * script may touch both).
 */
export class RedisAuditStore implements AuditStore {
  private readonly keys: [string, string];

  constructor(
    private readonly client: RedisClient,
    prefix: string,
  ) {
    this.keys = [`${prefix}:audit:{audit}`, `${prefix}:audit:{audit}:seen`];
  }

  async append(entry: AuditEntry, state = ''): Promise<void> {
    await this.run(['api', entry.policy, state, JSON.stringify(entry), AUDIT_CAP]);
  }

  async appendIfChanged(entry: AuditEntry, state: string): Promise<boolean> {
    return (await this.run(['hash', entry.policy, state, JSON.stringify(entry), AUDIT_CAP])) === 1;
  }

  async list(): Promise<AuditEntry[]> {
    const raw = await withTimeout(
      this.client.lrange(this.keys[0], 0, AUDIT_CAP - 1),
      BACKGROUND_TIMEOUT_MS,
    );
    return raw.flatMap((json) => {
      try {
        const entry = JSON.parse(json) as AuditEntry;
        return entry && typeof entry === 'object' && typeof entry.policy === 'string'
          ? [entry]
          : [];
      } catch {
        return []; // a line written by hand is skipped, not fatal
      }
    });
  }

  private run(args: (string | number)[]): Promise<unknown> {
    return script.run(this.client, this.keys, args, (reply) =>
      withTimeout(reply, BACKGROUND_TIMEOUT_MS),
    );
  }
}
