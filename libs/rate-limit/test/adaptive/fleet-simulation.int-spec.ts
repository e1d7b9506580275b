import { DEFAULT_CONTROL_LAW } from '../../src/adaptive/control-law';
import type { FleetModelOptions, ModelTier } from './fleet-model';
import { simulateFleet, type SimulatedSecond } from './fleet-simulation';

/**
 * Adaptive protection's two loops (the real control law) on a seeded model of three instances
 * (fleet-model.ts): minutes of overload replayed in milliseconds, against issue 28's bars. C is
 * the fleet's capacity as the issue defines it: the rate at which latency reaches 3x its
 * unloaded value (2/3 of full utilisation in this M/M/1 model). Each scenario prints one line of
 * figures. The end-to-end form of these bars (demo processes, open-loop load) is still to come.
 */

const FULL = 600;
const C = (FULL * 2) / 3;
const TIERS: ModelTier[] = [
  // Overload under every client's limit: each client sends about half of what it may.
  { name: 'free', floor: 0.2, share: 0.6, clients: 100, limitPerClient: 15 },
  { name: 'pro', floor: 0.5, share: 0.3, clients: 30, limitPerClient: 25 },
  { name: 'enterprise', floor: 1, share: 0.1, clients: 5, limitPerClient: 50 },
];
/** Three instances of the model with these tiers; `more` adds blocks, a split, other tiers. */
const model = (
  seed: number,
  offered: (t: number) => number,
  more: Partial<FleetModelOptions> = {},
): FleetModelOptions => ({ capacity: FULL, instances: 3, tiers: TIERS, seed, offered, ...more });
const figures: string[] = [];
afterAll(() => console.log(figures.join('\n')));

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const tierShare = (seconds: SimulatedSecond[], tier: string) =>
  sum(seconds.map((s) => s.admittedByTier[tier])) / sum(seconds.map((s) => s.offeredByTier[tier]));

describe('adaptive protection on a model fleet', () => {
  it('3x C for 60 s: goodput 80 % of C within 10 s and after, p99 within 3x, top tier kept, back within 20 s', () => {
    const run = simulateFleet(
      model(28, (t) => (t < 20 ? 0.5 * C : t < 80 ? 3 * C : 0.5 * C)),
      120,
    );
    const calm = run.slice(10, 20);
    const overload = run.slice(20, 80);
    const settled = overload.slice(10);
    const p99Calm = Math.max(...calm.map((s) => s.p99Ms));
    const back = run.slice(80).find((s) => s.level === 0 && s.localLevels.every((l) => l === 0));
    figures.push(
      `3x C: goodput ${settled.map((s) => Math.round((100 * s.goodput) / C)).join(',')} % of C; ` +
        `p99 ${Math.max(...settled.map((s) => s.p99Ms)).toFixed(0)} ms vs ${p99Calm.toFixed(0)} at 0.5C; ` +
        `admitted free ${tierShare(overload, 'free').toFixed(2)} pro ${tierShare(overload, 'pro').toFixed(2)} ` +
        `enterprise ${tierShare(overload, 'enterprise').toFixed(3)}; back to configured ${back!.t - 80 + 1} s after`,
    );
    expect(settled.filter((s) => s.goodput < 0.8 * C).map((s) => s.t)).toEqual([]);
    expect(Math.max(...settled.map((s) => s.p99Ms))).toBeLessThanOrEqual(3 * p99Calm);
    expect(tierShare(overload, 'enterprise')).toBeGreaterThanOrEqual(0.99);
    // The lowest tier lost most, the middle one less.
    expect(tierShare(overload, 'free')).toBeLessThan(tierShare(overload, 'pro'));
    expect(back).toBeDefined();
    expect(back!.t - 80 + 1).toBeLessThanOrEqual(20);
    expect(Object.values(back!.multipliers).every((m) => m === 1)).toBe(true);
  });

  it('a 300 ms block every 10 s on every instance at 0.5x C rejects nothing', () => {
    const run = simulateFleet(
      model(7, () => 0.5 * C, { block: (t) => (Math.abs((t % 10) - 5) < 1e-9 ? 0.3 : 0) }),
      120,
    );
    const adaptive = sum(run.map((s) => sum(Object.values(s.adaptiveByTier))));
    figures.push(
      `300 ms blocks: max p99 ${Math.max(...run.map((s) => s.p99Ms)).toFixed(0)} ms, adaptive rejections ${adaptive}`,
    );
    expect(Math.max(...run.map((s) => s.p99Ms))).toBeGreaterThanOrEqual(300);
    expect(adaptive).toBe(0);
    expect(run.every((s) => s.level === 0 && s.localLevels.every((l) => l === 0))).toBe(true);
  });

  it('one hot instance (a sticky balancer) is protected by its local loop; the fleet stays put', () => {
    const run = simulateFleet(
      model(3, () => 0.9 * C, { split: [0.7, 0.15, 0.15] }),
      60,
    );
    const settled = run.slice(15);
    figures.push(
      `hot instance: local levels ${[...new Set(settled.map((s) => s.localLevels.join('/')))].slice(0, 3).join(' ')}; ` +
        `fleet level max ${Math.max(...run.map((s) => s.level))}; p99 ${Math.max(...settled.map((s) => s.p99Ms)).toFixed(0)} ms`,
    );
    expect(run.every((s) => s.level === 0)).toBe(true);
    expect(settled.every((s) => s.localLevels[0] > 0 && s.localLevels[1] === 0)).toBe(true);
    expect(Math.max(...settled.map((s) => s.p99Ms))).toBeLessThan(500);
  });

  it('at 0.3x C with clients over their limits, the boost reaches its ceiling within 15 s', () => {
    // Each client sends 0.72 (free), 1.2 (pro), 2.4 (enterprise) requests a second.
    const limits: Record<string, number> = { free: 0.5, pro: 1, enterprise: 2 };
    const tight = TIERS.map((tier) => ({ ...tier, limitPerClient: limits[tier.name] }));
    const run = simulateFleet(
      model(11, () => 0.3 * C, { tiers: tight }),
      30,
    );
    const ceilingAt = run.find((s) => s.boost >= DEFAULT_CONTROL_LAW.boostCeiling - 1 - 1e-9);
    figures.push(`boost: ceiling after ${ceilingAt ? ceilingAt.t + 1 : 'never'} s`);
    expect(ceilingAt).toBeDefined();
    expect(ceilingAt!.t + 1).toBeLessThanOrEqual(15);
    expect(run.every((s) => s.level === 0)).toBe(true);
  });
});
