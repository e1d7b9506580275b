/** The raw runs of one benchmark and the configuration they ran with. */
import type { HttpRun } from './http/http-bench';
import type { LibraryRun } from './library/library-bench';
import type { MemoryRun } from './library/memory-bench';
import type { Machine } from './support/machine';

export interface BenchConfig {
  readonly mode: 'full' | 'quick';
  readonly http: {
    repetitions: number;
    durationSec: number;
    warmupSec: number;
    connections: number;
  };
  readonly library: {
    repetitions: number;
    durationMs: number;
    warmupMs: number;
    inflight: number[];
    keyCount: number;
  };
  readonly memoryClients: number;
  /** Pause before each used_memory reading, so Redis can shrink the client buffers. */
  readonly memorySettleMs: number;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: Machine;
  readonly config: BenchConfig;
  readonly http: HttpRun[];
  readonly library: LibraryRun[];
  readonly libraryOursNotFromRedis: number;
  readonly memory: MemoryRun[];
}
