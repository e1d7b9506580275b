import type { ExecutionContext } from '@nestjs/common';

function notBeforeRouting(): never {
  throw new Error('Not known before routing: the shedder answers only for identities that are');
}

/**
 * The HTTP context an identity resolver reads before Nest has routed the request: the request
 * and response only. Resolvers the shedder calls (client IP, headers, route) read no more;
 * the handler, class and other context types do not exist yet, and asking for them throws
 * (the shedder then lets the request through to the guard).
 */
export function preRoutingContext(request: object, response: object): ExecutionContext {
  const args = [request, response];
  const http = {
    getRequest: () => request,
    getResponse: () => response,
    getNext: notBeforeRouting,
  };
  return {
    getType: () => 'http',
    getArgs: () => args,
    getArgByIndex: (index: number) => args[index],
    switchToHttp: () => http,
    switchToRpc: notBeforeRouting,
    switchToWs: notBeforeRouting,
    getClass: notBeforeRouting,
    getHandler: notBeforeRouting,
  } as unknown as ExecutionContext;
}
