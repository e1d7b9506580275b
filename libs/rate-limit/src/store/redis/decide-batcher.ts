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

/** Fewer waiting groups than this are never split: two calls would cost more than they save. */
const MIN_GROUPS_TO_SPLIT = 16;

/**
 * Collects concurrent consume calls and decides them in one script call (up to `maxGroups`
 * each): a busy instance pays Redis's per-command cost, and the client's, once per batch instead
 * of once per request. Each group stays atomic on its own. With a call in flight, the batch is
 * flushed on setImmediate, so that requests read from different sockets in the same poll phase
 * share it; with none, at the end of the current microtasks: a lone request goes at once, and
 * callers woken by the same reply still share one call.
 *
 * With no call in flight, a batch of 16 or more is sent as two calls, so that Node handles the
 * first reply while Redis runs the second: otherwise callers that wait for their answer before
 * asking again make Redis and Node take turns, each idle half the time (measured gain: see
 * docs/ARCHITECTURE.md, "One request").
 */
export class DecideBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly sendBatch: SendBatch,
    private readonly maxGroups = 64,
  ) {}

  decide(entries: readonly StoreEntry[]): Promise<StoreReply> {
    return new Promise<StoreReply>((resolve, reject) => {
      this.waiting.push({ entries, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // Nothing in flight: no reply to wait for, so the call goes once the current callers have
        // queued theirs (a lone request waits for no event-loop turn). Otherwise the batch
        // collects for the rest of the turn while the calls in flight are answered.
        // A promise job, not queueMicrotask: test frameworks' fake timers replace that too.
        if (this.inFlight === 0) void Promise.resolve().then(() => this.flush());
        else setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.waiting;
    this.waiting = [];
    if (all.length === 1) return this.sendOne(all);
    let calls = Math.ceil(all.length / this.maxGroups);
    if (calls === 1 && this.inFlight === 0 && all.length >= MIN_GROUPS_TO_SPLIT) calls = 2;
    const size = Math.ceil(all.length / calls);
    for (let start = 0; start < all.length; start += size) {
      this.sendOne(all.slice(start, start + size));
    }
  }

  private sendOne(batch: readonly Waiting[]): void {
    this.inFlight++;
    const groups = batch.length === 1 ? [batch[0].entries] : batch.map((w) => w.entries);
    let sent: ReturnType<SendBatch>;
    try {
      sent = this.sendBatch(groups);
    } catch (error) {
      // Thrown before anything was sent (the call could not be encoded): the callers' answer.
      sent = Promise.reject(error);
    }
    sent.then(
      (replies) => {
        this.inFlight--;
        batch.forEach((w, i) => {
          const reply = replies[i];
          if (reply instanceof Error) w.reject(reply);
          else w.resolve(reply);
        });
      },
      (error: unknown) => {
        this.inFlight--;
        batch.forEach((w) => w.reject(error));
      },
    );
  }
}
