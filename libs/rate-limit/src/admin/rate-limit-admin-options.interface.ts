import type { Duration } from '../policy/rate-limit-options.interface';

/**
 * Options of `RateLimitAdminModule.forRoot()` / the value `forRootAsync`'s `useFactory` resolves to.
 * @publicApi
 */
export interface RateLimitAdminModuleOptions {
  /**
   * The bearer token every admin request must present (`Authorization: Bearer <token>`).
   * Required: at least 32 characters without whitespace (e.g. `openssl rand -hex 32`); anything
   * else stops the application at bootstrap. It is compared in constant time and never logged.
   */
  token: string;
  /**
   * Failed token attempts (missing or wrong) allowed per client address and window; one more
   * refuses every admin request of that address (429, a right token included) for a window.
   * Counted in the rate limiter's store, so across instances.
   * @default { limit: 10, window: '15m' }
   */
  failedTokenLimit?: { limit?: number; window?: Duration };
}

/**
 * Extras of `forRoot` and `forRootAsync` that shape the module itself rather than its options.
 * @publicApi
 */
export interface RateLimitAdminModuleExtras {
  /**
   * URL prefix the admin controller is mounted under (through `RouterModule`), so routes are
   * `/<path>/policies...`.
   * @default 'admin'
   */
  path: string;
  /**
   * The operator dashboard (a web page served by this module): `false` turns it off, `path`
   * mounts it under the module's own path (so by default at `/admin/dashboard`). The page is
   * public (it holds no data); everything it shows is read with the bearer token typed in.
   * @default { path: 'dashboard' }
   */
  dashboard?: false | { path?: string };
}
