import type { Swagger } from './optional-swagger';

/** Component name of the 429 body the guard sends. */
export const RATE_LIMIT_EXCEEDED_SCHEMA = 'RateLimitExceeded';
/** Component name of the 503 body sent when Redis cannot decide and `onRedisError` is 'closed'. */
export const RATE_LIMIT_UNAVAILABLE_SCHEMA = 'RateLimitUnavailable';

/**
 * The 429 body, `RateLimitExceededBody`, as a class: Swagger names components after classes.
 * Its properties are declared the first time Swagger is found (see `rateLimitExceededModel`).
 */
class RateLimitExceededModel {
  statusCode!: 429;
  message!: string;
  policy!: string;
  retryAfter!: number;
}

let declared = false;

/** The 429 body's model, described to Swagger once. */
export function rateLimitExceededModel(swagger: Swagger): typeof RateLimitExceededModel {
  if (declared) return RateLimitExceededModel;
  declared = true;
  const { ApiProperty, ApiSchema } = swagger;
  const on = (property: keyof RateLimitExceededModel, options: object): void =>
    ApiProperty(options)(RateLimitExceededModel.prototype, property);
  ApiSchema({
    name: RATE_LIMIT_EXCEEDED_SCHEMA,
    description: 'Body of a 429 from a rate-limited route.',
  })(RateLimitExceededModel);
  on('statusCode', { type: 'integer', enum: [429], example: 429 });
  on('message', {
    type: 'string',
    description: 'Over the limit, blocked for a while (`blockFor`), or never admissible.',
    example: 'Too Many Requests',
  });
  on('policy', {
    type: 'string',
    description: 'Name of the policy that rejected the request.',
    example: 'demo.gcra',
  });
  on('retryAfter', {
    type: 'integer',
    minimum: 0,
    description: 'Seconds to wait, as Retry-After; 0 when waiting does not help.',
    example: 7,
  });
  return RateLimitExceededModel;
}

/** The 503 body (Nest's standard error shape), as a plain schema for the document. */
export const RATE_LIMIT_UNAVAILABLE_BODY = {
  type: 'object',
  description: "Body of a 503 from a rate-limited route when Redis cannot decide ('closed' mode).",
  properties: {
    statusCode: { type: 'integer', enum: [503], example: 503 },
    message: { type: 'string', example: 'Rate limiting is unavailable' },
    error: { type: 'string', example: 'Service Unavailable' },
  },
  required: ['statusCode', 'message', 'error'],
} as const;
