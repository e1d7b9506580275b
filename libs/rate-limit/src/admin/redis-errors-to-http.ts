import {
  ConflictException,
  GatewayTimeoutException,
  HttpException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { RateLimitStoreError } from '../errors/rate-limit-store.error';
import { StoredKeyConflictError } from '../errors/stored-key-conflict.error';

/**
 * Runs an admin action against Redis: 503 when Redis is unreachable (nothing was read or
 * written), 409 when a stored key holds another type; HTTP errors pass as they are.
 */
export async function unavailableOnError<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof HttpException) throw error;
    if (error instanceof StoredKeyConflictError) throw new ConflictException(error.message);
    throw new ServiceUnavailableException(`Redis is unavailable: ${(error as Error).message}`);
  }
}

/**
 * A write: as unavailableOnError, but one that timed out may still apply (Redis runs a command
 * it received), so it answers 504 instead of "nothing changed".
 */
export function written<T>(action: () => Promise<T>): Promise<T> {
  return unavailableOnError(async () => {
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof RateLimitStoreError) || error.failure !== 'timeout') throw error;
      throw new GatewayTimeoutException(
        `${error.message}: the change may or may not have been applied; read it back to see`,
      );
    }
  });
}
