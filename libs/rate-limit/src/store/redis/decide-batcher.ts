// Imported rather than global: test frameworks' fake timers replace the global, and a batch
// waiting on a faked setImmediate would never be sent.
import { setImmediate } from 'node:timers';
import type { StoreEntry, StoreReply } from '../rate-limit-store.interface';

interface Waiting {
  readonly entries: readonly StoreEntry[];
  resolve(reply: StoreReply): void;
  reject(error: unknown): void;
}

/** Sends a batch of groups in one script call and answers one reply (or error) per group. */
export type SendBatch = (
  groups: readonly (readonly StoreEntry[])[],
) => Promise<readonly (StoreReply | Error)[]>;

/**
 * Collects the consume calls made during one turn of the event loop and decides them in one
 * script call (up to `maxGroups` each): a busy instance pays Redis's per-command cost, and the
 * client's, once per batch instead of once per request. Each group stays atomic on its own.
 * Flushing on setImmediate lets requests read from different sockets in the same poll phase
 * share a batch, while a lone request waits no timer.
 */
export class DecideBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly sendBatch: SendBatch,
    private readonly maxGroups = 64,
  ) {}

  decide(entries: readonly StoreEntry[]): Promise<StoreReply> {
    return new Promise<StoreReply>((resolve, reject) => {
      this.waiting.push({ entries, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.waiting;
    this.waiting = [];
    for (let start = 0; start < all.length; start += this.maxGroups) {
      this.sendOne(all.slice(start, start + this.maxGroups));
    }
  }

  private sendOne(batch: readonly Waiting[]): void {
    this.sendBatch(batch.map((w) => w.entries)).then(
      (replies) =>
        batch.forEach((w, i) => {
          const reply = replies[i];
          if (reply instanceof Error) w.reject(reply);
          else w.resolve(reply);
        }),
      (error: unknown) => batch.forEach((w) => w.reject(error)),
    );
  }
}
