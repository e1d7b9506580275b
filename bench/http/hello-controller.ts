import { applyDecorators, Controller, Get, type Type } from '@nestjs/common';

/** The one route of every scenario app, GET /hello answering 'ok', under the given decorators. */
export function helloController(...decorators: MethodDecorator[]): Type {
  @Controller()
  class BenchController {
    @Get('hello')
    @applyDecorators(...decorators)
    hello(): string {
      return 'ok';
    }
  }
  return BenchController;
}
