/**
 * PINGs Redis every 20 ms on a connection of its own, from the soak's mostly idle process, and
 * keeps the slowest round trip per sample. When the instances report command timeouts (100 ms),
 * this tells a Redis that really answered late (a probe as slow) from an instance whose own
 * event loop was too busy to read a reply in time (a fast probe).
 */
import { Redis } from 'ioredis';

const INTERVAL_MS = 20;

export interface RedisProbe {
  /** The slowest PING round trip since the previous call, in ms, and how many were over 100 ms. */
  take(): { maxMs: number; over100: number };
  stop(): Promise<void>;
}

export function startRedisProbe(url: string): RedisProbe {
  const redis = new Redis(url);
  let maxMs = 0;
  let over100 = 0;
  let running = true;
  const loop = async () => {
    while (running) {
      const sent = performance.now();
      await redis.ping().catch(() => undefined);
      const rtt = performance.now() - sent;
      maxMs = Math.max(maxMs, rtt);
      if (rtt > 100) over100++;
      await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    }
  };
  const done = loop();
  return {
    take() {
      const taken = { maxMs: Math.round(maxMs), over100 };
      maxMs = 0;
      over100 = 0;
      return taken;
    },
    async stop() {
      running = false;
      await done;
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
