import { ConfigurableModuleBuilder } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
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
    return {
      ...definition,
      imports: [
        ...(definition.imports ?? []),
        // `definition.module` is the class forRoot was called on (RateLimitAdminModule).
        RouterModule.register([{ path: extras.path, module: definition.module }]),
      ],
    };
  })
  .build();
