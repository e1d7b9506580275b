import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppModule } from './app.module';
import { httpPlatform, type DemoConfig } from './config/demo-config';
import { demoContexts, prepareDemoContexts } from './config/demo-contexts';
import { createHttpApp, listenOnAllInterfaces } from './platform/create-http-app';
import { shedRejectionsIfEnabled } from './platform/shed-rejections';
import { setupSwagger } from './swagger';

async function bootstrap(): Promise<void> {
  // The adapter exists before any module loads, so HTTP_PLATFORM is read here first.
  const app = await createHttpApp(AppModule.forRoot(), httpPlatform(process.env.HTTP_PLATFORM));
  app.enableShutdownHooks();
  const contexts = demoContexts(process.env);
  prepareDemoContexts(app, contexts);
  setupSwagger(app);
  shedRejectionsIfEnabled(app);
  const { port } = app.get(ConfigService).getOrThrow<DemoConfig>('demo');
  await listenOnAllInterfaces(app, port);
  if (contexts.microservicePort !== undefined) await app.startAllMicroservices();
  // PORT=0 picks a free port: say which one, and the process (the load tests and the soak
  // benchmark start instances that way and read their memory).
  const { port: bound } = app.getHttpServer().address() as AddressInfo;
  new Logger('Demo').log(
    `Listening on http://localhost:${bound} (pid ${process.pid}, ${app.getHttpAdapter().getType()}; API docs at /docs` +
      `${contexts.graphql ? `, GraphQL (${contexts.graphql}) at /graphql` : ''}, WebSocket (${contexts.wsAdapter}) at /ws` +
      `${contexts.microservicePort ? `, TCP microservice on ${contexts.microservicePort}` : ''})`,
  );
}

void bootstrap();
