// nest-redis-rate-limit/openapi: @RateLimit() routes show their 429 and rate-limit headers in
// the OpenAPI document @nestjs/swagger builds.
import './peers';

export { documentRateLimits, type OpenApiDocumentLike } from './document-rate-limits';
