import { RateLimitError } from './rate-limit.error';

/**
 * An operator asked adaptive protection's fleet loop for something it cannot do here: it is off
 * (the module's `adaptive.mode`), or there is no Redis for the fleet to share. The admin API
 * answers 409 with the reason; nothing was changed.
 * @publicApi
 */
export class AdaptiveUnavailableError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'AdaptiveUnavailableError';
}
