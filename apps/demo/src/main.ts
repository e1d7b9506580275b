import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import type { DemoConfig } from './config/demo-config';
import { setupSwagger } from './swagger';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule.forRoot());
  app.enableShutdownHooks();
  setupSwagger(app);
  const { port } = app.get(ConfigService).getOrThrow<DemoConfig>('demo');
  await app.listen(port);
  // PORT=0 picks a free port: say which one, and the process (the load tests and the soak
  // benchmark start instances that way and read their memory).
  const { port: bound } = app.getHttpServer().address() as AddressInfo;
  new Logger('Demo').log(
    `Listening on http://localhost:${bound} (pid ${process.pid}; API docs at /docs)`,
  );
}

void bootstrap();
