import { ConfigurableModuleBuilder, Logger } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { loadDashboardAssets } from './dashboard/dashboard-assets';
import { DASHBOARD_ASSETS, dashboardController } from './dashboard/dashboard.controller';
import type {
  RateLimitAdminModuleExtras,
  RateLimitAdminModuleOptions,
} from './rate-limit-admin-options.interface';

export const {
  ConfigurableModuleClass: RateLimitAdminConfigurableModule,
  MODULE_OPTIONS_TOKEN: RATE_LIMIT_ADMIN_OPTIONS,
  OPTIONS_TYPE: RATE_LIMIT_ADMIN_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: RATE_LIMIT_ADMIN_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<RateLimitAdminModuleOptions>({ moduleName: 'RateLimitAdmin' })
  .setClassMethodName('forRoot')
  // `path` is an extra, not an option: it is needed while the module is being declared (to mount
  // it), before any async option factory could run. The builder strips extras from the options.
  .setExtras<RateLimitAdminModuleExtras>({ path: 'admin' }, (definition, extras) => {
    if (typeof extras.path !== 'string') {
      throw new RateLimitConfigError('RateLimitAdminModule', 'path', 'must be a string');
    }
    const dashboard = dashboardPath(extras.dashboard);
    return {
      ...definition,
      controllers: [
        ...(definition.controllers ?? []),
        ...(dashboard === undefined ? [] : [dashboardController(dashboard)]),
      ],
      providers: [
        ...(definition.providers ?? []),
        ...(dashboard === undefined
          ? []
          : [{ provide: DASHBOARD_ASSETS, useFactory: () => dashboardAssets() }]),
      ],
      imports: [
        ...(definition.imports ?? []),
        // `definition.module` is the class forRoot was called on (RateLimitAdminModule).
        RouterModule.register([{ path: extras.path, module: definition.module }]),
      ],
    };
  })
  .build();

const SEGMENTS = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/** The dashboard's mount path, or undefined when it is turned off. */
function dashboardPath(option: RateLimitAdminModuleExtras['dashboard']): string | undefined {
  if (option === false) return undefined;
  if (option === undefined || option === null) return 'dashboard';
  const path = typeof option === 'object' ? (option.path ?? 'dashboard') : undefined;
  const trimmed = typeof path === 'string' ? path.replace(/^\/+|\/+$/g, '') : '';
  const dotted = trimmed.split('/').some((segment) => segment === '.' || segment === '..');
  if (!SEGMENTS.test(trimmed) || dotted) {
    throw new RateLimitConfigError(
      'RateLimitAdminModule',
      'dashboard',
      "must be false or { path?: string } with a path of URL segments (e.g. 'dashboard')",
    );
  }
  return trimmed;
}

function dashboardAssets() {
  const assets = loadDashboardAssets();
  if (!assets) {
    new Logger('RateLimitAdmin').warn(
      'The dashboard was not built (no index.html found): run `npm run build`; ' +
        'its route answers 503 until then',
    );
  }
  return assets;
}
