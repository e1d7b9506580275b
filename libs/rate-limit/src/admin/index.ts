// nest-redis-rate-limit/admin: the operations plane. The admin API (policies, tiers, per-client
// overrides, live usage), the dashboard, and what only they read (stats across instances,
// traffic, the audit log, live instances), created when RateLimitAdminModule is mounted.
import './peers';

export { RateLimitAdminModule } from './rate-limit-admin.module';
export type {
  RateLimitAdminModuleExtras,
  RateLimitAdminModuleOptions,
} from './rate-limit-admin-options.interface';
export { RateLimitAdminService } from './rate-limit-admin.service';
export { ClientOverridesAdmin } from './client-overrides-admin';
export type { ClientOverrideView, ClientOverrideViewPage } from './client-override-view.interface';
export { RateLimitHttpErrorsInterceptor } from './errors-to-http.interceptor';
export { MIN_ADMIN_TOKEN_LENGTH } from './admin-token';
export type {
  KeyUsage,
  KeyUsagePage,
  PolicyOverride,
  PolicyPatch,
  PolicyRoute,
  PolicyStatsView,
  PolicyThresholds,
  PolicyView,
  TierPatch,
  TierThresholds,
  TierView,
} from './policy-view.interface';
