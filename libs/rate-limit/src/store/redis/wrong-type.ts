import { isReplyError } from '../../util/ioredis-shapes';

/**
 * Redis refused a command because the key holds another type (written by hand): a reader may
 * treat that key alone as empty. Any other refusal (CLUSTERDOWN, LOADING, NOPERM) is a real
 * failure and must not be hidden the same way.
 */
export function isWrongType(error: unknown): boolean {
  return isReplyError(error) && (error as Error).message.startsWith('WRONGTYPE');
}
