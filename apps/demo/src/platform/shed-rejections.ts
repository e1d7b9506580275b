import type { INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { shedRememberedRejections } from '@app/rate-limit/shedder';
import type { DemoConfig } from '../config/demo-config';

/**
 * RATE_LIMIT_SHED_REJECTIONS=true answers remembered rejections before routing (README
 * "Shedding floods before routing"). Off by default. Before init() / listen(): the shedder must
 * come ahead of the routes.
 */
export function shedRejectionsIfEnabled(app: INestApplication): void {
  if (app.get(ConfigService).getOrThrow<DemoConfig>('demo').shedRejections) {
    shedRememberedRejections(app);
  }
}
