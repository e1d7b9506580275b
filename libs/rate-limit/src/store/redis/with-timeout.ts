// Imported rather than global: test frameworks' fake timers replace the global, and a timeout
// waiting on a faked setImmediate would never be declared.
import { setImmediate } from 'node:timers';
import { RateLimitStoreError } from '../../errors/rate-limit-store.error';

/**
 * Settles within `timeoutMs` of Redis's time, not of this process's: when the timer fires, the
 * event loop first gets one more I/O phase, and a reply that has arrived by then is used. A
 * process busy for longer than the timeout (parsing a burst of requests, a blocking handler)
 * fires its timers late, with replies already waiting unread in the socket; declaring those
 * timeouts would send healthy traffic to the fallback and open the circuit breaker.
 *
 * On a real timeout the command's outcome is unknown: it is reported as a store error and never
 * resent, so a request can't be counted twice (it may still run in Redis later; the error's
 * `late` is its reply, should it come).
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
    };
    // setImmediate runs after the poll phase that follows the timers phase: the socket is read
    // (and its replies parsed, their promises settled) before the timeout is declared.
    const timer = setTimeout(
      () =>
        setImmediate(() =>
          settle(() =>
            reject(
              new RateLimitStoreError('timeout', `Redis did not answer within ${timeoutMs} ms`, {
                late: promise,
              }),
            ),
          ),
        ),
      timeoutMs,
    );
    promise.then(
      (value) => settle(() => resolve(value)),
      // The losing command may still fail later; that failure is expected and must not surface.
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
