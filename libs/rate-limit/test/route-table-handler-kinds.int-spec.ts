import { Controller, Get, Injectable, Logger } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitConfigError } from '../src/errors/rate-limit-config.error';
import { bootApp as boot, bootError } from './support/boot-app';
import { RouteTable } from '../src/registry/route-table';

const NOT_A_HANDLER =
  'is not an HTTP route, GraphQL resolver, WebSocket message handler or microservice ' +
  'handler: no guard runs on it, so it would never be limited';

@Injectable()
class ReportService {
  @RateLimit({ limit: 1, window: '1m' })
  build(): string {
    return 'report';
  }
}

@RateLimit({ limit: 1, window: '1m' })
@Injectable()
class LimitedService {
  run(): string {
    return 'run';
  }
}

@RateLimit({ limit: 5, window: '1m' })
@Controller('items')
class ItemsController {
  @Get()
  list(): string {
    return this.format('items');
  }

  format(text: string): string {
    return text;
  }
}

@Controller()
class CountMessages {
  @RateLimit({ limit: 5, window: '1m' })
  @MessagePattern('orders.count')
  countOrders(): number {
    return 0;
  }
}

@Controller()
class TenantMessages {
  @RateLimit({
    limit: 5,
    window: '1m',
    key: (ctx) => ctx.switchToRpc().getData<{ tenantId: string }>().tenantId,
  })
  @MessagePattern('orders.list')
  listOrders(): string[] {
    return [];
  }
}

describe('RouteTable at bootstrap: @RateLimit() where no guard runs', () => {
  afterEach(() => jest.restoreAllMocks());

  it('fails on a limited method of a plain service, naming Service.method', async () => {
    const error = await bootError({ providers: [ReportService] });

    expect(error).toBeInstanceOf(RateLimitConfigError);
    expect(error.message).toBe(
      `Invalid rate limit options on ReportService.build: "@RateLimit()" ${NOT_A_HANDLER}`,
    );
  });

  it('fails on a class-level @RateLimit() of a provider without handlers, naming the class', async () => {
    const error = await bootError({ providers: [LimitedService] });

    expect(error).toBeInstanceOf(RateLimitConfigError);
    expect(error.message).toBe(
      'Invalid rate limit options on LimitedService: "@RateLimit()" (a class with ' +
        `@RateLimit()) ${NOT_A_HANDLER}`,
    );
  });

  it("only logs a warning with unlimitableHandlers: 'warn'", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

    const app = await boot({
      providers: [ReportService],
      options: { unlimitableHandlers: 'warn' },
    });
    await app.close();

    expect(warn).toHaveBeenCalledWith(
      `Invalid rate limit options on ReportService.build: "@RateLimit()" ${NOT_A_HANDLER}`,
    );
  });

  it('ignores a helper method of a limited controller: only its routes are limited', async () => {
    const app = await boot({ controllers: [ItemsController] });
    const routes = app.get(RouteTable);

    expect(routes.routeFor(ItemsController, ItemsController.prototype.list)).not.toBeNull();
    expect(routes.limitedKinds()).toEqual(new Set(['http']));
    await app.close();
  });

  it('rejects an unknown unlimitableHandlers value', async () => {
    const error = await bootError({
      options: { unlimitableHandlers: 'bogus' as 'warn' },
    });

    expect(error).toBeInstanceOf(RateLimitConfigError);
    expect(error.message).toBe(
      'Invalid rate limit options on RateLimitModule options: "unlimitableHandlers" must be ' +
        'one of fail, warn (got "bogus")',
    );
  });
});

describe('RouteTable at bootstrap: microservice handlers', () => {
  it("fails on the default 'ip' key, naming the handler and the way out", async () => {
    const error = await bootError({ controllers: [CountMessages] });

    expect(error).toBeInstanceOf(RateLimitConfigError);
    expect(error.where).toBe('CountMessages.countOrders');
    expect(error.message).toContain(
      'Invalid rate limit options on CountMessages.countOrders: "key" cannot be "ip" on a ' +
        'microservice handler',
    );
    expect(error.message).toContain('use a function of the payload');
  });

  it('boots with a key function of the payload', async () => {
    const app = await boot({ controllers: [TenantMessages] });
    const route = app.get(RouteTable).routeFor(TenantMessages, TenantMessages.prototype.listOrders);

    expect(route?.kind).toBe('rpc');
    expect(route?.policies.map((p) => p.name)).toEqual(['TenantMessages.listOrders']);
    expect(app.get(RouteTable).limitedKinds()).toEqual(new Set(['rpc']));
    await app.close();
  });
});
