import { HttpStatus, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { rateLimitExceededModel } from './openapi-bodies';
import {
  RATE_LIMIT_POLICIES_EXTENSION,
  RETRY_AFTER,
  rateLimitHeaderObjects,
  type OpenApiHeaders,
} from './openapi-headers';
import { optionalSwagger, type Swagger } from './optional-swagger';

type Handler = (...args: unknown[]) => unknown;

/**
 * The names of the policies of one route handler of `cls` that are documented: none when the
 * handler is exempt or every policy says `openApi: false`.
 */
export type DocumentedPolicies = (cls: object, handler: Handler) => string[];

/** A response as `@ApiResponse()` keeps it in Swagger's metadata, keyed by status. */
interface ResponseEntry {
  description?: string;
  headers?: object;
  [field: string]: unknown;
}

const TOO_MANY_REQUESTS =
  'Too many requests: a rate limit of this route rejected the request (see Retry-After).';

const waiting = new Set<object>();

/**
 * Documents, once the class declaration has run, the 429 of every limited route of `cls` and
 * the rate-limit headers (standard style; `documentRateLimits()` adapts them to the module's
 * options). A microtask, because decorators run bottom-up: `@Get()`, `@HttpCode()`,
 * `@ApiOkResponse()` or, on the class, `@SkipRateLimit()` written above `@RateLimit()` are
 * applied after it. The class is complete when the microtask runs, long before any application
 * can be created to scan it.
 */
export function documentWhenDeclared(cls: object, documentedPolicies: DocumentedPolicies): void {
  if (waiting.has(cls)) return;
  waiting.add(cls);
  queueMicrotask(() => {
    waiting.delete(cls);
    const swagger = optionalSwagger();
    if (swagger) documentLimitedRoutes(swagger, cls, documentedPolicies);
  });
}

/** Adds the documentation to each limited route handler of `cls` (idempotent). */
export function documentLimitedRoutes(
  swagger: Swagger,
  cls: object,
  documentedPolicies: DocumentedPolicies,
): void {
  for (const handler of routeHandlers(cls)) {
    const policies = documentedPolicies(cls, handler);
    if (policies.length > 0) documentRoute(swagger, handler, policies);
  }
}

/** The route handlers of a controller, inherited ones included (the most derived wins). */
function routeHandlers(cls: object): Handler[] {
  const handlers: Handler[] = [];
  const seen = new Set<string>();
  let prototype = (cls as { prototype?: object }).prototype;
  for (
    ;
    prototype && prototype !== Object.prototype;
    prototype = Object.getPrototypeOf(prototype)
  ) {
    for (const name of Object.getOwnPropertyNames(prototype)) {
      if (name === 'constructor' || seen.has(name)) continue;
      seen.add(name);
      // The descriptor, not the property: reading a getter would run it.
      const value: unknown = Object.getOwnPropertyDescriptor(prototype, name)?.value;
      if (typeof value === 'function' && Reflect.getMetadata(PATH_METADATA, value) !== undefined) {
        handlers.push(value as Handler);
      }
    }
  }
  return handlers;
}

function documentRoute(swagger: Swagger, handler: Handler, policies: string[]): void {
  const { API_RESPONSE, API_EXTENSION } = swagger.DECORATORS;
  const declared: Record<string, ResponseEntry> = Reflect.getMetadata(API_RESPONSE, handler) ?? {};
  const responses = { ...declared };
  // Swagger shows the default success response only while a handler declares no response at
  // all; the 429 added here would hide it, so it is declared too.
  if (Object.keys(responses).length === 0) {
    responses[String(defaultStatus(handler))] = { description: '' };
  }
  const headers = rateLimitHeaderObjects('standard');
  for (const status of Object.keys(responses).filter(isSuccess)) {
    responses[status] = withHeaders(responses[status], headers);
  }
  // A 429 the application declares itself keeps its body and description.
  responses['429'] = withHeaders(
    responses['429'] ?? {
      description: TOO_MANY_REQUESTS,
      type: rateLimitExceededModel(swagger),
      isArray: false,
    },
    { ...headers, ...RETRY_AFTER },
  );
  Reflect.defineMetadata(API_RESPONSE, responses, handler);
  const extensions: object = Reflect.getMetadata(API_EXTENSION, handler) ?? {};
  Reflect.defineMetadata(
    API_EXTENSION,
    { ...extensions, [RATE_LIMIT_POLICIES_EXTENSION]: policies },
    handler,
  );
}

/** The status Swagger documents for a handler that declares none. */
function defaultStatus(handler: Handler): number {
  const code: unknown = Reflect.getMetadata(HTTP_CODE_METADATA, handler);
  if (typeof code === 'number') return code;
  return Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.POST
    ? HttpStatus.CREATED
    : HttpStatus.OK;
}

const isSuccess = (status: string): boolean => /^2(\d\d|XX)$/.test(status);

/** Headers the response declares itself win over the ones added. */
function withHeaders(entry: ResponseEntry, headers: OpenApiHeaders): ResponseEntry {
  return { ...entry, headers: { ...headers, ...entry.headers } };
}
