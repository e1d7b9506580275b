import { RateLimitError } from '../errors/rate-limit.error';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import { UncertainWriteError } from '../errors/uncertain-write.error';
import { commandRefusal } from '../store/redis/command-refusal';

/**
 * Runs an admin action against Redis: a failure that is not one of the library's own errors
 * (a connection error of the client) is a RateLimitStoreError, so that it answers "Redis is
 * unavailable, nothing was read or written" and a defect elsewhere is not mistaken for it.
 * A command Redis refused ("ERR ...") is no outage: input the admin API should have refused
 * first (a cursor past 2^64 once answered 503), so it goes out as the defect it is (500).
 */
export async function fromStore<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    const refused = commandRefusal(error);
    if (refused) throw refused;
    if (error instanceof RateLimitError) throw error;
    throw new RateLimitStoreError('error', (error as Error).message, { cause: error });
  }
}

/**
 * A write: as fromStore, but one that timed out may still apply (Redis runs a command it
 * received), so it is an UncertainWriteError instead of "nothing changed".
 */
export function writing<T>(action: () => Promise<T>): Promise<T> {
  return fromStore(async () => {
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof RateLimitStoreError) || error.failure !== 'timeout') throw error;
      throw new UncertainWriteError(error.message, { cause: error });
    }
  });
}
