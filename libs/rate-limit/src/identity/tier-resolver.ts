import type { ExecutionContext } from '@nestjs/common';
import { requestOf } from '../context/context-request';
import type { TierResolver, TierSource } from '../policy/rate-limit-options.interface';
import { headerValue } from './identity-resolver';

/**
 * The resolver the guard calls. `{ header }` reads the request's header (the first value; an
 * empty one names no tier); a call without a request (a microservice message) has no tier.
 */
export function tierResolverOf(source: TierSource): TierResolver {
  if (typeof source === 'function') return source;
  const header = source.header.toLowerCase();
  return (context: ExecutionContext) => {
    const request = requestOf(context);
    return request === undefined ? undefined : headerValue(request, header);
  };
}
