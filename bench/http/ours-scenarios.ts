/**
 * The scenario apps guarded by our RateLimitGuard: one policy of each algorithm, three stacked
 * policies, a flood, and the plain fixed-window policy with tiers or with client overrides.
 */
import { type DynamicModule, type INestApplication, Module, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  RATE_LIMIT_ALGORITHMS,
  RateLimit,
  type RateLimitAlgorithm,
  RateLimitGuard,
  RateLimitModule,
  type RateLimitOptions,
} from '../../libs/rate-limit/src';
import { shedRememberedRejections } from '../../libs/rate-limit/src/shedder';
import { helloController } from './hello-controller';
import { otherClientsOverrides, seedClientOverrides } from './override-seeder';
import type { ScenarioSpec } from './scenarios';

/** Limits that are never reached in a run: every request is admitted. */
const ALL_ALLOWED = { limit: 1_000_000_000, window: '1h' } as const;
const SLIDING_LOG_ALL_ALLOWED = { limit: 10_000, window: '1s' } as const;
/**
 * Also never reached, and other than the policy's: the RateLimit-Limit header then shows that
 * the tier's (or the override's) thresholds decided.
 */
const TIER_ALL_ALLOWED = 900_000_000;
const OVERRIDE_ALL_ALLOWED = 800_000_000;
/** The plain policy (scenario `ours-fixed-window`), which the tier and override scenarios vary. */
const PLAIN = 'ours-fixed-window';
const ONE: RateLimitOptions = { name: 'one', algo: 'fixed-window', ...ALL_ALLOWED };
/** The identity of the benchmark's client (autocannon on 127.0.0.1) under `key: 'ip'`. */
const BENCH_CLIENT = 'ip:127.0.0.1';
const OVERRIDES_STORED = 10_000;
/** Own key prefixes: own override keys, and an announcement channel of their own. */
const OVERRIDES_10K_PREFIX = 'bench-overrides';
const OVERRIDDEN_CLIENT_PREFIX = 'bench-overridden';

const algoScenarios: ScenarioSpec[] = RATE_LIMIT_ALGORITHMS.map((algo) => ({
  name: `ours-${algo}`,
  label: `ours, 1 policy, ${algo}${algo === 'fixed-window' ? ' (= "one policy")' : ''}`,
  expect: 'allowed',
}));

/** Compared with the plain policy: run right after it, so that each pair is close in time. */
const plainPolicyVariants: ScenarioSpec[] = [
  {
    name: 'ours-tiers',
    label: "ours, 1 policy with tiers pro + enterprise, resolver answering 'pro' (fixed-window)",
    expect: 'allowed',
  },
  {
    name: 'ours-overrides-10k',
    label: `ours, 1 policy, ${OVERRIDES_STORED.toLocaleString('en-US')} client overrides stored, none for this client (fixed-window)`,
    expect: 'allowed',
    overridesPrefix: OVERRIDES_10K_PREFIX,
  },
  {
    name: 'ours-overridden-client',
    label: 'ours, 1 policy, this client has a quota override (fixed-window)',
    expect: 'allowed',
    overridesPrefix: OVERRIDDEN_CLIENT_PREFIX,
  },
];

export const OURS_SCENARIOS: readonly ScenarioSpec[] = [
  ...algoScenarios.filter((s) => s.name === PLAIN),
  ...plainPolicyVariants,
  ...algoScenarios.filter((s) => s.name !== PLAIN),
  ...RATE_LIMIT_ALGORITHMS.map((algo): ScenarioSpec => ({
    name: stackedScenario(algo),
    label: `ours, 3 stacked policies (${algo})`,
    expect: 'allowed',
  })),
  { name: 'ours-flood', label: 'ours, flood: 1 client far over its limit', expect: 'rejected' },
  {
    name: 'ours-flood-shed',
    label: 'ours, the same flood with shedRememberedRejections() (429s before routing)',
    expect: 'rejected',
  },
];

