import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { getDeclaredRateLimits, getInheritedRateLimits } from '../decorators/rate-limit.decorator';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { createIdentityResolver, isKeySource } from '../identity/identity-resolver';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { normalizePolicy } from '../policy/normalize-policy';
import { normalizeTiers } from '../policy/normalize-tiers';
import { NAMED_KEY_SOURCES, type RateLimitOptions } from '../policy/rate-limit-options.interface';
import { RATE_LIMIT_CONFIG, SKIP_RATE_LIMIT_METADATA } from '../rate-limit.constants';
import type { CompiledRoute, RoutePolicy } from './compiled-route';
import { PolicyRegistry, type PolicyUsage } from './policy-registry';

type Handler = (...args: unknown[]) => unknown;
type ControllerClass = abstract new (...args: never[]) => unknown;

/**
 * Reads `@RateLimit()` / `@SkipRateLimit()` from every controller at bootstrap, validates them
 * (an invalid option stops the application, naming the handler and the field), registers the
 * policies and keeps a ready-made list of policies per handler for the guard.
 */
@Injectable()
export class RouteTable implements OnModuleInit {
  private readonly routes = new Map<ControllerClass, Map<Handler, CompiledRoute | null>>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly registry: PolicyRegistry,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
  ) {}

  onModuleInit(): void {
    for (const options of this.config.options.policies ?? []) {
      const where = `module option policies[${JSON.stringify(options.name)}]`;
      const policy = normalizePolicy(options, options.name, where);
      const tiers = normalizeTiers(options, policy, where);
      this.registry.register(policy, where, options.burst === undefined, undefined, tiers);
    }
    for (const wrapper of this.discovery.getControllers()) {
      const cls = wrapper.metatype as ControllerClass | null;
      if (!cls || !wrapper.instance) continue;
      const prototype = Object.getPrototypeOf(wrapper.instance) as Record<string, Handler>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        // Route handlers only: a helper method under a class-level @RateLimit is no policy.
        if (Reflect.getMetadata(PATH_METADATA, prototype[method]) === undefined) continue;
        this.routeFor(cls, prototype[method]);
      }
    }
  }

  /** The policies of a handler, or null when it is not limited. */
  routeFor(cls: ControllerClass, handler: Handler): CompiledRoute | null {
    let byHandler = this.routes.get(cls);
    if (!byHandler) this.routes.set(cls, (byHandler = new Map()));
    let route = byHandler.get(handler);
    if (route === undefined) {
      route = this.compile(cls, handler);
      byHandler.set(handler, route);
    }
    return route;
  }

  private compile(cls: ControllerClass, handler: Handler): CompiledRoute | null {
    if (this.reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT_METADATA, [handler, cls])) {
      return null;
    }
    const where = `${cls.name}.${handler.name}`;
    const declared = this.merge(where, [
      ...getInheritedRateLimits(cls),
      getDeclaredRateLimits(handler),
    ]);
    const fallback = this.config.options.defaultPolicy;
    if (declared.size === 0 && fallback) {
      // Named: one budget shared by every handler it covers; unnamed: one per handler.
      declared.set(fallback.name ?? where, fallback);
    }
    if (declared.size === 0) return null;
    const usage = { controller: cls, handler };
    const policies = [...declared].map(([name, options]) =>
      this.compilePolicy(where, name, options, usage),
    );
    return { policies };
  }

  /**
   * Policies of the base classes, the controller and the handler, in that order: a later level
   * replaces an earlier level's policy of the same name.
   */
  private merge(
    where: string,
    levels: readonly (readonly RateLimitOptions[])[],
  ): Map<string, RateLimitOptions> {
    const merged = new Map<string, RateLimitOptions>();
    for (const level of levels) {
      const seen = new Set<string>();
      for (const options of level) {
        const name = options.name ?? where;
        if (seen.has(name)) {
          throw new RateLimitConfigError(
            where,
            'name',
            `"${name}" is used by two @RateLimit() on one target; give each a distinct name`,
          );
        }
        seen.add(name);
        merged.set(name, options);
      }
    }
    return merged;
  }

  private compilePolicy(
    where: string,
    name: string,
    options: RateLimitOptions,
    usage: PolicyUsage,
  ): RoutePolicy {
    if (
      options.cost !== undefined &&
      typeof options.cost !== 'number' &&
      typeof options.cost !== 'function'
    ) {
      throw new RateLimitConfigError(
        where,
        'cost',
        'must be a number or a function of the ExecutionContext',
      );
    }
    const keySource = options.key ?? this.config.key;
    if (!isKeySource(keySource)) {
      throw new RateLimitConfigError(
        where,
        'key',
        `must be ${NAMED_KEY_SOURCES.map((s) => `'${s}'`).join(', ')}, { header } or a function (got ${JSON.stringify(keySource)})`,
      );
    }
    const policy = normalizePolicy(options, name, where);
    const tiers = normalizeTiers(options, policy, where);
    this.registry.register(policy, where, options.burst === undefined, usage, tiers);
    const { clientIp, apiKeyHeader } = this.config;
    const compiled: RoutePolicy = {
      name,
      cost: options.cost ?? 1,
      identity: createIdentityResolver(keySource, clientIp, apiKeyHeader, name),
    };
    const tier = tiers.size > 0 ? (options.tier ?? this.config.options.tier) : undefined;
    return options.skip || tier ? { ...compiled, tier, skip: options.skip } : compiled;
  }
}
