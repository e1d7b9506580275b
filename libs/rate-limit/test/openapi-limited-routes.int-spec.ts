import { Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ApiOkResponse,
  ApiProperty,
  ApiTooManyRequestsResponse,
  DocumentBuilder,
  SwaggerModule,
  type OpenAPIObject,
} from '@nestjs/swagger';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { SkipRateLimit } from '../src/decorators/skip-rate-limit.decorator';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { documentRateLimits } from '../src/openapi/document-rate-limits';

const LIMIT = { limit: 5, window: '10s' } as const;
const THROTTLED = { $ref: '#/components/schemas/RateLimitExceeded' };
const STANDARD = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

class ItemDto {
  @ApiProperty()
  id!: string;
}

class Custom429Dto {
  @ApiProperty()
  reason!: string;
}

// Decorators run bottom-up: each order of @RateLimit() and Nest's/Swagger's own is tried.
@Controller('m')
class MethodLevelController {
  @Get('plain')
  @RateLimit(LIMIT)
  plain() {}

  @RateLimit(LIMIT)
  @Post('created')
  created() {}

  @Put('no-content')
  @RateLimit(LIMIT)
  @HttpCode(204)
  noContent() {}

  @Get('typed-above')
  @ApiOkResponse({ type: ItemDto, description: 'The item' })
  @RateLimit(LIMIT)
  typedAbove() {}

  @Get('typed-below')
  @RateLimit(LIMIT)
  @ApiOkResponse({ type: ItemDto, description: 'The item' })
  typedBelow() {}

  @Get('own-429')
  @RateLimit(LIMIT)
  @ApiTooManyRequestsResponse({ type: Custom429Dto, description: 'Slow down' })
  own429() {}

  @Get('opted-out')
  @RateLimit({ ...LIMIT, openApi: false })
  optedOut() {}

  @Get('one-of-two')
  @RateLimit({ ...LIMIT, name: 'hidden', openApi: false })
  @RateLimit({ ...LIMIT, name: 'shown' })
  oneOfTwo() {}

  @Get('free')
  free() {}
}

@Controller('c')
@RateLimit({ ...LIMIT, name: 'class-wide' })
class ClassLevelController {
  @Get('limited')
  limited() {}

  @Get('exempt')
  @SkipRateLimit()
  exempt() {}

  helper() {}
}

@SkipRateLimit()
@RateLimit(LIMIT)
@Controller('s')
class ExemptController {
  @Get('x')
  x() {}
}

/**
 * The document of an app with the module (memory store), completed by documentRateLimits() as
 * the OpenAPI entry point's users do: nothing is written into Swagger's metadata beforehand.
 */
