import {
  Injectable,
  Logger,
  type ExecutionContext,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';
import type { HandlerKind } from '../context/handler-kind';
import { RouteTable } from '../registry/route-table';
import { locatedRejection, type GraphqlErrorClass } from './graphql-rejection';
import { toSeconds } from './rate-limit-headers';
import { rejectionMessage } from './rejection-exceptions';

/**
 * What a GraphQL error's `extensions`, a WebSocket `exception` event and a microservice error
 * carry for a rejection: the fields of the HTTP 429 body plus a code clients can switch on.
 */
export interface RateLimitRejection {
  code: 'TOO_MANY_REQUESTS' | 'SERVICE_UNAVAILABLE';
  statusCode: 429 | 503;
  message: string;
  policy?: string;
  retryAfter?: number;
}

type ErrorClass = new (...args: never[]) => Error;
interface ContextErrorClasses {
  graphql?: GraphqlErrorClass;
  ws?: new (error: object) => Error;
  rpc?: new (error: object) => Error;
}

/**
 * Turns a rejection into the error each non-HTTP context answers with: a located `GraphQLError`
 * (see `GraphqlRejection`), a `WsException` (emitted as the `exception` event; the socket stays
 * open) or an `RpcException` (the caller's observable errors). Their classes come from optional
 * peers, so they are loaded at bootstrap only for the kinds of handler the application limits
 * (known once every module's init has run, before any call can arrive).
 */
@Injectable()
export class ContextRejections implements OnApplicationBootstrap {
  private readonly classes: ContextErrorClasses = {};

  constructor(private readonly routes: RouteTable) {}

  onApplicationBootstrap(): Promise<void> {
    return this.load(this.routes.limitedKinds());
  }

  async load(kinds: ReadonlySet<HandlerKind>): Promise<void> {
    if ((kinds.has('graphql') || kinds.has('graphql-field')) && !this.classes.graphql) {
      this.classes.graphql = (await import('graphql')).GraphQLError as GraphqlErrorClass;
    }
    if (kinds.has('ws') && !this.classes.ws) {
      this.classes.ws = (await import('@nestjs/websockets'))
        .WsException as ErrorClass as ContextErrorClasses['ws'];
    }
    if (kinds.has('rpc') && !this.classes.rpc) {
      this.classes.rpc = (await import('@nestjs/microservices'))
        .RpcException as ErrorClass as ContextErrorClasses['rpc'];
    }
  }

  /** The error for a context of type `type` (`context.getType()`), never for HTTP. */
  error(type: string, rejection: RateLimitRejection, context?: ExecutionContext): Error {
    if (type === 'ws' && context) answerAck(context, rejection);
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0; // an expected outcome: no stack to capture per rejection
    try {
      return this.create(type, rejection, context);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  private create(type: string, rejection: RateLimitRejection, context?: ExecutionContext): Error {
    const { graphql, ws, rpc } = this.classes;
    if (type === 'graphql' && graphql) {
      const { message, ...extensions } = rejection;
      return locatedRejection(graphql, message, extensions, context?.getArgByIndex(3));
    }
    if (type === 'ws' && ws) return new ws({ status: 'error', ...rejection });
    if (type === 'rpc' && rpc) return new rpc(rejection);
    // Only a handler the bootstrap did not see gets here (its context's classes were not loaded).
    new Logger('RateLimit').warn(`No ${type} error class loaded; rejecting with a plain error`);
    return Object.assign(new Error(rejection.message), rejection);
  }
}

/**
 * A socket.io message sent with an acknowledgement gets the rejection there too: the
 * `exception` event alone would leave a client awaiting its ack hanging. Nest passes the ack
 * after the data (the pattern comes last).
 */
function answerAck(context: ExecutionContext, rejection: RateLimitRejection): void {
  const args = context.getArgs<unknown[]>();
  for (let i = 2; i < args.length - 1; i++) {
    const ack = args[i];
    if (typeof ack === 'function') {
      (ack as (answer: object) => void)({ status: 'error', ...rejection });
      return;
    }
  }
}

export function tooManyRequests(decision: RateLimitDecision): RateLimitRejection {
  return {
    code: 'TOO_MANY_REQUESTS',
    statusCode: 429,
    message: rejectionMessage(decision),
    policy: decision.policy,
    retryAfter: toSeconds(decision.retryAfterMs),
  };
}

export const RATE_LIMITING_UNAVAILABLE: RateLimitRejection = Object.freeze({
  code: 'SERVICE_UNAVAILABLE',
  statusCode: 503,
  message: 'Rate limiting is unavailable',
});
