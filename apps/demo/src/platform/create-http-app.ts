import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory, type AbstractHttpAdapter } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { HttpPlatform } from '../config/demo-config';

/**
 * Fastify's settings where its defaults answer otherwise than Express's for the same request
 * (README "Fastify"). What is left differs in framework details only: parser errors' wording,
 * a malformed URL (400, not 404), X-Powered-By, ETag, Keep-Alive.
 */
export const DEMO_FASTIFY_OPTIONS = {
  routerOptions: {
    // Express routes `/admin/dashboard/` and `/API/gcra` as `/admin/dashboard` and `/api/gcra`;
    // Fastify answers 404 for both by default.
    ignoreTrailingSlash: true,
    caseSensitive: false,
    // Route parameters longer than this answer 414 (Express has no limit; Fastify's default is
    // 100). The admin API takes identities in its paths, and a listed identity (a key or header
    // value, encoded) runs past 100 characters.
    maxParamLength: 1024,
  },
  // Express's JSON parser takes 100 KB (then 413); Fastify's would take 1 MB.
  bodyLimit: 100 * 1024,
  // A JSON body with a "__proto__" or "constructor.prototype" key is parsed as Express parses it
  // (own properties, no prototype changed) instead of refused by Fastify's parser with its own
  // message: the admin API's validation refuses the field on both, with the same 400 naming it.
  onProtoPoisoning: 'ignore',
  onConstructorPoisoning: 'ignore',
} as const satisfies ConstructorParameters<typeof FastifyAdapter>[0];

/**
 * The Nest HTTP adapter for HTTP_PLATFORM. Neither platform is told to trust proxies: the rate
 * limiter reads client addresses itself, by its own `trustProxy` (TRUST_PROXY), from the raw
 * socket and X-Forwarded-For, so the answer is the same on both.
 */
export function createHttpAdapter(platform: HttpPlatform): AbstractHttpAdapter {
  return platform === 'fastify' ? new FastifyAdapter(DEMO_FASTIFY_OPTIONS) : new ExpressAdapter();
}

/** The demo application on the chosen platform (not yet listening). */
export function createHttpApp(
  module: DynamicModule,
  platform: HttpPlatform,
): Promise<INestApplication> {
  return NestFactory.create<INestApplication>(module, createHttpAdapter(platform));
}

/**
 * Listens on every interface, on either platform. Node (so Express) does that when no host is
 * given; Fastify listens on localhost only then, which nothing outside the machine or the
 * container reaches. '::' takes IPv4 clients too (a dual-stack socket), as Node's default does.
 */
export async function listenOnAllInterfaces(app: INestApplication, port: number): Promise<void> {
  if (app.getHttpAdapter().getType() === 'fastify') await app.listen(port, '::');
  else await app.listen(port);
}
