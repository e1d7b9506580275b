import type { INestApplication } from '@nestjs/common';
import type { RateLimitConfig } from '../config/resolve-module-options';
import type { HeaderWriter } from '../context/context-request';
import { DecisionEngine } from '../engine/decision-engine';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { RATE_LIMIT_CONFIG } from '../rate-limit.constants';
import { PolicyRegistry } from '../registry/policy-registry';
import { AdaptiveLimits } from '../runtime/adaptive/adaptive-limits.service';
import {
  DEFAULT_SHED_PATHS,
  RejectedRoutes,
  type RoutedRequest,
} from '../registry/rejected-routes';
import { expressJsonReply } from './express-reply';
import { RejectionShedder, type ReplyFn } from './rejection-shedder';

/** Options of `shedRememberedRejections()`. @publicApi */
export interface ShedRememberedRejectionsOptions {
  /**
   * Method and path pairs remembered at most (least recently rejected forgotten first); a
   * forgotten path goes through the guard again, which answers it from memory all the same.
   * @default 1000
   */
  maxPaths?: number;
}

const WHERE = 'shedRememberedRejections()';
const MAX_PATHS = 1_000_000;

/**
 * Opt-in: answers a client's remembered rejection, and a request adaptive protection's local
 * loop drops, before routing, with the 429 the guard would give (same status, headers and body,
 * counted in stats and metrics alike), on Express as a middleware where this is called, on
 * Fastify as an `onRequest` hook. Nothing after it sees such a request: Nest middleware (on
 * Express; on Fastify it runs earlier), guards, pipes, exception filters. Only routes whose
 * identity the raw request carries (`ip`, `api-key`, `{ header }`, `route`) with a fixed cost, no
 * skip and no tier or a tier named by a header (`tier: { header }`) are shed, and only
 * rejections Redis gave and this instance remembers, or drops of its local loop. Call it once,
 * before `app.init()` / `app.listen()`.
 * @publicApi
 * @example
 * const app = await NestFactory.create(AppModule);
 * shedRememberedRejections(app);
 * await app.listen(3000);
 * @throws RateLimitConfigError when the app is initialised already, has no RateLimitModule,
 * has the shedder already, or runs on another HTTP platform than Express or Fastify.
 */
export function shedRememberedRejections(
  app: INestApplication,
  options: ShedRememberedRejectionsOptions = {},
): void {
  // Nest keeps this private; it is what its own "call before init()" checks read. After init,
  // a middleware lands behind Express's routes, and Fastify refuses new hooks once ready.
  if ((app as unknown as { isInitialized?: boolean }).isInitialized === true) {
    throw new RateLimitConfigError(
      WHERE,
      'app',
      'is initialised already: call it before app.init() / app.listen()',
    );
  }
  const maxPaths = options.maxPaths ?? DEFAULT_SHED_PATHS;
  if (!Number.isInteger(maxPaths) || maxPaths < 1 || maxPaths > MAX_PATHS) {
    throw new RateLimitConfigError(
      WHERE,
      'maxPaths',
      `must be an integer from 1 to ${MAX_PATHS} (got ${JSON.stringify(maxPaths)})`,
    );
  }
  const routes = rejectedRoutesOf(app);
  if (routes.enabled) throw new RateLimitConfigError(WHERE, 'app', 'sheds already');
  const adapter = app.getHttpAdapter();
  const type = adapter.getType();
  const viaAdapter: ReplyFn = (response, body, statusCode) =>
    adapter.reply(response, body, statusCode);
  const shedder = new RejectionShedder(
    routes,
    app.get(PolicyRegistry, { strict: false }),
    app.get(DecisionEngine, { strict: false }),
    app.get<RateLimitConfig>(RATE_LIMIT_CONFIG, { strict: false }).headers,
    type === 'express' ? expressJsonReply(adapter.getInstance(), viaAdapter) : viaAdapter,
    app.get(AdaptiveLimits, { strict: false }),
  );
  if (type === 'express') {
    adapter.use((request: RoutedRequest, response: HeaderWriter, next: () => void) => {
      if (!shedder.answer(request, response)) next();
    });
  } else if (type === 'fastify') {
    const fastify = adapter.getInstance() as FastifyHooks;
    // A callback hook, not an async one: a request that is not shed costs no promise.
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!shedder.answer(request, reply)) done();
    });
  } else {
    throw new RateLimitConfigError(WHERE, 'app', `runs on ${type}: Express or Fastify only`);
  }
  routes.enable(maxPaths);
}

interface FastifyHooks {
  addHook(
    name: 'onRequest',
    hook: (request: RoutedRequest, reply: HeaderWriter, done: () => void) => void,
  ): unknown;
}

function rejectedRoutesOf(app: INestApplication): RejectedRoutes {
  try {
    return app.get(RejectedRoutes, { strict: false });
  } catch {
    throw new RateLimitConfigError(
      WHERE,
      'app',
      'has no RateLimitModule: import RateLimitModule.forRoot() (or forRootAsync()) first',
    );
  }
}
