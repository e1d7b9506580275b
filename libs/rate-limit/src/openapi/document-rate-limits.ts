import type { INestApplicationContext } from '@nestjs/common';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { RATE_LIMIT_UNAVAILABLE_BODY, RATE_LIMIT_UNAVAILABLE_SCHEMA } from './openapi-bodies';
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

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'];

const UNAVAILABLE = {
  description: "Redis cannot decide and the rate limiter fails closed (onRedisError: 'closed').",
  content: {
    'application/json': {
      schema: { $ref: `#/components/schemas/${RATE_LIMIT_UNAVAILABLE_SCHEMA}` },
    },
  },
};

/**
 * Completes what `@RateLimit()` documents with what only the module options tell: the headers
 * in the configured `headers` style (none for 'none'; Retry-After stays on the 429), and the 503
 * of `onRedisError: 'closed'`. Changes `document` and returns it.
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
  let unavailable = false;
  for (const operation of limitedOperations(document)) {
    const responses = (operation.responses ??= {});
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

/** The operations `@RateLimit()` marked (see RATE_LIMIT_POLICIES_EXTENSION). */
function* limitedOperations(document: OpenApiDocumentLike): Generator<Operation> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      const operation = item?.[method] as Operation | undefined;
      if (Array.isArray(operation?.[RATE_LIMIT_POLICIES_EXTENSION])) yield operation;
    }
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
