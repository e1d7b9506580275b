/**
 * Adaptive protection end to end (SPEC section 15, issue 28's acceptance): three demo processes
 * on one Redis, a route that burns CPU behind a per-client limit with tiers, an open-loop load
 * generator in its own process. C, the fleet's capacity, is measured first with adaptive off:
 * the rate at which the route's p99 reaches 3x its unloaded value. Then, with it enforced:
 * 3x C for 60 s (goodput, latency, tiers), back to 0.5x C (multipliers back to 1), a 300 ms
 * event-loop block every 10 s at 0.5x C (no adaptive rejection), and the leader killed while
 * shedding (handover time, level before and after). `npm run bench:adaptive` (about 6
 * minutes; ADAPTIVE_WORK_MS sets the route's work, 10 ms by default).
 */
import type { Fleet } from '../../test/support/demo-fleet';
import { buildDemoCopy } from '../soak/demo-instances';
import { startRedis } from '../support/redis-server';
import { runBenchmark } from '../support/processes';
import {
  adaptiveView,
  okLatencies,
  quantile,
  startAdaptiveFleet,
  startOpenLoop,
  type AdaptiveView,
} from './adaptive-fleet';
import type { OpenLoopSecond } from './open-loop-protocol';

/**
 * The route's CPU work per request. Shedding pays only where a rejection costs much less than
 * the work it saves: at 3 ms, 3x C of rejections through Nest alone took the 2 cores this ran on.
 */
const WORK_MS = Number(process.env.ADAPTIVE_WORK_MS ?? 10);
const PATH = `/load-test/work?ms=${WORK_MS}`;
const CLIENTS_PER_TIER = 40;
const FREE_FLOOR = 0.1;

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const line = (text: string) => console.log(text);

