import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig, DiscoveryService, MetadataScanner } from '@nestjs/core';
import { LRUCache } from 'lru-cache';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import type { CompiledRoute } from './compiled-route';
import { pathRoutingProblem, type ControllerClass } from './path-routing';
import { isSheddable } from './sheddable-route';

/** Paths remembered at most: a few hundred bytes each, whatever clients send. */
export const DEFAULT_SHED_PATHS = 1_000;
/** A longer path is never remembered (so never shed): a key must not pin client text. */
export const MAX_SHED_PATH_LENGTH = 1_024;

/** What routeKey() reads: an Express request, or a Fastify one (the same object on both paths). */
export interface RoutedRequest {
  readonly method?: string;
  readonly originalUrl?: string;
  readonly url?: string;
}

/** `<METHOD> <path>` as the client sent it, without the query; undefined when too long. */
export function routeKey(request: RoutedRequest): string | undefined {
  const url = request.originalUrl ?? request.url;
  if (typeof url !== 'string' || typeof request.method !== 'string') return undefined;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.length > MAX_SHED_PATH_LENGTH ? undefined : `${request.method} ${path}`;
}

/**
 * The routes whose rejections the shedder may answer before routing, learned from the 429s the
 * guard gives, by method and path: a path the guard never rejected is never shed, and only a
 * route whose requests can be rebuilt from the raw request is learned (isSheddable). Bounded
 * (least recently used first out), so a client requesting random paths cannot grow the heap.
 * Learns nothing until shedRememberedRejections() enables it, nor where one method and path
 * may reach different handlers (pathRoutingProblem).
 */
@Injectable()
export class RejectedRoutes implements OnApplicationBootstrap {
  private records?: LRUCache<string, CompiledRoute>;
  private readonly sheddable = new WeakMap<CompiledRoute, boolean>();

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Optional() private readonly appConfig?: ApplicationConfig,
  ) {}

  enable(maxPaths = DEFAULT_SHED_PATHS): void {
    this.records = new LRUCache<string, CompiledRoute>({ max: maxPaths });
  }

  get enabled(): boolean {
    return this.records !== undefined;
  }

  /** Paths remembered now. */
  get size(): number {
    return this.records?.size ?? 0;
  }

  /** Called by the guard for an HTTP request it answers with 429. */
  learn(request: RoutedRequest, route: CompiledRoute): void {
    const records = this.records;
    if (!records || !this.isSheddable(route)) return;
    const key = routeKey(request);
    if (key !== undefined && records.get(key) !== route) records.set(key, route);
  }

  /** The route the guard rejected a request of this method and path on, if remembered. */
  routeOf(request: RoutedRequest): CompiledRoute | undefined {
    const records = this.records;
    if (!records || records.size === 0) return undefined;
    const key = routeKey(request);
    return key === undefined ? undefined : records.get(key);
  }

  /** Every controller is known by now, and so is the versioning set up before init(). */
  onApplicationBootstrap(): void {
    if (!this.records) return;
    const controllers = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype as ControllerClass | null)
      .filter((cls): cls is ControllerClass => typeof cls === 'function');
    const problem = pathRoutingProblem(
      controllers,
      (prototype) => this.scanner.getAllMethodNames(prototype),
      this.appConfig?.getVersioning(),
    );
    if (problem === undefined) return;
    this.records = undefined;
    new Logger('RateLimit').warn(
      `shedRememberedRejections(): off, because one method and path may reach different ` +
        `handlers here (${problem}); every request goes through the guard.`,
    );
  }

  private isSheddable(route: CompiledRoute): boolean {
    let sheddable = this.sheddable.get(route);
    if (sheddable === undefined) {
      sheddable = isSheddable(route, this.config.options.skip);
      this.sheddable.set(route, sheddable);
    }
    return sheddable;
  }
}
