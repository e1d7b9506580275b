import { Test } from '@nestjs/testing';
import { FallbackStore } from '../service/fallback-store';
import { MemoryStore } from '../store/memory/memory-store';
import { RateLimitModule } from './rate-limit.module';

describe('RateLimitModule memoryMaxKeys', () => {
  it('caps both memory stores: the standalone one and the Redis fallback', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimitModule.forRoot({ memoryMaxKeys: 7 })],
    }).compile();
    try {
      expect(moduleRef.get(MemoryStore).keyspace.maxKeys).toBe(7);
      expect(moduleRef.get(FallbackStore).memory.keyspace.maxKeys).toBe(7);
    } finally {
      await moduleRef.close();
    }
  });
});
