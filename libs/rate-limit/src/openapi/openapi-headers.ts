import type { HeaderStyle } from '../config/rate-limit-module-options.interface';

/** An OpenAPI Header Object, as written here (the same in OpenAPI 3.0 and 3.1). */
export interface OpenApiHeader {
  description: string;
  schema: { type: 'integer' | 'string'; minimum?: number };
  example?: string | number;
}

export type OpenApiHeaders = Record<string, OpenApiHeader>;

/** Operation extension naming the policies that limit it: what the 429's `policy` can name. */
export const RATE_LIMIT_POLICIES_EXTENSION = 'x-rate-limit-policies';

// Not `required`: a policy disabled at runtime, or skipped for a request, sends no headers.
const COUNT = { type: 'integer', minimum: 0 } as const;

const STANDARD: OpenApiHeaders = {
  'RateLimit-Limit': {
    description:
      "Units the route's most restrictive policy admits per window (its burst for the bucket " +
      'algorithms and GCRA).',
    schema: COUNT,
    example: 5,
  },
  'RateLimit-Remaining': {
    description: 'Units left under that policy.',
    schema: COUNT,
    example: 4,
  },
  'RateLimit-Reset': {
    description: 'Seconds until that policy has its full capacity again.',
    schema: COUNT,
    example: 10,
  },
};

const IETF_DRAFT: OpenApiHeaders = {
  'RateLimit-Policy': {
    description:
      "The route's most restrictive policy and its quota, a Structured Field " +
      '(draft-ietf-httpapi-ratelimit-headers): `"<policy>";q=<limit>`.',
    schema: { type: 'string' },
    example: '"demo.gcra";q=5',
  },
  RateLimit: {
    description:
      'Units left under that policy and seconds until its full capacity again: ' +
      '`"<policy>";r=<remaining>;t=<seconds>`.',
    schema: { type: 'string' },
    example: '"demo.gcra";r=4;t=10',
  },
};

export const RETRY_AFTER: OpenApiHeaders = {
  'Retry-After': {
    description:
      'Seconds to wait before trying again; absent when waiting does not help (a request ' +
      'costing more than the capacity, a denied client).',
    schema: COUNT,
    example: 7,
  },
};

/** The headers a limited route's responses carry in a header style. */
export function rateLimitHeaderObjects(style: HeaderStyle): OpenApiHeaders {
  switch (style) {
    case 'standard':
      return STANDARD;
    case 'ietf-draft':
      return IETF_DRAFT;
    case 'none':
      return {};
  }
}

/** Every header name the styles use: one style's are replaced by another's as a whole. */
export const RATE_LIMIT_HEADER_NAMES: readonly string[] = [
  ...Object.keys(STANDARD),
  ...Object.keys(IETF_DRAFT),
];
