import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppModule } from './app.module';
import { httpPlatform, type DemoConfig } from './config/demo-config';
import { createHttpApp, listenOnAllInterfaces } from './platform/create-http-app';
import { setupSwagger } from './swagger';

async function bootstrap(): Promise<void> {
  // The adapter exists before any module loads, so HTTP_PLATFORM is read here first.
  const app = await createHttpApp(AppModule.forRoot(), httpPlatform(process.env.HTTP_PLATFORM));
  app.enableShutdownHooks();
  setupSwagger(app);
  const { port } = app.get(ConfigService).getOrThrow<DemoConfig>('demo');
  await listenOnAllInterfaces(app, port);
  // PORT=0 picks a free port: say which one, and the process (the load tests and the soak
  // benchmark start instances that way and read their memory).
  const { port: bound } = app.getHttpServer().address() as AddressInfo;
  new Logger('Demo').log(
    `Listening on http://localhost:${bound} (pid ${process.pid}, ${app.getHttpAdapter().getType()}; API docs at /docs)`,
  );
}

void bootstrap();
