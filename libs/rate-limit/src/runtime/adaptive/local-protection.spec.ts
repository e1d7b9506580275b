import { resolveAdaptiveOptions } from '../../adaptive/adaptive-options';
import { LOCAL_TICK_MS } from '../../adaptive/local-shedding';
import type { LoadSignals } from '../../adaptive/pressure';
import { LocalProtection } from './local-protection';

/** The local loop on scripted signals and an injected clock (ticks of 250 ms). */
const options = resolveAdaptiveOptions({
  mode: 'enforce',
  tiers: [{ name: 'free' }, { name: 'pro', floor: 0.5 }, { name: 'enterprise', exempt: true }],
});
const calm: LoadSignals = { elu: 0.3, eventLoopDelayMs: 2, heap: 0.3, tickLatenessMs: 1 };
const saturated: LoadSignals = { ...calm, elu: 1 };
const WARM = 60_000;

function run(
  protection: LocalProtection,
  signals: (tick: number) => LoadSignals,
  ticks: number,
  from = 0,
) {
  const out = [];
  for (let i = from; i < from + ticks; i++)
    out.push(protection.tick(signals(i), i * LOCAL_TICK_MS, WARM + i * LOCAL_TICK_MS));
  return out;
}

describe('LocalProtection', () => {
  it('rejects nothing while calm', () => {
    const p = new LocalProtection(options);
    expect(run(p, () => calm, 40).every((t) => t.level === 0)).toBe(true);
    expect(['free', 'pro', 'enterprise', 'default'].map((t) => p.dropShare(t))).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it('on saturation drops the lowest tier entirely before the next, never an exempt one', () => {
    const p = new LocalProtection(options);
    run(p, () => calm, 20);
    const ticks = run(p, () => saturated, 12, 20);
    // Shedding within a second of saturation, the free tier all gone within 1.5 s.
    expect(ticks.slice(0, 4).some((t) => t.level > 0)).toBe(true);
    expect(ticks.slice(0, 6).some((t) => t.shares.free === 1)).toBe(true);
    for (const t of ticks) {
      if ((t.shares.pro ?? 0) > 0) expect(t.shares.free).toBe(1);
      expect(t.shares.enterprise ?? 0).toBe(0);
    }
    expect(ticks.at(-1)!.level).toBe(2);
    expect(p.dropShare('pro')).toBe(1);
    expect(p.dropShare('enterprise')).toBe(0);
    expect(p.dropShare('partner')).toBe(0);
  });

  it('gives back after its 2 s cool-down once calm', () => {
    const p = new LocalProtection(options);
    const shedding = run(p, () => saturated, 12);
    const after = run(p, () => calm, 60, 12);
    const movements = [...shedding, ...after].map((t) => t.movement);
    const firstFall = movements.indexOf('fall');
    const lastRise = movements.slice(0, firstFall).lastIndexOf('rise');
    expect((firstFall - lastRise) * LOCAL_TICK_MS).toBeGreaterThanOrEqual(2_000);
    expect(after.at(-1)!.level).toBe(0);
    expect(p.dropShare('free')).toBe(0);
  });

  it('a 300 ms block (one late tick with a long delay) rejects nothing', () => {
    const p = new LocalProtection(options);
    const blocked: LoadSignals = { ...calm, elu: 0.9, eventLoopDelayMs: 300, tickLatenessMs: 300 };
    const ticks = run(
      p,
      (i) => (i === 10 ? blocked : i === 11 ? { ...calm, eventLoopDelayMs: 150 } : calm),
      40,
    );
    expect(ticks.every((t) => t.level === 0)).toBe(true);
  });
});
