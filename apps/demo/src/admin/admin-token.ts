import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { DemoConfig } from '../config/demo-config';

/**
 * ADMIN_TOKEN, or a random token for this run when it is unset. A generated token is logged
 * once so the operator can use it; this is the only place any admin token is ever logged.
 */
export function resolveAdminToken(demo: DemoConfig): string {
  if (demo.adminToken) return demo.adminToken;
  const token = randomBytes(32).toString('base64url');
  new Logger('Demo').warn(
    `ADMIN_TOKEN is not set: generated an admin token for this run: ${token} ` +
      '(set ADMIN_TOKEN to choose your own)',
  );
  return token;
}
