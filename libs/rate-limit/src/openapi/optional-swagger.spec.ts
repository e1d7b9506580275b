import { Get } from '@nestjs/common';
import type * as Decorators from '../decorators/rate-limit.decorator';
import type * as Loader from './optional-swagger';

// Fresh copies (after resetModules), so that they meet the @nestjs/swagger mocked here.
const fresh = {
  decorators: () => jest.requireActual<typeof Decorators>('../decorators/rate-limit.decorator'),
  loader: () => jest.requireActual<typeof Loader>('./optional-swagger'),
};

// @nestjs/swagger is an optional peer: the library must work in an application without it.
const missing = (name: string) =>
  Object.assign(new Error(`Cannot find module '${name}' from 'optional-swagger.ts'`), {
    code: 'MODULE_NOT_FOUND',
  });

beforeEach(() => {
  jest.resetModules();
});

afterEach(() => {
  jest.dontMock('@nestjs/swagger');
  jest.resetModules();
});

describe('without @nestjs/swagger', () => {
  it('declares limits as usual and documents nothing', async () => {
    jest.doMock('@nestjs/swagger', () => {
      throw missing('@nestjs/swagger');
    });
    const { RateLimit, getDeclaredRateLimits } = fresh.decorators();
    const { optionalSwagger } = fresh.loader();
    class ItemsController {
      list() {}
    }
    const descriptor = Object.getOwnPropertyDescriptor(ItemsController.prototype, 'list')!;
    const options = { limit: 5, window: '10s' };
    RateLimit(options)(ItemsController.prototype, 'list', descriptor);
    Get('items')(ItemsController.prototype, 'list', descriptor);
    // The documentation is written in a microtask (see documentWhenDeclared): let it run.
    await new Promise((resolve) => setImmediate(resolve));

    expect(optionalSwagger()).toBeNull();
    expect(getDeclaredRateLimits(ItemsController.prototype.list)).toEqual([options]);
    const keys = Reflect.getMetadataKeys(ItemsController.prototype.list).map(String);
    expect(keys.filter((key) => key.startsWith('swagger/'))).toEqual([]);
  });

  it('surfaces a broken install (a dependency of Swagger missing)', () => {
    jest.doMock('@nestjs/swagger', () => {
      throw missing('es-toolkit/compat');
    });
    const { optionalSwagger } = fresh.loader();
    expect(() => optionalSwagger()).toThrow(/es-toolkit/);
  });
});

describe('with @nestjs/swagger', () => {
  it('loads it once', () => {
    const { optionalSwagger } = fresh.loader();
    const swagger = optionalSwagger();
    expect(swagger?.DECORATORS.API_RESPONSE).toBe('swagger/apiResponse');
    expect(optionalSwagger()).toBe(swagger);
  });
});
