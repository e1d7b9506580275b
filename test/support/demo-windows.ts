import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { PolicyRegistry } from '@app/rate-limit';
import { windowWithoutBoundary } from '../../libs/rate-limit/test/support/window-headroom';

/**
 * Gives the named demo policies a window whose epoch-aligned boundary is not within the hour,
 * through the admin API of `apps[0]`, and resolves once every app applied it (apps of one key
 * prefix share the change over Redis). A burst on the demo's routes then lands in one window
 * wherever the clock is: in their own 10 s windows it could straddle a boundary, and the new
 * window admits the client again. Limits and algorithms stay the demo's own. Resolves with the
 * window.
 */
export async function demoWindowsWithoutBoundary(
  apps: readonly INestApplication[],
  adminToken: string,
  policies: readonly string[],
): Promise<number> {
  const windowMs = windowWithoutBoundary();
  // Listening before the change: the event of an app that applies it at once is not missed.
  const applied = apps.flatMap((app) => policies.map((name) => appliedOn(app, name, windowMs)));
  for (const name of policies) {
    await request(apps[0].getHttpServer())
      .patch(`/admin/policies/${name}`)
      .set('Authorization', `Bearer ${adminToken}`)
      .send({ windowMs })
      .expect(200);
  }
  await Promise.all(applied);
  return windowMs;
}

/** When `app`'s registry holds policy `name` with `windowMs` (its own change event). */
function appliedOn(app: INestApplication, name: string, windowMs: number): Promise<void> {
  const registry = app.get(PolicyRegistry, { strict: false });
  return new Promise((resolve) => {
    registry.onChange((changed, policy) => {
      if (changed === name && policy.windowMs === windowMs) resolve();
    });
    if (registry.get(name)?.windowMs === windowMs) resolve();
  });
}
