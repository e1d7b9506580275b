import { SetMetadata } from '@nestjs/common';
import { SKIP_RATE_LIMIT_METADATA } from '../rate-limit.constants';

/**
 * Exempts a handler or a whole controller from every rate limit, including `defaultPolicy`.
 * @publicApi
 */
export const SkipRateLimit = (): ClassDecorator & MethodDecorator =>
  SetMetadata(SKIP_RATE_LIMIT_METADATA, true);
