import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { documentRateLimits } from '@app/rate-limit/openapi';

/**
 * Swagger UI at `/docs` and the OpenAPI document at `/docs-json`, with bearer auth for the admin
 * API. Call it before `app.init()`/`listen()`: the routes must be registered ahead of Nest's
 * not-found handler. `@RateLimit()` routes document their 429 and headers by themselves;
 * `documentRateLimits()` matches the headers to the module's options.
 */
export function setupSwagger(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Rate limit demo')
    .setDescription(
      'Public routes showing each rate-limit algorithm, the admin API that changes thresholds ' +
        'at runtime (bearer token: ADMIN_TOKEN), and the health check.',
    )
    .setVersion('0.2.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' })
    .build();
  const document = () => documentRateLimits(SwaggerModule.createDocument(app, config), app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
  });
}
