import { Test } from '@nestjs/testing';
import { FallbackStore } from '../src/engine/fallback-store';
import { type MemoryStore } from '../src/store/memory/memory-store';
import { RateLimitModule } from '../src/module/rate-limit.module';
import { RATE_LIMIT_STORE } from '../src/rate-limit.constants';

describe('RateLimitModule memoryMaxKeys', () => {
  it('caps both memory stores: the standalone one and the Redis fallback', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot({ memoryMaxKeys: 7 })],
    }).compile();
    try {
      expect(moduleRef.get<MemoryStore>(RATE_LIMIT_STORE).keyspace.maxKeys).toBe(7);
      expect(moduleRef.get(FallbackStore).memory.keyspace.maxKeys).toBe(7);
    } finally {
      await moduleRef.close();
    }
  });
});
