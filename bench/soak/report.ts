/** Markdown of a soak run (printed, and written to bench/results/soak-latest.md). */
import type { Machine } from '../support/machine';
import type { CheckSummary } from './over-admission';
import type { SoakPolicy } from './policies';
import type { LoadConfig, LoadTotals } from './protocol';
import { healthTable, mb, n0, row, trafficTable } from './report-tables';
import type { Sample } from './sampler';
import type { Criterion, Growth } from './verdict';

export interface Drain {
  /** Seconds after the traffic stopped; client keys (SCAN) and DBSIZE. */
  readonly polls: readonly { t: number; clientKeys: number; dbsize: number }[];
  readonly secondsToZero?: number;
  /** Each instance's RSS once the keys had expired, still running but idle. */
  readonly idleRssBytes: readonly number[];
  /** After the instances stopped: every other key under the prefix, with its TTL. */
  readonly bookkeeping: readonly { key: string; type: string; ttlMs: number }[];
}

export interface SoakResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: Machine;
  readonly options: { durationSec: number; warmupSec: number; sampleSec: number };
  readonly load: Omit<LoadConfig, 'targets'>;
  readonly samples: readonly Sample[];
  readonly totals: LoadTotals;
  readonly check: CheckSummary;
  readonly growths: readonly Growth[];
  readonly drain: Drain;
  readonly criteria: readonly Criterion[];
}

function policyLine(p: SoakPolicy): string {
  const bucket = ['token-bucket', 'leaky-bucket', 'gcra'].includes(p.algo);
  return `\`${p.algo}\` ${p.limit} per ${p.windowMs / 1000} s${bucket ? `, burst ${p.burst}` : ''}`;
}

function header(r: SoakResults): string[] {
  const { machine: m, load, options: o } = r;
  return [
    `# Soak benchmark — ${r.startedAt}`,
    '',
    `${m.cpu} x${m.cores}, ${m.memoryGiB} GiB, ${m.kernel}, Node ${m.node}, redis-server ${m.redis};` +
      ` load average at start ${m.loadAvgAtStart.join(' ')}.`,
    `Two demo instances, ${o.durationSec} s of traffic, ${load.inflight} requests in flight,` +
      ` ${n0(load.identities)} clients (Zipf ${load.zipf}), sampled every ${o.sampleSec} s;` +
      ` growth measured from the end of warm-up at ${o.warmupSec} s.`,
    `Policies: ${load.policies.map(policyLine).join('; ')}.`,
  ];
}

function summary(r: SoakResults): string[] {
  const { totals } = r;
  const errorCount = Object.values(totals.errors).reduce((a, b) => a + b, 0);
  const errors = Object.entries(totals.errors).map(([code, count]) => `${code}: ${count}`);
  const last = r.samples[r.samples.length - 1];
  const fault = (kind: keyof Sample['instances'][number]['faults']) =>
    last.instances.reduce((sum, i) => sum + i.faults[kind], 0);
  return [
    `Requests: ${n0(totals.responses + errorCount)} in ${last.t} s (${n0((totals.responses + errorCount) / last.t)} req/s),` +
      ` ${n0(totals.ok)} × 200, ${n0(totals.limited)} × 429; errors: ${errors.join(', ') || 'none'}.` +
      ` ${n0(last.identitiesSeen)} distinct clients sent requests.`,
    `Limiter faults, both instances: ${fault('fallback')} fallback decisions,` +
      ` ${fault('redisErrors')} Redis command errors or timeouts, ${fault('circuitOpenings')} breaker openings.`,
    `The over-admission check held ${n0(r.check.trackedRequests)} admitted requests of` +
      ` ${n0(r.check.trackedKeys)} client keys at the end (it keeps 3 windows).`,
  ];
}

function checkTable(r: SoakResults): string[] {
  return [
    row([
      'algorithm',
      '200',
      '429',
      'checked',
      'over-admissions',
      'over loose bound',
      'max excess',
      'examples',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    ...Object.entries(r.check.byAlgo).map(([algo, c]) =>
      row([
        algo,
        n0(c.admitted),
        n0(r.totals.byAlgo[algo]?.limited ?? 0),
        n0(c.checked),
        c.overAdmissions,
        c.overLoose,
        c.maxExcess,
        c.examples
          .map((e) => `client ${e.identity}: ${e.count} > ${e.bound} in ${e.spanMs} ms at ${e.at}`)
          .join('; '),
      ]),
    ),
  ];
}

function drainLines(r: SoakResults): string[] {
  const { drain } = r;
  return [
    `Client keys (\`<prefix>:{*\`, by SCAN) / DBSIZE, seconds after the last response: ` +
      drain.polls.map((p) => `${p.t} s: ${p.clientKeys} / ${p.dbsize}`).join(', ') +
      '.',
    drain.secondsToZero === undefined
      ? '**Client keys did NOT reach 0.**'
      : `Client keys reached 0 after ${drain.secondsToZero} s.` +
        ` Idle RSS of the instances then: ${drain.idleRssBytes.map((b) => `${mb(b)} MB`).join(', ')}.`,
    '',
    'Bookkeeping keys left after the instances stopped (per policy or per fleet, not per client):',
    '',
    ...drain.bookkeeping.map(
      (k) => `- \`${k.key}\` (${k.type}, ${k.ttlMs < 0 ? 'no TTL' : `TTL ${k.ttlMs} ms`})`,
    ),
  ];
}

export function renderSoak(r: SoakResults): string {
  return [
    ...header(r),
    '',
    '## Verdict',
    '',
    row(['criterion', 'figure', 'pass']),
    row(['---', '---:', ':---:']),
    ...r.criteria.map((c) => row([c.name, c.figure, c.pass ? 'yes' : '**NO**'])),
    '',
    ...summary(r),
    '',
    '## Over-admission check',
    '',
    ...checkTable(r),
    '',
    '## Traffic and memory',
    '',
    ...trafficTable(r.samples),
    '',
    '## Growth after warm-up',
    '',
    row(['series', 'end of warm-up (median)', 'end of run (median)', 'growth', 'endpoint growth']),
    row(['---', '---:', '---:', '---:', '---:']),
    ...r.growths.map((g) =>
      row([
        g.what,
        `${mb(g.reference)} MB`,
        `${mb(g.last)} MB`,
        `${g.growthPct.toFixed(2)} %`,
        `${g.endpointGrowthPct.toFixed(2)} %`,
      ]),
    ),
    '',
    '## CPU and Redis health',
    '',
    ...healthTable(r.samples),
    '',
    '## After the traffic',
    '',
    ...drainLines(r),
    '',
  ].join('\n');
}
