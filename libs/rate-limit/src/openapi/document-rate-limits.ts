import type { INestApplicationContext } from '@nestjs/common';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { limitedOperations } from './limited-routes';
import {
  RATE_LIMIT_EXCEEDED_BODY,
  RATE_LIMIT_EXCEEDED_SCHEMA,
  RATE_LIMIT_UNAVAILABLE_BODY,
  RATE_LIMIT_UNAVAILABLE_SCHEMA,
} from './openapi-bodies';
import {
  RATE_LIMIT_HEADER_NAMES,
  RATE_LIMIT_POLICIES_EXTENSION,
  RETRY_AFTER,
  rateLimitHeaderObjects,
  type OpenApiHeaders,
} from './openapi-headers';

/** What `documentRateLimits()` reads of an OpenAPI 3.x document (`SwaggerModule.createDocument()`). */
export interface OpenApiDocumentLike {
  paths?: object;
  components?: object;
}

type Response = { $ref?: string; headers?: Record<string, unknown>; [field: string]: unknown };
type Operation = { responses?: Record<string, Response>; [field: string]: unknown };

const TOO_MANY_REQUESTS = {
  description:
    'Too many requests: a rate limit of this route rejected the request (see Retry-After).',
  content: {
    'application/json': { schema: { $ref: `#/components/schemas/${RATE_LIMIT_EXCEEDED_SCHEMA}` } },
  },
};

const UNAVAILABLE = {
  description: "Redis cannot decide and the rate limiter fails closed (onRedisError: 'closed').",
  content: {
    'application/json': {
      schema: { $ref: `#/components/schemas/${RATE_LIMIT_UNAVAILABLE_SCHEMA}` },
    },
  },
};

/**
 * Documents every route a `@RateLimit()` policy limits (unless the policy says `openApi:
 * false`): its 429 (the guard's body, or the application's own 429 response kept), Retry-After
 * and the rate-limit headers on its 429 and success responses, in the module's `headers` style
 * (none for 'none'), the 503 of `onRedisError: 'closed'`, and the policies' names in the
 * `x-rate-limit-policies` extension. Read from the application's controllers when the document
 * is built; changes `document` and returns it.
 * @publicApi
 * @example
 * SwaggerModule.setup('docs', app, () =>
 *   documentRateLimits(SwaggerModule.createDocument(app, config), app),
 * );
 */
export function documentRateLimits<T extends OpenApiDocumentLike>(
  document: T,
  app: INestApplicationContext,
): T {
  const config = configOf(app);
  const headers = rateLimitHeaderObjects(config.headers);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation | undefined>>;
  let exceeded = false;
  let unavailable = false;
  for (const { path, method, policies } of limitedOperations(app)) {
    // Not in the document: left out by the application (@ApiExcludeEndpoint, include lists).
    const operation = paths[path]?.[method];
    if (!operation) continue;
    operation[RATE_LIMIT_POLICIES_EXTENSION] = [...policies];
    const responses = (operation.responses ??= {});
    if (responses['429'] === undefined) {
      responses['429'] = structuredClone(TOO_MANY_REQUESTS);
      exceeded = true;
    }
    for (const [status, response] of Object.entries(responses)) {
      // A shared response (`$ref`) is not this operation's to change.
      if (response.$ref !== undefined) continue;
      if (/^2(\d\d|XX)$/.test(status)) setHeaders(response, headers);
      if (status === '429') setHeaders(response, { ...headers, ...RETRY_AFTER });
    }
    if (config.onRedisError === 'closed' && responses['503'] === undefined) {
      responses['503'] = structuredClone(UNAVAILABLE);
      unavailable = true;
    }
  }
  if (exceeded) addSchema(document, RATE_LIMIT_EXCEEDED_SCHEMA, RATE_LIMIT_EXCEEDED_BODY);
  if (unavailable) addSchema(document, RATE_LIMIT_UNAVAILABLE_SCHEMA, RATE_LIMIT_UNAVAILABLE_BODY);
  return document;
}

function configOf(app: INestApplicationContext): RateLimitConfig {
  try {
    return app.get<RateLimitConfig>(RATE_LIMIT_CONFIG, { strict: false });
  } catch {
    throw new RateLimitConfigError(
      'documentRateLimits()',
      'app',
      'has no RateLimitModule: import RateLimitModule.forRoot() or forRootAsync()',
    );
  }
}

/** Replaces the rate-limit headers of any style with `headers`; others stay. */
function setHeaders(response: Response, headers: OpenApiHeaders): void {
  const kept = Object.entries(response.headers ?? {}).filter(
    ([name]) => !RATE_LIMIT_HEADER_NAMES.includes(name),
  );
  const merged = { ...Object.fromEntries(kept), ...structuredClone(headers) };
  if (Object.keys(merged).length > 0) response.headers = merged;
  else delete response.headers;
}

function addSchema(document: OpenApiDocumentLike, name: string, schema: object): void {
  const target = document as { components?: { schemas?: Record<string, object> } };
  const schemas = ((target.components ??= {}).schemas ??= {});
  schemas[name] ??= structuredClone(schema);
}
