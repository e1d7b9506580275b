import type { INestApplication } from '@nestjs/common';
import type { GraphqlDriverName } from '../graphql/demo-graphql.module';
import { useDemoWsAdapter, type WsAdapterName } from '../gateway/use-demo-ws-adapter';
import { connectDemoMicroservice } from '../microservice/connect-demo-microservice';

/** Which non-HTTP contexts the demo serves, read before the modules are built. */
export interface DemoContexts {
  /** GRAPHQL_DRIVER: `apollo` (default), `mercurius` (Fastify only) or `off`. */
  graphql: GraphqlDriverName | null;
  /** WS_ADAPTER: `socket.io` (default) or `ws`. */
  wsAdapter: WsAdapterName;
  /** MICROSERVICE_PORT: TCP port of the demo's microservice; unset, none. */
  microservicePort?: number;
}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T {
  const text = value?.trim() || allowed[0];
  if (!(allowed as readonly string[]).includes(text)) {
    throw new Error(`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  }
  return text as T;
}

export function demoContexts(env: Record<string, string | undefined>): DemoContexts {
  const driver = oneOf('GRAPHQL_DRIVER', env.GRAPHQL_DRIVER, [
    'apollo',
    'mercurius',
    'off',
  ] as const);
  if (driver === 'mercurius' && env.HTTP_PLATFORM?.trim() !== 'fastify') {
    throw new Error(
      'GRAPHQL_DRIVER=mercurius needs HTTP_PLATFORM=fastify (Mercurius is a Fastify plugin)',
    );
  }
  const port = env.MICROSERVICE_PORT?.trim();
  if (port && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    throw new Error(
      `MICROSERVICE_PORT must be a port from 1 to 65535 (got ${JSON.stringify(port)})`,
    );
  }
  return {
    graphql: driver === 'off' ? null : driver,
    wsAdapter: oneOf('WS_ADAPTER', env.WS_ADAPTER, ['socket.io', 'ws'] as const),
    microservicePort: port ? Number(port) : undefined,
  };
}

/** Before init(): the WebSocket adapter, and the TCP microservice when a port is set. */
export function prepareDemoContexts(app: INestApplication, contexts: DemoContexts): void {
  useDemoWsAdapter(app, contexts.wsAdapter);
  if (contexts.microservicePort !== undefined) {
    connectDemoMicroservice(app, contexts.microservicePort);
  }
}