/** The scenario with three policies of `algo` on one route (one identity, one script call). */
export function stackedScenario(algo: RateLimitAlgorithm): string {
  return `ours-stacked-3-${algo}`;
}

/**
 * Three policies of one algorithm: per minute, hour and day, never reached. A sliding log holds
 * at most 10,000 entries, so its three are each its single-policy scenario's (10,000 per 1 s, above
 * what one process serves here), under three names.
 */
function stackedPolicies(algo: RateLimitAlgorithm): RateLimitOptions[] {
  if (algo === 'sliding-window') {
    return ['a', 'b', 'c'].map((n) => ({ name: `per-1s-${n}`, algo, ...SLIDING_LOG_ALL_ALLOWED }));
  }
  return (['1m', '1h', '1d'] as const).map((window) => ({
    name: `per-${window}`,
    algo,
    limit: ALL_ALLOWED.limit,
    window,
  }));
}

/** The flood's one policy: the first request admitted (in the warm-up), every later one 429. */
const FLOOD: RateLimitOptions = { name: 'flood', algo: 'fixed-window', limit: 1, window: '1h' };

/** What an `ours-*` scenario's app needs before it listens: the shedder, for the shed flood. */
export function prepareOursApp(name: string, app: INestApplication): void {
  if (name === 'ours-flood-shed') shedRememberedRejections(app);
}

function oursModule(
  redisUrl: string,
  policies: RateLimitOptions[],
  keyPrefix = 'bench',
  providers: Provider[] = [],
): DynamicModule {
  @Module({})
  class OursBenchModule {}
  return {
    module: OursBenchModule,
    imports: [RateLimitModule.forRoot({ redis: redisUrl, keyPrefix })],
    controllers: [helloController(...policies.map((p) => RateLimit(p)))],
    providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }, ...providers],
  };
}

/**
 * The app of an `ours-*` scenario, or undefined for another name. The tier and override apps
 * each have their own key prefix (so their own override keys and announcement channel).
 */
export function oursScenarioModule(name: string, redisUrl: string): DynamicModule | undefined {
  switch (name) {
    case 'ours-flood':
    case 'ours-flood-shed':
      return oursModule(redisUrl, [FLOOD]);
    case 'ours-tiers':
      return oursModule(
        redisUrl,
        [
          {
            ...ONE,
            tiers: { pro: { limit: TIER_ALL_ALLOWED }, enterprise: { limit: ALL_ALLOWED.limit } },
            tier: () => 'pro',
          },
        ],
        'bench-tiers',
      );
    case 'ours-overrides-10k':
      return oursModule(
        redisUrl,
        [ONE],
        OVERRIDES_10K_PREFIX,
        seedClientOverrides('one', otherClientsOverrides(OVERRIDES_STORED)),
      );
    case 'ours-overridden-client':
      return oursModule(
        redisUrl,
        [ONE],
        OVERRIDDEN_CLIENT_PREFIX,
        seedClientOverrides('one', [
          { identity: BENCH_CLIENT, override: { action: 'quota', limit: OVERRIDE_ALL_ALLOWED } },
        ]),
      );
  }
  const stacked = /^ours-stacked-3-(.+)$/.exec(name)?.[1];
  if (stacked && (RATE_LIMIT_ALGORITHMS as readonly string[]).includes(stacked)) {
    return oursModule(redisUrl, stackedPolicies(stacked as RateLimitAlgorithm));
  }
  const algo = /^ours-(.+)$/.exec(name)?.[1];
  if (algo && (RATE_LIMIT_ALGORITHMS as readonly string[]).includes(algo)) {
    // A sliding log keeps one entry per request, so its limit is at most 10,000: per second,
    // above what one process serves here (about 7,300 req/s), so every request is admitted.
    const thresholds = algo === 'sliding-window' ? SLIDING_LOG_ALL_ALLOWED : ALL_ALLOWED;
    return oursModule(redisUrl, [{ name: 'one', algo: algo as RateLimitAlgorithm, ...thresholds }]);
  }
  return undefined;
}
