/** Component name of the 429 body the guard sends. */
export const RATE_LIMIT_EXCEEDED_SCHEMA = 'RateLimitExceeded';
/** Component name of the 503 body sent when Redis cannot decide and `onRedisError` is 'closed'. */
export const RATE_LIMIT_UNAVAILABLE_SCHEMA = 'RateLimitUnavailable';

/** The 429 body, `RateLimitExceededBody`, as the document's schema. */
export const RATE_LIMIT_EXCEEDED_BODY = {
  type: 'object',
  description: 'Body of a 429 from a rate-limited route.',
  properties: {
    statusCode: { type: 'integer', enum: [429], example: 429 },
    message: {
      type: 'string',
      description: 'Over the limit, blocked for a while (`blockFor`), or never admissible.',
      example: 'Too Many Requests',
    },
    policy: {
      type: 'string',
      description: 'Name of the policy that rejected the request.',
      example: 'demo.gcra',
    },
    retryAfter: {
      type: 'integer',
      minimum: 0,
      description: 'Seconds to wait, as Retry-After; 0 when waiting does not help.',
      example: 7,
    },
  },
  required: ['statusCode', 'message', 'policy', 'retryAfter'],
} as const;

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
