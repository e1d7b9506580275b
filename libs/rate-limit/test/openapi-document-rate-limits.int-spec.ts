import {
  Controller,
  Get,
  ServiceUnavailableException,
  type INestApplication,
  type INestApplicationContext,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import {
  HEADER_STYLES,
  type RateLimitModuleOptions,
} from '../src/config/rate-limit-module-options.interface';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitConfigError } from '../src/errors/rate-limit-config.error';
import { RateLimitGuard } from '../src/guard/rate-limit.guard';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { documentRateLimits } from '../src/openapi/document-rate-limits';
import { RATE_LIMIT_UNAVAILABLE_BODY } from '../src/openapi/openapi-bodies';
import { windowWithoutBoundary } from './support/window-headroom';

/** The admitted request and the rejected one fall in one window, wherever the clock is. */
const WINDOW = windowWithoutBoundary();

@Controller('p')
class PublicController {
  @Get('limited')
  @RateLimit({ name: 'one-per-window', limit: 1, window: WINDOW })
  limited() {
    return { ok: true };
  }

  @Get('hidden')
  @RateLimit({ name: 'hidden', limit: 1, window: WINDOW, openApi: false })
  hidden() {
    return { ok: true };
  }
}

type Responses = Record<
  string,
  { headers?: Record<string, unknown>; content?: unknown; $ref?: string }
>;

/** The app (memory store) and its document, made before init() as main.ts does. */
async function boot(options: RateLimitModuleOptions) {
  const moduleRef = await Test.createTestingModule({
    imports: [RateLimitModule.forRoot(options)],
    controllers: [PublicController],
    providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  const doc = documentRateLimits(
    SwaggerModule.createDocument(app, new DocumentBuilder().build()),
    app,
  );
  await app.init();
  return { app, doc };
}

const responsesOf = (doc: OpenAPIObject, path: string): Responses =>
  (doc.paths[path].get as unknown as { responses: Responses }).responses;

/** Header names, lower-cased and sorted, that look like rate limiting. */
const limitingHeaders = (names: string[]): string[] =>
  names
    .map((name) => name.toLowerCase())
    .filter((name) => /^(ratelimit|retry-after$)/.test(name))
    .sort();

let app: INestApplication | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('documentRateLimits()', () => {
  it.each(HEADER_STYLES)('documents the headers the guard sends, %s style', async (headers) => {
    const booted = await boot({ headers });
    app = booted.app;
    const responses = responsesOf(booted.doc, '/p/limited');
    const admitted = await request(app.getHttpServer()).get('/p/limited').expect(200);
    const rejected = await request(app.getHttpServer()).get('/p/limited').expect(429);

    expect(limitingHeaders(Object.keys(responses['200'].headers ?? {}))).toEqual(
      limitingHeaders(Object.keys(admitted.headers)),
    );
    expect(limitingHeaders(Object.keys(responses['429'].headers ?? {}))).toEqual(
      limitingHeaders(Object.keys(rejected.headers)),
    );
    expect(limitingHeaders(Object.keys(rejected.headers))).toContain('retry-after');
  });

  it('leaves routes without documented policies alone', async () => {
    const booted = await boot({ headers: 'ietf-draft', onRedisError: 'closed' });
    app = booted.app;
    expect(responsesOf(booted.doc, '/p/hidden')).toEqual({ '200': { description: '' } });
  });

  it("documents the 503 of onRedisError: 'closed' with Nest's error body", async () => {
    const booted = await boot({ onRedisError: 'closed' });
    app = booted.app;
    expect(responsesOf(booted.doc, '/p/limited')['503']).toEqual({
      description: expect.stringContaining("'closed'"),
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/RateLimitUnavailable' } },
      },
    });
    expect(booted.doc.components?.schemas?.RateLimitUnavailable).toEqual(
      RATE_LIMIT_UNAVAILABLE_BODY,
    );
    // The guard's 503 is Nest's ServiceUnavailableException.
    const body = new ServiceUnavailableException('Rate limiting is unavailable').getResponse();
    expect(Object.keys(body).sort()).toEqual([...RATE_LIMIT_UNAVAILABLE_BODY.required].sort());
  });

  it.each(['memory', 'open'] as const)('documents no 503 with onRedisError %s', async (mode) => {
    const booted = await boot({ onRedisError: mode });
    app = booted.app;
    expect(responsesOf(booted.doc, '/p/limited')['503']).toBeUndefined();
    expect(booted.doc.components?.schemas?.RateLimitUnavailable).toBeUndefined();
  });

  it('replaces only its own headers, skips shared responses, and can run twice', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot({ headers: 'ietf-draft' })],
      controllers: [PublicController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    const requestId = { description: 'Request id', schema: { type: 'string' } };
    const shared = { $ref: '#/components/responses/NotFound' };
    const doc = SwaggerModule.createDocument(app, new DocumentBuilder().build());
    // What an application may have put there itself: a header of its own, an old style's header,
    // a response shared through components.
    const responses = responsesOf(doc, '/p/limited');
    responses['200'].headers = { 'X-Request-Id': requestId, 'RateLimit-Limit': {} };
    responses['404'] = shared;
    const once = structuredClone(documentRateLimits(doc, app));
    expect(Object.keys(responsesOf(once, '/p/limited')['200'].headers!)).toEqual([
      'X-Request-Id',
      'RateLimit-Policy',
      'RateLimit',
    ]);
    expect(responsesOf(once, '/p/limited')['404']).toEqual(shared);
    expect(documentRateLimits(doc, app)).toEqual(once);
  });

  it('names itself when the application has no RateLimitModule', () => {
    const bare = {
      get: () => {
        throw new Error('Nest could not find RATE_LIMIT_CONFIG');
      },
    } as unknown as INestApplicationContext;
    expect(() => documentRateLimits({ paths: {} }, bare)).toThrow(RateLimitConfigError);
    expect(() => documentRateLimits({ paths: {} }, bare)).toThrow(/documentRateLimits\(\)/);
  });
});
