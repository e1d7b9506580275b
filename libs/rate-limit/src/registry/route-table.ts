import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { handlerKind, handlerKinds, type HandlerKind } from '../context/handler-kind';
import { checkKeySupported, takesDefaultPolicy } from '../context/key-support';
import { getDeclaredRateLimits, getInheritedRateLimits } from '../decorators/rate-limit.decorator';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { createIdentityResolver, isKeySource } from '../identity/identity-resolver';
import { tierResolverOf } from '../identity/tier-resolver';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { normalizePolicy } from '../policy/normalize-policy';
import { normalizeTiers } from '../policy/normalize-tiers';
import { NAMED_KEY_SOURCES, type RateLimitOptions } from '../policy/rate-limit-options.interface';
import { RATE_LIMIT_CONFIG, SKIP_RATE_LIMIT_METADATA } from '../rate-limit.constants';
import type { CompiledRoute, RoutePolicy } from './compiled-route';
import { scanHandlers, type UnlimitableDeclaration } from './limited-handlers';
import { PolicyRegistry, type PolicyUsage } from './policy-registry';

type Handler = (...args: unknown[]) => unknown;
type ControllerClass = abstract new (...args: never[]) => unknown;

/**
 * Reads `@RateLimit()` / `@SkipRateLimit()` from every controller, resolver, gateway and
 * microservice handler at bootstrap, validates them (an invalid option, or a `@RateLimit()` no
 * guard will ever see, stops the application naming the handler), registers the policies and
 * keeps a ready-made list of policies per handler for the guard.
 */
@Injectable()
export class RouteTable implements OnModuleInit {
  private readonly routes = new Map<ControllerClass, Map<Handler, CompiledRoute | null>>();
  private readonly kinds = new Set<HandlerKind>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly registry: PolicyRegistry,
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    for (const options of this.config.options.policies ?? []) {
      const where = `module option policies[${JSON.stringify(options.name)}]`;
      const policy = normalizePolicy(options, options.name, where);
      const tiers = normalizeTiers(options, policy, where);
      this.registry.register(policy, where, options.burst === undefined, undefined, tiers);
    }
    const { handlers, unlimitable } = scanHandlers(
      [...this.discovery.getControllers(), ...this.discovery.getProviders()],
      this.scanner,
    );
    for (const { cls, handler, kind } of handlers) {
      if (!this.routeFor(cls, handler, kind)) continue;
      for (const each of handlerKinds(handler)) this.kinds.add(each);
      if (kind === 'graphql-field' && !this.guardsRunOnFieldResolvers()) {
        unlimitable.push({
          where: `${cls.name}.${handler.name}`,
          problem:
            'is on a GraphQL field resolver, and guards run on field resolvers only with ' +
            "fieldResolverEnhancers: ['guards'] in the GraphQLModule options",
        });
      }
    }
    this.reportUnlimitable(unlimitable);
  }

  /**
   * A limit that would silently not apply fails the bootstrap (or, with
   * `unlimitableHandlers: 'warn'`, is logged).
   */
  private reportUnlimitable(found: readonly UnlimitableDeclaration[]): void {
    for (const { where, problem } of found) {
      const error = new RateLimitConfigError(where, '@RateLimit()', problem);
      if (this.config.unlimitableHandlers === 'fail') throw error;
      new Logger('RateLimit').warn(error.message);
    }
  }

  private guardsRunOnFieldResolvers(): boolean {
    try {
      const options = this.moduleRef.get<{ fieldResolverEnhancers?: string[] }>(
        'GqlModuleOptions', // @nestjs/graphql's GRAPHQL_MODULE_OPTIONS
        { strict: false },
      );
      return options.fieldResolverEnhancers?.includes('guards') === true;
    } catch {
      return false;
    }
  }

  /** The kinds of handler (HTTP, GraphQL, ...) that carry a limit; complete after init. */
  limitedKinds(): ReadonlySet<HandlerKind> {
    return this.kinds;
  }

  /** The policies of a handler, or null when it is not limited. */
  routeFor(cls: ControllerClass, handler: Handler, contextType?: string): CompiledRoute | null {
    let byHandler = this.routes.get(cls);
    if (!byHandler) this.routes.set(cls, (byHandler = new Map()));
    let route = byHandler.get(handler);
    if (route === undefined) {
      route = this.compile(cls, handler, handlerKind(handler) ?? (contextType as HandlerKind));
      byHandler.set(handler, route);
    }
    return route;
  }

  private compile(cls: ControllerClass, handler: Handler, kind: HandlerKind): CompiledRoute | null {
    if (this.reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT_METADATA, [handler, cls])) {
      return null;
    }
    const where = `${cls.name}.${handler.name}`;
    const declared = this.merge(where, [
      ...getInheritedRateLimits(cls),
      getDeclaredRateLimits(handler),
    ]);
    const fallback = this.config.options.defaultPolicy;
    if (declared.size === 0 && fallback && takesDefaultPolicy(kind)) {
      // Named: one budget shared by every handler it covers; unnamed: one per handler.
      declared.set(fallback.name ?? where, fallback);
    }
    if (declared.size === 0) return null;
    const usage = { controller: cls, handler, kind };
    const policies = [...declared].map(([name, options]) =>
      this.compilePolicy(where, name, options, usage, kind),
    );
    return { policies, kind };
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
    kind: HandlerKind,
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
    // A method that is, say, both a route and a microservice handler needs a key both can give.
    for (const each of new Set([kind, ...handlerKinds(usage.handler)])) {
      checkKeySupported(where, keySource, each);
    }
    const policy = normalizePolicy(options, name, where);
    const tiers = normalizeTiers(options, policy, where);
    this.registry.register(policy, where, options.burst === undefined, usage, tiers);
    const { clientIp, apiKeyHeader } = this.config;
    const identity = createIdentityResolver(keySource, clientIp, apiKeyHeader, name);
    const compiled: RoutePolicy = { name, cost: options.cost ?? 1, identity, keySource };
    const tierSource = tiers.size > 0 ? (options.tier ?? this.config.options.tier) : undefined;
    if (!options.skip && !tierSource) return compiled;
    const tier = tierSource && tierResolverOf(tierSource);
    return { ...compiled, tier, tierSource, skip: options.skip };
  }
}
