import { RateLimitError } from './rate-limit.error';

/** No policy of that name is registered. The admin API answers 404. @publicApi */
export class UnknownPolicyError extends RateLimitError {
  constructor(readonly policy: string) {
    super(`Unknown rate limit policy "${policy}"`);
  }
}
