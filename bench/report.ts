/** Turns the raw runs into medians, paired ratios, target verdicts and a markdown report. */
import { RATE_LIMIT_ALGORITHMS } from '../libs/rate-limit/src/policy/rate-limit-algorithm';
import { stackedScenario } from './http/ours-scenarios';
import { SCENARIOS } from './http/scenarios';
import { CONTENDERS } from './library/contenders';
import { renderLibraryCpu } from './report-library-cpu';
import type { BenchResults } from './bench-results';
import {
  counts,
  httpCostRatio,
  httpCpuRatio,
  httpRatio,
  libRatio,
  ONE,
  OVERRIDDEN_CLIENT,
  OVERRIDES_10K,
  ratio,
  TIERS,
  usec,
} from './report-ratios';
import { spread } from './support/stats';
import { targets } from './targets';

export type { BenchConfig, BenchResults } from './bench-results';
export { targets };

export function renderMarkdown(results: BenchResults): string {
  const { machine, config, http, library, memory } = results;
  const out: string[] = [];
  out.push(`# Rate limiter benchmark (${config.mode} run)`, '');
  out.push(`${results.startedAt} → ${results.finishedAt}`, '');
  out.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.kernel}; ` +
      `Node ${machine.node}; Redis ${machine.redis}; load average at start ${machine.loadAvgAtStart.join(' / ')}.`,
    '',
  );
  out.push(
    `HTTP: NestJS + express, one app per child process on loopback, autocannon ${config.http.connections} connections, ` +
      `${config.http.repetitions} interleaved repetitions × ${config.http.durationSec} s (after ${config.http.warmupSec} s warm-up, FLUSHALL before each run). ` +
      `Ratios are paired: computed within each repetition, then the median (min–max) over repetitions. ` +
      `Only ratios from the same run mean anything: absolute figures move 10-40 % between runs on a shared 2-core machine.`,
    '',
  );

  out.push('## Targets', '', '| target | measured (median) | |', '|---|---|---|');
  for (const t of targets(results))
    out.push(`| ${t.target} | ${t.measured} | ${t.pass ? 'pass' : '**FAIL**'} |`);
  out.push('');

  out.push(
    '## HTTP',
    '',
    '| scenario | req/s median (min–max) | p50 / p99 ms | Redis µs / request | app CPU µs / request | / bare (paired) |',
    '|---|---|---|---|---|---|',
  );
  for (const spec of SCENARIOS) {
    const runs = http.filter((r) => r.scenario === spec.name);
    if (runs.length === 0) continue;
    const rps = spread(runs.map((r) => r.rps));
    const p50 = spread(runs.map((r) => r.latencyP50)).median;
    const p99 = spread(runs.map((r) => r.latencyP99)).median;
    const problems = runs.filter((r) => r.problem).length;
    const note = problems ? ` ⚠ ${problems} run(s): ${runs.find((r) => r.problem)?.problem}` : '';
    out.push(
      `| ${spec.label}${note} | ${counts(rps)} | ${p50} / ${p99} | ${usec(spread(runs.map((r) => r.redisUsecPerRequest)).median)} | ${usec(spread(runs.map((r) => r.appUsecPerRequest)).median)} | ${spec.name === 'bare' ? '1.00x' : ratio(httpRatio(http, spec.name, 'bare'))} |`,
    );
  }
  out.push('');
  out.push('| ratio (paired, per repetition) | median (min–max) |', '|---|---|');
  out.push(`| ours 1 policy / bare | ${ratio(httpRatio(http, ONE, 'bare'))} |`);
  out.push(
    `| ours 1 policy / floor guard (one EVALSHA) | ${ratio(httpRatio(http, ONE, 'floor-guard'))} |`,
  );
  out.push(
    `| ours 1 policy / @nestjs/throttler + @nest-lab Redis storage | ${ratio(httpRatio(http, ONE, 'throttler-redis'))} |`,
  );
  out.push(
    `| ours 1 policy / @nestjs/throttler in-memory | ${ratio(httpRatio(http, ONE, 'throttler-memory'))} |`,
  );
  for (const algo of RATE_LIMIT_ALGORITHMS) {
    out.push(
      `| cost of 3 stacked / cost of 1 policy, ${algo} (= req/s 1 ÷ req/s 3) | ${ratio(httpRatio(http, `ours-${algo}`, stackedScenario(algo)))} |`,
      `| CPU (app + Redis) per request, 3 stacked / 1 policy, ${algo} | ${ratio(httpCostRatio(http, stackedScenario(algo), `ours-${algo}`))} |`,
    );
  }
  out.push(
    `| 1 policy with tiers (resolver answering 'pro') / plain 1 policy | ${ratio(httpRatio(http, TIERS, ONE))} |`,
  );
  out.push(
    `| plain 1 policy with 10,000 client overrides stored (none for this client) / plain 1 policy | ${ratio(httpRatio(http, OVERRIDES_10K, ONE))} |`,
  );
  out.push(
    `| plain 1 policy, this client has a quota override / plain 1 policy (information, no target) | ${ratio(httpRatio(http, OVERRIDDEN_CLIENT, ONE))} |`,
  );
  out.push(
    `| app CPU per request: tiers / plain 1 policy (the cost ratio; lower is cheaper) | ${ratio(httpCpuRatio(http, TIERS, ONE))} |`,
  );
  out.push(
    `| app CPU per request: 10,000 overrides stored / plain 1 policy | ${ratio(httpCpuRatio(http, OVERRIDES_10K, ONE))} |`,
  );
  out.push(
    `| app CPU per request: this client has a quota override / plain 1 policy | ${ratio(httpCpuRatio(http, OVERRIDDEN_CLIENT, ONE))} |`,
  );
  out.push(`| flood (429s) / bare | ${ratio(httpRatio(http, 'ours-flood', 'bare'))} |`);
  out.push(
    `| flood with shedRememberedRejections() (429s before routing) / bare | ${ratio(httpRatio(http, 'ours-flood-shed', 'bare'))} |`,
  );
  out.push(
    `| bare app answering 429 itself / bare (Nest's own cost of a 429) | ${ratio(httpRatio(http, 'bare-429', 'bare'))} |`,
  );
  out.push(
    `| flood (429s) / bare app answering 429 itself (the limiter's own cost) | ${ratio(httpRatio(http, 'ours-flood', 'bare-429'))} |`,
  );
  out.push(
    `| flood with the shedder / flood through the guard | ${ratio(httpRatio(http, 'ours-flood-shed', 'ours-flood'))} |`,
  );
  out.push('');

  const inflights = [...new Set(library.map((r) => r.inflight))].sort((a, b) => a - b);
  out.push(
    '## Library: calls per second',
    '',
    `${config.library.repetitions} interleaved repetition(s) × ${config.library.durationMs} ms per cell ` +
      `(after ${config.library.warmupMs} ms warm-up, FLUSHALL before each), one ioredis connection per contender. ` +
      `ours = \`RateLimiterService.consume()\` (fixed-window); floor = \`evalsha\` of \`${"return redis.call('INCR', KEYS[1])"}\`; ` +
      `rate-limiter-flexible = \`RateLimiterRedis.consume()\`; @nest-lab = \`ThrottlerStorageRedisService.increment()\`.`,
    '',
  );
  out.push(
    `| keys | in flight | ${CONTENDERS.join(' | ')} | ours / rate-limiter-flexible | ours / floor | ours / @nest-lab |`,
    `|---|---|${CONTENDERS.map(() => '---|').join('')}---|---|---|`,
  );
  for (const keys of ['hot key', '10,000 keys'] as const) {
    for (const inflight of inflights) {
      const cells = CONTENDERS.map((c) =>
        counts(
          spread(
            library
              .filter((r) => r.keys === keys && r.inflight === inflight && r.contender === c)
              .map((r) => r.opsPerSec),
          ),
        ),
      );
      out.push(
        `| ${keys} | ${inflight} | ${cells.join(' | ')} | ${ratio(libRatio(library, keys, inflight, 'ours', 'rate-limiter-flexible'))} | ` +
          `${ratio(libRatio(library, keys, inflight, 'ours', 'floor'))} | ${ratio(libRatio(library, keys, inflight, 'ours', 'nest-lab'))} |`,
      );
    }
  }
  out.push('');
  out.push(
    // Per in-flight level: batching divides Redis's cost per call, so a median over the levels
    // would hide what a lone call costs.
    `Redis command time per call (µs, INFO commandstats, median over repetitions) at ${inflights.join(' / ')} in flight: ` +
      (['hot key', '10,000 keys'] as const)
        .map(
          (keys) =>
            `${keys}: ` +
            CONTENDERS.map(
              (c) =>
                `${c} ` +
                inflights
                  .map((inflight) =>
                    usec(
                      spread(
                        library
                          .filter(
                            (r) => r.keys === keys && r.contender === c && r.inflight === inflight,
                          )
                          .map((r) => r.redisUsecPerOp),
                      ).median,
                    ),
                  )
                  .join(' / '),
            ).join(', '),
        )
        .join('; ') +
      '.',
  );
  const libErrors = library.reduce((n, r) => n + r.errors, 0);
  out.push('', ...renderLibraryCpu(library));
  out.push(
    `Errors during library runs: ${libErrors}; decisions of ours not made by Redis (timeout fallback): ${results.libraryOursNotFromRedis}.`,
    '',
  );

  out.push(
    '## Redis memory per client',
    '',
    `${config.memoryClients.toLocaleString('en-US')} clients, one request each (limit ${100} per 1 h, nothing expires during the measurement). ` +
      '`used_memory` delta ÷ clients includes the key, value, TTL and dict overhead; "state" leaves out the change of client buffers and of the instance\'s own keys (heartbeat, stats and traffic series its background flush writes meanwhile, by MEMORY USAGE), which do not grow with clients; MEMORY USAGE is one key (SAMPLES 0).',
    '',
    '| limiter | B per client: state | B per client (used_memory delta) | same, excluding client buffers | instance keys written meanwhile | keys created | MEMORY USAGE of one key | sample key |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const m of memory) {
    out.push(
      `| ${m.contender} | **${m.stateBytesPerClient.toFixed(1)}** | ${m.bytesPerClient.toFixed(1)} | ${((m.usedMemoryDelta - m.clientBuffersDelta) / m.clients).toFixed(1)} | ${m.instanceKeysDelta.toLocaleString('en-US')} B | ${m.keysCreated.toLocaleString('en-US')} | ${m.sampleKeyMemoryUsage} B | \`${m.sampleKey}\` |`,
    );
  }
  out.push('');
  return out.join('\n');
}
