import { Controller, Get } from '@nestjs/common';
import { Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { MessagePattern } from '@nestjs/microservices';
import { SubscribeMessage } from '@nestjs/websockets';
import { handlerKind } from '../context/handler-kind';
import type { PolicyUsage } from './policy-registry';
import { routesOf } from './route-paths';

@Controller('things')
class ThingsController {
  @Get(':id')
  one(): void {}
}

@Resolver()
class ThingsResolver {
  @Query(() => String)
  thing(): string {
    return '';
  }

  @Mutation(() => String, { name: 'renameThing' })
  rename(): string {
    return '';
  }

  @ResolveField(() => String)
  label(): string {
    return '';
  }
}

class ThingsGateway {
  @SubscribeMessage('thing.watch')
  watch(): void {}
}

class ThingsRpc {
  @MessagePattern({ cmd: 'thing' })
  get(): void {}
}

const usage = (controller: unknown, handler: () => unknown): PolicyUsage => ({
  controller: controller as PolicyUsage['controller'],
  handler: handler as PolicyUsage['handler'],
  kind: handlerKind(handler) ?? undefined,
});

describe('routesOf', () => {
  it('lists HTTP routes with their full path, and other handlers by what calls them', () => {
    const routes = routesOf(
      [
        usage(ThingsController, ThingsController.prototype.one),
        usage(ThingsResolver, ThingsResolver.prototype.thing),
        usage(ThingsResolver, ThingsResolver.prototype.rename),
        usage(ThingsResolver, ThingsResolver.prototype.label),
        usage(ThingsGateway, ThingsGateway.prototype.watch),
        usage(ThingsRpc, ThingsRpc.prototype.get),
      ],
      { globalPrefix: 'v1' },
    );
    expect(routes).toEqual([
      { method: 'GET', path: '/v1/things/:id' },
      { method: 'GRAPHQL', path: 'Query.thing' },
      { method: 'GRAPHQL', path: 'Mutation.renameThing' },
      { method: 'GRAPHQL', path: 'field label' },
      { method: 'WS', path: 'thing.watch' },
      { method: 'RPC', path: '{"cmd":"thing"}' },
    ]);
  });
});