/** Samples every instance's adaptive metrics every `everyMs` until stopped. */
function sampleViews(fleet: Fleet, everyMs: number) {
  const samples: { atMs: number; views: (AdaptiveView | undefined)[] }[] = [];
  const started = performance.now();
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const views = await Promise.all(fleet.instances.map(adaptiveView));
      samples.push({ atMs: performance.now() - started, views });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function main(): Promise<void> {
  const demo = await buildDemoCopy();
  const redis = await startRedis();
  const loop = await startOpenLoop();
  let fleet = await startAdaptiveFleet(demo.main, redis.url, 'off');
  const run = (rate: number, seconds: number): Promise<OpenLoopSecond[]> =>
    loop.run({
      targets: fleet.targets,
      path: PATH,
      rate: Math.round(rate),
      durationMs: seconds * 1_000,
      clientsPerTier: CLIENTS_PER_TIER,
    });

  // 1. Capacity, adaptive off.
  await run(40, 5); // JIT and keep-alive connections
  const unloadedP99 = quantile(okLatencies(await run(20, 10)), 0.99);
  line(`work ${WORK_MS} ms; unloaded p99 ${unloadedP99.toFixed(1)} ms (20 rps, adaptive off)`);
  let capacity = 0;
  for (let rate = 40; rate <= 5_000; rate = Math.round(rate * 1.15)) {
    const seconds = await run(rate, 4);
    const p99 = quantile(okLatencies(seconds.slice(1)), 0.99);
    line(
      `  ${rate} rps: p99 ${p99.toFixed(1)} ms, goodput ${sum(seconds.map((s) => s.good)) / 4}/s`,
    );
    if (p99 >= 3 * unloadedP99) {
      capacity = rate;
      break;
    }
  }
  if (capacity === 0) throw new Error('no capacity found up to 5,000 rps');
  line(`C = ${capacity} rps`);
  await fleet.stop();

  // 2. Enforced.
  fleet = await startAdaptiveFleet(demo.main, redis.url, 'enforce');
  await run(0.5 * capacity, 12); // past the 10 s warm-up
  const halfP99 = quantile(okLatencies(await run(0.5 * capacity, 10)), 0.99);
  line(`p99 at 0.5x C: ${halfP99.toFixed(1)} ms`);

  const overloadViews = sampleViews(fleet, 1_000);
  const overload = await run(3 * capacity, 60);
  await overloadViews.stop();
  const goodput = overload.map((s) => s.good);
  let reachedAt = goodput.length;
  while (reachedAt > 0 && goodput[reachedAt - 1] >= 0.8 * capacity) reachedAt--;
  const steadyP99 = quantile(okLatencies(overload.slice(10)), 0.99);
  line(`3x C (${3 * capacity} rps) for 60 s: goodput by second ${goodput.join(' ')}`);
  line(`  goodput >= 80 % of C from second ${reachedAt} on (bound: 10)`);
  line(
    `  p99 of admitted, seconds 10-60: ${steadyP99.toFixed(1)} ms (bound: 3 x ${halfP99.toFixed(1)})`,
  );
  for (const tier of ['free', 'pro', 'enterprise'] as const) {
    const sent = sum(overload.map((s) => s.byTier[tier]?.sent ?? 0));
    const ok = sum(overload.map((s) => s.byTier[tier]?.ok ?? 0));
    const shed = sum(overload.map((s) => s.byTier[tier]?.shed ?? 0));
    line(
      `  ${tier}: ${((100 * ok) / sent).toFixed(1)} % admitted, ${shed} adaptive 429s of ${sent}`,
    );
  }
  line(
    `  other: ${sum(overload.map((s) => s.limited))} limit 429s, ${sum(overload.map((s) => s.errors))} errors`,
  );
  const waterfallBreaks = overloadViews.samples.flatMap((sample) =>
    sample.views.filter(
      (v) => v && (v.multipliers.pro ?? 1) < 1 && (v.multipliers.free ?? 1) > FREE_FLOOR + 1e-9,
    ),
  ).length;
  line(`  samples where pro was lowered before free reached its floor: ${waterfallBreaks}`);
  for (const sample of overloadViews.samples.filter((_, i) => i % 5 === 0)) {
    const each = sample.views.map((v) =>
      v
        ? `local ${v.localLevel.toFixed(1)} ` +
          Object.entries(v.pressure)
            .map(([signal, p]) => `${signal} ${p.toFixed(2)}`)
            .join(' ')
        : 'no answer',
    );
    line(`  at ${(sample.atMs / 1_000).toFixed(0)} s: ${each.join(' | ')}`);
  }
  line(
    `  fleet level by second: ${overloadViews.samples.map((s) => Math.max(...s.views.map((v) => v?.fleetLevel ?? 0)).toFixed(2)).join(' ')}`,
  );

  // 3. Back to 0.5x C: every multiplier back to 1.
  const recoveryViews = sampleViews(fleet, 250);
  await run(0.5 * capacity, 25);
  await recoveryViews.stop();
  const rested = recoveryViews.samples.find((s) =>
    s.views.every((v) => v && Object.values(v.multipliers).every((m) => m === 1)),
  );
  line(
    `back at 0.5x C: every multiplier 1 after ${rested ? (rested.atMs / 1_000).toFixed(1) : '>25'} s (bound: 20)`,
  );

  // 4. A 300 ms block every 10 s at 0.5x C.
  const before = await Promise.all(fleet.instances.map(adaptiveView));
  const blocks = run(0.5 * capacity, 30);
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, i === 0 ? 5_000 : 10_000));
    await Promise.all(fleet.instances.map((d) => d.get('/load-test/busy?ms=300')));
  }
  const blocked = await blocks;
  const after = await Promise.all(fleet.instances.map(adaptiveView));
  const rejectedDuring =
    sum(after.map((v) => sum(Object.values(v?.rejections ?? {})))) -
    sum(before.map((v) => sum(Object.values(v?.rejections ?? {}))));
  line(
    `0.5x C with a 300 ms block every 10 s: ${rejectedDuring} adaptive rejections, ${sum(blocked.map((s) => s.shed))} adaptive 429s seen (bound: 0)`,
  );

  // 5. The leader killed while shedding.
  const shedding = run(3 * capacity, 20);
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  const views = await Promise.all(fleet.instances.map(adaptiveView));
  const leader = views.findIndex((v) => v?.leading);
  const levelBefore = views[leader]?.fleetLevel ?? 0;
  process.kill(fleet.instances[leader].pid, 'SIGKILL');
  const killedAt = performance.now();
  const survivors = fleet.instances.filter((_, i) => i !== leader);
  let handover: { ms: number; level: number } | undefined;
  while (!handover && performance.now() - killedAt < 8_000) {
    const now = await Promise.all(survivors.map(adaptiveView));
    const next = now.find((v) => v?.leading);
    if (next) handover = { ms: performance.now() - killedAt, level: next.fleetLevel };
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await shedding;
  line(
    `leader killed at level ${levelBefore.toFixed(2)}: ` +
      (handover
        ? `another leads after ${Math.round(handover.ms)} ms at level ${handover.level.toFixed(2)} (bound: 3,000 ms)`
        : 'no other instance led within 8 s'),
  );
  loop.exit();
  await fleet.stop().catch(() => undefined);
  await redis.stop();
  demo.remove();
}

runBenchmark(main);
