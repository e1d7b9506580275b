import { Controller, Get, Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';

@Injectable()
class GreetingService {
  greet(): string {
    return 'hello';
  }
}

@Controller('boot')
class BootController {
  // Constructor injection proves decorator metadata (design:paramtypes) survives the SWC transform.
  constructor(private readonly greetings: GreetingService) {}

  @Get()
  get(): { greeting: string } {
    return { greeting: this.greetings.greet() };
  }
}

describe('Nest 12 testing module under Jest', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [BootController],
      providers: [GreetingService],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serves a route through the express adapter', async () => {
    const res = await request(app.getHttpServer()).get('/boot').expect(200);
    expect(res.body).toEqual({ greeting: 'hello' });
  });
});
