/**
 * Client overrides a scenario app stores before it is measured, written through the library's
 * own `ClientOverrides.set` (the client's key, the index, the announcement), as an operator
 * would. The app writes them at bootstrap and reports ready only once they are all written; the
 * benchmark then keeps them across the FLUSHALL before each run (stored-overrides.ts).
 */
import { Inject, Injectable, type OnApplicationBootstrap, type Provider } from '@nestjs/common';
import { type ClientOverride, ClientOverrides } from '../../libs/rate-limit/src';

export interface SeededOverride {
  /** As the guard sees the client, e.g. `ip:10.0.3.7`. */
  readonly identity: string;
  readonly override: ClientOverride;
}

interface SeedPlan {
  readonly policy: string;
  readonly overrides: readonly SeededOverride[];
}

const SEED_PLAN = Symbol('SEED_PLAN');

/** Concurrent `set` calls: each is three Redis round trips (key, index, PUBLISH). */
const CHUNK = 300;

@Injectable()
export class ClientOverrideSeeder implements OnApplicationBootstrap {
  constructor(
    private readonly clientOverrides: ClientOverrides,
    @Inject(SEED_PLAN) private readonly plan: SeedPlan,
  ) {}

  /** Writes every override of the plan, CHUNK at a time. */
  async onApplicationBootstrap(): Promise<void> {
    const { policy, overrides } = this.plan;
    for (let i = 0; i < overrides.length; i += CHUNK) {
      await Promise.all(
        overrides
          .slice(i, i + CHUNK)
          .map(({ identity, override }) => this.clientOverrides.set(policy, identity, override)),
      );
    }
  }
}

/** The providers that store `overrides` under `policy` (add them to the app's module). */
export function seedClientOverrides(
  policy: string,
  overrides: readonly SeededOverride[],
): Provider[] {
  return [{ provide: SEED_PLAN, useValue: { policy, overrides } }, ClientOverrideSeeder];
}

const OTHER_CLIENTS_OVERRIDES: readonly ClientOverride[] = [
  { action: 'quota', limit: 100 },
  { action: 'allow' },
  { action: 'deny', message: 'Denied by the benchmark' },
];

/**
 * `count` overrides, in turn a quota, allow and deny, for clients ip:10.a.b.c: never the
 * benchmark's client (127.0.0.1), which keeps reading a missing key.
 */
export function otherClientsOverrides(count: number): SeededOverride[] {
  return Array.from({ length: count }, (_, i) => ({
    identity: `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    override: OTHER_CLIENTS_OVERRIDES[i % OTHER_CLIENTS_OVERRIDES.length],
  }));
}
