/**
 * Options of `RateLimitAdminModule.forRoot()` / the value `forRootAsync`'s `useFactory` resolves to.
 * @publicApi
 */
export interface RateLimitAdminModuleOptions {
  /**
   * The bearer token every admin request must present (`Authorization: Bearer <token>`).
   * Required: a non-empty string without whitespace; anything else stops the application at
   * bootstrap. It is compared in constant time and never logged.
   */
  token: string;
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
}
