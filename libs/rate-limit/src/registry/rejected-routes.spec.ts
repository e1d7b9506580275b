import { Controller, Get, Logger, VersioningType, type VersioningOptions } from '@nestjs/common';
import { ApplicationConfig, type DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { RateLimitConfig } from '../config/resolve-module-options';
import type { CompiledRoute } from './compiled-route';
import { FASTIFY_ROUTE_CONSTRAINTS_METADATA } from './path-routing';
import { MAX_SHED_PATH_LENGTH, RejectedRoutes, routeKey } from './rejected-routes';

const plain = (): CompiledRoute => ({
  policies: [{ name: 'p', cost: 1, identity: () => 'ip:192.0.2.1', keySource: 'ip' }],
  kind: 'http',
});

@Controller('plain')
class PlainController {
  @Get()
  get(): void {}
}

@Controller({ path: 'hosted', host: 'admin.example.com' })
class HostedController {
  @Get()
  get(): void {}
}

@Controller('constrained')
class ConstrainedController {
  @Get()
  get(): void {}
}
Reflect.defineMetadata(
  FASTIFY_ROUTE_CONSTRAINTS_METADATA,
  { version: '1' },
  ConstrainedController.prototype.get,
);

function rejectedRoutes(
  controllers: unknown[] = [PlainController],
  versioning?: VersioningOptions,
  skip?: () => boolean,
): RejectedRoutes {
  const config = { options: { skip } } as unknown as RateLimitConfig;
  const discovery = {
    getControllers: () => controllers.map((metatype) => ({ metatype })),
  } as unknown as DiscoveryService;
  const appConfig = new ApplicationConfig();
  if (versioning) appConfig.enableVersioning(versioning);
  return new RejectedRoutes(config, discovery, new MetadataScanner(), appConfig);
}

const req = (url: string, method = 'GET') => ({ method, url });

describe('routeKey', () => {
  it('is the method and the path as sent, without the query', () => {
    expect(routeKey({ method: 'GET', url: '/a/b?x=1&y=2' })).toBe('GET /a/b');
    expect(routeKey({ method: 'HEAD', url: '/a/b/' })).toBe('HEAD /a/b/');
  });

  it("prefers Express's originalUrl, which middleware that rewrites `url` leaves alone", () => {
    expect(routeKey({ method: 'GET', originalUrl: '/api/x', url: '/x' })).toBe('GET /api/x');
  });

  it('keeps no path longer than the bound', () => {
    const long = `/${'a'.repeat(MAX_SHED_PATH_LENGTH)}`;
    expect(routeKey(req(long.slice(0, MAX_SHED_PATH_LENGTH)))).toBeDefined();
    expect(routeKey(req(long))).toBeUndefined();
    expect(routeKey({ url: '/x' })).toBeUndefined();
  });
});

describe('RejectedRoutes', () => {
  afterEach(() => jest.restoreAllMocks());

  it('learns nothing until enabled', () => {
    const routes = rejectedRoutes();
    routes.learn(req('/plain'), plain());
    expect(routes.enabled).toBe(false);
    expect(routes.routeOf(req('/plain'))).toBeUndefined();
  });

  it('finds a learned route by method and path, whatever the query', () => {
    const routes = rejectedRoutes();
    routes.enable();
    const route = plain();
    routes.learn(req('/plain?page=1'), route);
    expect(routes.routeOf(req('/plain?page=2'))).toBe(route);
    expect(routes.routeOf(req('/plain', 'POST'))).toBeUndefined();
    expect(routes.routeOf(req('/plain/other'))).toBeUndefined();
  });

  it('learns no route that cannot be shed', () => {
    const routes = rejectedRoutes();
    routes.enable();
    routes.learn(req('/user'), {
      ...plain(),
      policies: [{ ...plain().policies[0], keySource: 'user' }],
    });
    expect(routes.size).toBe(0);
  });

  it('learns nothing under a module-wide skip', () => {
    const routes = rejectedRoutes([PlainController], undefined, () => false);
    routes.enable();
    routes.learn(req('/plain'), plain());
    expect(routes.size).toBe(0);
  });

  it('stays bounded under random paths, forgetting the least recently rejected first', () => {
    const routes = rejectedRoutes();
    routes.enable(3);
    const route = plain();
    for (let i = 0; i < 1_000; i++) routes.learn(req(`/items/${i}`), route);
    routes.learn(req(`/items/${'x'.repeat(MAX_SHED_PATH_LENGTH)}`), route);
    expect(routes.size).toBe(3);
    expect(routes.routeOf(req('/items/999'))).toBe(route);
    expect(routes.routeOf(req('/items/997'))).toBe(route);
    expect(routes.routeOf(req('/items/996'))).toBeUndefined();
  });

  it.each<[string, unknown[], VersioningOptions | undefined]>([
    ['versioning by header', [PlainController], { type: VersioningType.HEADER, header: 'V' }],
    ['versioning by media type', [PlainController], { type: VersioningType.MEDIA_TYPE, key: 'v=' }],
    ['a host-bound controller', [PlainController, HostedController], undefined],
    ['route constraints', [ConstrainedController], undefined],
  ])('turns itself off at bootstrap with %s, saying why', (_what, controllers, versioning) => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const routes = rejectedRoutes(controllers, versioning);
    routes.enable();
    routes.onApplicationBootstrap();
    routes.learn(req('/plain'), plain());
    expect(routes.enabled).toBe(false);
    expect(routes.size).toBe(0);
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/one method and path may reach different handlers/),
    );
  });

  it('stays on with URI versioning (the version is in the path) and plain controllers', () => {
    const routes = rejectedRoutes([PlainController], { type: VersioningType.URI });
    routes.enable();
    routes.onApplicationBootstrap();
    expect(routes.enabled).toBe(true);
  });
});
