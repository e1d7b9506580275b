// Imported rather than global, as in withTimeout(): test frameworks' fake timers replace the
// global, and a timeout waiting on a faked setImmediate would never be declared.
import { setImmediate } from 'node:timers';
import { RateLimitStoreError } from '../../errors/rate-limit-store.error';
import type { Recover, RoundTrip } from './redis-script';

interface Waiting {
  readonly deadlineMs: number;
  readonly late: Promise<unknown>;
  settled: boolean;
  reject(error: unknown): void;
}

/**
 * Bounds the request path's round trips to Redis, as withTimeout() does one, with one timer for
 * all of them: every round trip has the same timeout, so deadlines come in the order the calls
 * were sent, and the timer only needs to fire at the oldest one. A call answered in time costs
 * no timer of its own (a timer per call was a measurable share of a lone decision's CPU); the
 * timer, once armed, moves on to the next oldest call when it fires, and stops when none waits.
 *
 * Same rule as withTimeout(): when the timer fires, the event loop first gets one more I/O phase,
 * and a reply that has arrived by then is used; a call still unanswered is a store error of kind
 * 'timeout' whose `late` is its reply, should it come. Nothing is ever resent.
 */
export class RoundTripDeadlines {
  /** Calls in the order they were sent; settled ones leave from the front. */
  private waiting: Waiting[] = [];
  private head = 0;
  private timer?: NodeJS.Timeout;
  private firedAtMs = 0;

  constructor(private readonly timeoutMs: number) {}

  /** `reply` within the timeout, or a timeout error (with `recovering`: see RoundTrip). */
  readonly bound: RoundTrip = Object.assign(<T>(reply: Promise<T>) => this.watch(reply), {
    recovering: <T>(reply: Promise<T>, recover: Recover<T>) => this.watch(reply, recover),
  });

  private watch<T>(reply: Promise<T>, recover?: Recover<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        deadlineMs: performance.now() + this.timeoutMs,
        late: reply,
        settled: false,
        reject,
      };
      this.dropFront(this.head);
      this.waiting.push(waiting);
      this.timer ??= this.arm(this.timeoutMs);
      reply.then(
        (value) => {
          if (waiting.settled) return;
          waiting.settled = true;
          resolve(value);
        },
        // A call that lost to its timeout may still fail later: expected, never surfaced.
        (error: unknown) => {
          if (waiting.settled) return;
          waiting.settled = true;
          if (!recover) return reject(error);
          try {
            resolve(recover(error));
          } catch (thrown) {
            reject(thrown);
          }
        },
      );
    });
  }

  /** Stops the timer (the store is closing); calls still waiting are left to their replies. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.firedAtMs = performance.now();
      // setImmediate runs after the poll phase that follows the timers phase: the socket is read
      // (and its replies parsed, their promises settled) before any timeout is declared.
      setImmediate(this.expire);
    }, delayMs);
    // Waiting calls hold their sockets; this timer must not hold a process that has none.
    timer.unref();
    return timer;
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const { waiting } = this;
    let i = this.head;
    for (; i < waiting.length; i++) {
      const call = waiting[i];
      if (call.settled) continue;
      if (call.deadlineMs > this.firedAtMs) break;
      call.settled = true;
      call.reject(
        new RateLimitStoreError('timeout', `Redis did not answer within ${this.timeoutMs} ms`, {
          late: call.late,
        }),
      );
    }
    this.dropFront(i);
    const next = this.waiting[this.head];
    if (next) this.timer = this.arm(Math.max(1, next.deadlineMs - performance.now()));
  };

  /** Forgets the calls before index `upTo` (all settled), compacting now and then. */
  private dropFront(upTo: number): void {
    this.head = upTo;
    while (this.head < this.waiting.length && this.waiting[this.head].settled) this.head++;
    if (this.head === this.waiting.length) {
      this.waiting = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
  }
}
