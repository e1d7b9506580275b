import { Controller, Get } from '@nestjs/common';
import { MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { Query, Resolver } from '@nestjs/graphql';
import { MessagePattern } from '@nestjs/microservices';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { RateLimit } from '../decorators/rate-limit.decorator';
import { scanHandlers } from './limited-handlers';

const NOT_A_HANDLER =
  'is not an HTTP route, GraphQL resolver, WebSocket message handler or microservice ' +
  'handler: no guard runs on it, so it would never be limited';

@Controller('a')
class RoutesController {
  @Get()
  index(): string {
    return 'index';
  }

  @MessagePattern('a.count')
  count(): number {
    return 1;
  }

  @RateLimit({ limit: 1, window: '1m' })
  helper(): string {
    return 'helper';
  }
}

@WebSocketGateway()
class ChatGateway {
  @SubscribeMessage('say')
  say(): string {
    return 'said';
  }
}

@Resolver()
class BooksResolver {
  @Query(() => String)
  book(): string {
    return 'book';
  }
}

class DerivedResolver extends BooksResolver {}

@RateLimit({ limit: 1, window: '1m' })
class LimitedHelpers {
  tidy(): void {}
}

/** A wrapper as Nest builds one for a class provider (metatype = the class). */
const classWrapper = (cls: new () => object): InstanceWrapper =>
  ({ metatype: cls, instance: new cls() }) as unknown as InstanceWrapper;

const scan = (wrappers: InstanceWrapper[]) => scanHandlers(wrappers, new MetadataScanner());

describe('scanHandlers', () => {
  it('lists every handler of each class with its kind', () => {
    const { handlers, unlimitable } = scan([
      classWrapper(RoutesController),
      classWrapper(ChatGateway),
      classWrapper(BooksResolver),
    ]);

    expect(handlers).toEqual([
      { cls: RoutesController, handler: RoutesController.prototype.index, kind: 'http' },
      { cls: RoutesController, handler: RoutesController.prototype.count, kind: 'rpc' },
      { cls: ChatGateway, handler: ChatGateway.prototype.say, kind: 'ws' },
      { cls: BooksResolver, handler: BooksResolver.prototype.book, kind: 'graphql' },
    ]);
    expect(unlimitable).toEqual([{ where: 'RoutesController.helper', problem: NOT_A_HANDLER }]);
  });

  it('finds handlers inherited from a base class, under the subclass', () => {
    const { handlers } = scan([classWrapper(DerivedResolver)]);

    expect(handlers).toEqual([
      { cls: DerivedResolver, handler: BooksResolver.prototype.book, kind: 'graphql' },
    ]);
  });

  it('reports a limited class without handlers by its name', () => {
    expect(scan([classWrapper(LimitedHelpers)]).unlimitable).toEqual([
      { where: 'LimitedHelpers', problem: `(a class with @RateLimit()) ${NOT_A_HANDLER}` },
    ]);
  });

  it('scans a class once, however many providers it backs', () => {
    const { handlers, unlimitable } = scan([
      classWrapper(RoutesController),
      classWrapper(RoutesController),
    ]);

    expect(handlers).toHaveLength(2);
    expect(unlimitable).toHaveLength(1);
  });

  it('skips wrappers without an instance (not yet created, or a primitive value)', () => {
    const wrappers = [
      { metatype: RoutesController, instance: undefined },
      { metatype: null, instance: 'a string value' },
    ] as unknown as InstanceWrapper[];

    expect(scan(wrappers)).toEqual({ handlers: [], unlimitable: [] });
  });

  it('names the class of an instance made by a factory provider, not the factory', () => {
    const makeHelpers = (): object => new RoutesController();
    const wrapper = {
      metatype: makeHelpers,
      instance: makeHelpers(),
    } as unknown as InstanceWrapper;

    const { handlers, unlimitable } = scan([wrapper]);

    expect(handlers.map((h) => h.cls)).toEqual([RoutesController, RoutesController]);
    expect(unlimitable).toEqual([{ where: 'RoutesController.helper', problem: NOT_A_HANDLER }]);
  });

  it('scans a class instance given as a value provider (GraphQL serves its resolvers)', () => {
    const wrapper = { metatype: null, instance: new BooksResolver() } as InstanceWrapper;

    expect(scan([wrapper]).handlers).toEqual([
      { cls: BooksResolver, handler: BooksResolver.prototype.book, kind: 'graphql' },
    ]);
  });

  it('reports a class-level limit of a class made by a factory provider', () => {
    const wrapper = {
      metatype: () => new LimitedHelpers(),
      instance: new LimitedHelpers(),
    } as unknown as InstanceWrapper;

    expect(scan([wrapper]).unlimitable.map((u) => u.where)).toEqual(['LimitedHelpers']);
  });
});