async function documentOf(openapi = '3.0.0'): Promise<OpenAPIObject> {
  const moduleRef = await Test.createTestingModule({
    imports: [RateLimitModule.forRoot({})],
    controllers: [MethodLevelController, ClassLevelController, ExemptController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    const config = new DocumentBuilder().setOpenAPIVersion(openapi).build();
    return documentRateLimits(SwaggerModule.createDocument(app, config), app);
  } finally {
    await app.close();
  }
}

type Operation = Record<string, unknown> & {
  responses: Record<string, { description: string; headers?: object; content?: object }>;
};

let doc: OpenAPIObject;
const op = (path: string, method = 'get') => (doc.paths[path] as Record<string, Operation>)[method];
const bodyOf = (path: string, status: string, method = 'get') =>
  (op(path, method).responses[status].content as Record<string, { schema: unknown }> | undefined)?.[
    'application/json'
  ]?.schema;
const headersOf = (path: string, status: string, method = 'get') =>
  Object.keys(op(path, method).responses[status].headers ?? {});

beforeAll(async () => {
  doc = await documentOf();
});

describe('@RateLimit() in the OpenAPI document', () => {
  it('keeps the default 200 of a plain handler, with the headers, and adds the 429', () => {
    expect(Object.keys(op('/m/plain').responses).sort()).toEqual(['200', '429']);
    expect(headersOf('/m/plain', '200')).toEqual(STANDARD);
    expect(headersOf('/m/plain', '429')).toEqual([...STANDARD, 'Retry-After']);
    expect(bodyOf('/m/plain', '429')).toEqual(THROTTLED);
    expect(op('/m/plain')['x-rate-limit-policies']).toEqual(['MethodLevelController.plain']);
  });

  it('describes the 429 body as the guard sends it', () => {
    expect(doc.components?.schemas?.RateLimitExceeded).toEqual({
      type: 'object',
      description: expect.any(String),
      properties: {
        statusCode: { type: 'integer', enum: [429], example: 429 },
        message: { type: 'string', description: expect.any(String), example: 'Too Many Requests' },
        policy: { type: 'string', description: expect.any(String), example: 'demo.gcra' },
        retryAfter: {
          type: 'integer',
          minimum: 0,
          description: expect.any(String),
          example: 7,
        },
      },
      required: ['statusCode', 'message', 'policy', 'retryAfter'],
    });
  });

  it('keeps the default status of POST (201) and of @HttpCode()', () => {
    expect(Object.keys(op('/m/created', 'post').responses).sort()).toEqual(['201', '429']);
    expect(headersOf('/m/created', '201', 'post')).toEqual(STANDARD);
    expect(Object.keys(op('/m/no-content', 'put').responses).sort()).toEqual(['204', '429']);
  });

  it.each(['/m/typed-above', '/m/typed-below'])(
    'keeps a declared success response and its body (%s)',
    (path) => {
      expect(op(path).responses['200'].description).toBe('The item');
      expect(bodyOf(path, '200')).toEqual({ $ref: '#/components/schemas/ItemDto' });
      expect(headersOf(path, '200')).toEqual(STANDARD);
      expect(bodyOf(path, '429')).toEqual(THROTTLED);
    },
  );

  it('keeps a 429 the handler declares, adding the headers', () => {
    expect(op('/m/own-429').responses['429'].description).toBe('Slow down');
    expect(bodyOf('/m/own-429', '429')).toEqual({ $ref: '#/components/schemas/Custom429Dto' });
    expect(headersOf('/m/own-429', '429')).toEqual([...STANDARD, 'Retry-After']);
  });

  it('leaves out a route whose policies all say openApi: false, and unlimited routes', () => {
    for (const path of ['/m/opted-out', '/m/free', '/c/exempt', '/s/x']) {
      expect(Object.keys(op(path).responses)).toEqual(['200']);
      expect(op(path).responses['200'].headers).toBeUndefined();
      expect(op(path)['x-rate-limit-policies']).toBeUndefined();
    }
  });

  it('documents a route with one shown policy, naming only that one', () => {
    expect(bodyOf('/m/one-of-two', '429')).toEqual(THROTTLED);
    expect(op('/m/one-of-two')['x-rate-limit-policies']).toEqual(['shown']);
  });

  it('documents every route of a limited controller but the exempt one', () => {
    expect(bodyOf('/c/limited', '429')).toEqual(THROTTLED);
    expect(op('/c/limited')['x-rate-limit-policies']).toEqual(['class-wide']);
  });

  it("writes nothing into Swagger's metadata: @RateLimit() alone needs no @nestjs/swagger", () => {
    for (const handler of [
      MethodLevelController.prototype.plain,
      ClassLevelController.prototype.limited,
    ]) {
      expect(
        Reflect.getMetadataKeys(handler).filter((key) => String(key).startsWith('swagger/')),
      ).toEqual([]);
    }
  });

  it('gives OpenAPI 3.1 the same responses', async () => {
    const doc31 = await documentOf('3.1.0');
    const plain = (doc31.paths['/m/plain'] as Record<string, Operation>).get;
    expect(plain.responses).toEqual(op('/m/plain').responses);
  });
});
