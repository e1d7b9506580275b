import type { INestApplication } from '@nestjs/common';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';

/**
 * Makes the demo a hybrid app that also answers TCP messages on `port`. `inheritAppConfig`
 * gives the microservice the app's global guard (APP_GUARD) and filters: without it, its
 * handlers would run unguarded.
 */
export function connectDemoMicroservice(app: INestApplication, port: number): void {
  app.connectMicroservice<MicroserviceOptions>(
    { transport: Transport.TCP, options: { host: '127.0.0.1', port } },
    { inheritAppConfig: true },
  );
}
