import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/**
 * Swagger UI at `/docs` and the OpenAPI document at `/docs-json`, with bearer auth for the admin
 * API. Call it before `app.init()`/`listen()`: the routes must be registered ahead of Nest's
 * not-found handler.
 */
export function setupSwagger(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Rate limit demo')
    .setDescription(
      'Public routes showing each rate-limit algorithm, the admin API that changes thresholds ' +
        'at runtime (bearer token: ADMIN_TOKEN), and the health check.',
    )
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' })
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, config), {
    jsonDocumentUrl: 'docs-json',
  });
}
