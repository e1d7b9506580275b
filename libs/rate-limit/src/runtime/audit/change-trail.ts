import { Injectable } from '@nestjs/common';
import type { AuditAction, AuditSource } from './audit-entry';

/** What a caller tells of a change; time, instance and source are added by the audit log. */
export interface AuditedChange {
  readonly policy: string;
  readonly action: AuditAction;
  readonly tier?: string;
  readonly identity?: string;
  readonly before?: unknown;
  readonly after?: unknown;
  /** @default 'api' */
  readonly source?: AuditSource;
}

/** What keeps the changes (the admin plane's AuditLog). */
export interface ChangeSink {
  record(change: AuditedChange, override?: object | null): Promise<void>;
  noticeStored(
    policy: string,
    override: object | null,
    before: unknown,
    after: unknown,
  ): Promise<void>;
}

/**
 * Where the core reports the changes an audit log keeps: client overrides set or removed, a
 * policy's override found changed in its hash. Nothing keeps them, and nothing is read to tell
 * them, unless the admin plane attached its audit log: an application without the admin module
 * pays nothing for it.
 */
@Injectable()
export class ChangeTrail implements ChangeSink {
  private sink?: ChangeSink;

  attach(sink: ChangeSink): void {
    this.sink = sink;
  }

  /** Whether changes are kept (callers skip the reads only the trail needs otherwise). */
  get kept(): boolean {
    return this.sink !== undefined;
  }

  record(change: AuditedChange, override?: object | null): Promise<void> {
    return this.sink?.record(change, override) ?? Promise.resolve();
  }

  noticeStored(
    policy: string,
    override: object | null,
    before: unknown,
    after: unknown,
  ): Promise<void> {
    return this.sink?.noticeStored(policy, override, before, after) ?? Promise.resolve();
  }
}
