import { RateLimitStoreError } from '../../errors/rate-limit-store.error';

/**
 * Settles within `timeoutMs`. On timeout the command's outcome is unknown: it is reported as a
 * store error and never resent, so a request can't be counted twice.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new RateLimitStoreError('timeout', `Redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  // The losing command may still fail later; that failure is expected and must not surface.
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
