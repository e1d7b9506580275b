import { Controller, Get } from '@nestjs/common';
import { Mutation, Query, ResolveField, Resolver, Subscription } from '@nestjs/graphql';
import {
  RESOLVER_NAME_METADATA,
  RESOLVER_PROPERTY_METADATA,
  RESOLVER_TYPE_METADATA,
} from '@nestjs/graphql/dist/graphql.constants.js';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { MESSAGE_MAPPING_METADATA, MESSAGE_METADATA } from '@nestjs/websockets/constants';
import { HANDLER_METADATA, handlerKind } from './handler-kind';

@Controller('things')
class ThingsController {
  @Get()
  list(): string {
    return 'list';
  }

  helper(): string {
    return 'helper';
  }
}

@Controller()
class ThingsMessages {
  @MessagePattern('things.count')
  count(): number {
    return 0;
  }

  @EventPattern('things.created')
  created(_event: unknown): void {}
}

@WebSocketGateway()
class ThingsGateway {
  @SubscribeMessage('ping')
  ping(): string {
    return 'pong';
  }
}

@Resolver()
class ThingsResolver {
  @Query(() => String)
  thing(): string {
    return 'thing';
  }

  @Mutation(() => String)
  renameThing(): string {
    return 'renamed';
  }

  @Subscription(() => String)
  thingAdded(): string {
    return 'added';
  }

  @ResolveField(() => String)
  owner(): string {
    return 'owner';
  }
}

class PlainService {
  work(): string {
    return 'work';
  }
}

describe('handlerKind', () => {
  it.each([
    ['@Get()', 'http', ThingsController.prototype.list],
    ['@MessagePattern()', 'rpc', ThingsMessages.prototype.count],
    ['@EventPattern()', 'rpc', ThingsMessages.prototype.created],
    ['@SubscribeMessage()', 'ws', ThingsGateway.prototype.ping],
    ['@Query()', 'graphql', ThingsResolver.prototype.thing],
    ['@Mutation()', 'graphql', ThingsResolver.prototype.renameThing],
    ['@Subscription()', 'graphql', ThingsResolver.prototype.thingAdded],
    ['@ResolveField()', 'graphql-field', ThingsResolver.prototype.owner],
  ])('classifies a %s method as %s', (_decorator, kind, handler) => {
    expect(handlerKind(handler)).toBe(kind);
  });

  it('gives null for an undecorated controller method and a plain service method', () => {
    expect(handlerKind(ThingsController.prototype.helper)).toBeNull();
    expect(handlerKind(PlainService.prototype.work)).toBeNull();
  });
});

describe('HANDLER_METADATA', () => {
  it('spells the keys exactly as the optional packages define them', () => {
    expect(HANDLER_METADATA).toEqual({
      graphqlResolverType: RESOLVER_TYPE_METADATA,
      graphqlResolverName: RESOLVER_NAME_METADATA,
      graphqlProperty: RESOLVER_PROPERTY_METADATA,
      wsMessage: MESSAGE_MAPPING_METADATA,
      wsMessageName: MESSAGE_METADATA,
      rpcPattern: PATTERN_METADATA,
    });
  });
});
