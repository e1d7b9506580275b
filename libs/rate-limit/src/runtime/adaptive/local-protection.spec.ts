import { LOCAL_TICK_MS } from '../../adaptive/local-shedding';
import type { LoadSignals } from '../../adaptive/pressure';
import { LocalProtection } from './local-protection';
import {
  CALM,
  SATURATED,
  THREE_TIERS,
  WARM_UPTIME_MS,
} from '../../../test/support/adaptive-signals';

/** The local loop on scripted signals and an injected clock (ticks of 250 ms). */

const AT_0_9 = { ...THREE_TIERS, targets: { ...THREE_TIERS.targets, elu: 0.9 } };

function run(
  protection: LocalProtection,
  signals: (tick: number) => LoadSignals,
  ticks: number,
  from = 0,
) {
  const out = [];
  for (let i = from; i < from + ticks; i++)
    out.push(protection.tick(signals(i), i * LOCAL_TICK_MS, WARM_UPTIME_MS + i * LOCAL_TICK_MS));
  return out;
}

describe('LocalProtection', () => {
  it('rejects nothing while CALM', () => {
    const p = new LocalProtection(THREE_TIERS);
    expect(run(p, () => CALM, 40).every((t) => t.level === 0)).toBe(true);
    expect(['free', 'pro', 'enterprise', 'default'].map((t) => p.dropShare(t))).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it('a 300 ms block spanning two ticks (both at full utilisation, both late) moves nothing', () => {
    // Seen in the adaptive benchmark: at 0.5x C, with saturation confirmed over two ticks, a
    // 300 ms block every 10 s made the instances shed (29 to 852 adaptive 429s a run).
    const p = new LocalProtection(THREE_TIERS);
    run(p, () => ({ ...CALM, elu: 0.6 }), 20);
    const block = { ...CALM, elu: 1, eventLoopDelayMs: 300, tickLatenessMs: 300 };
    const ticks = run(p, (i) => (i === 20 || i === 21 ? block : { ...CALM, elu: 0.6 }), 20, 20);
    expect(ticks.every((t) => t.level === 0)).toBe(true);
  });

  it('on saturation drops the lowest tier entirely before the next, never an exempt one', () => {
    const p = new LocalProtection(THREE_TIERS);
    run(p, () => CALM, 20);
    const ticks = run(p, () => SATURATED, 12, 20);
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

  it('from rest, saturation takes the largest steps: everything sheddable gone in 1.5 s', () => {
    // At a 0.9 target a saturated loop reads 1.11x: proportional steps would take 0.2 tier a
    // tick, about 3 s to shed two tiers, while a 3x overload's backlog grows.
    const p = new LocalProtection(AT_0_9);
    run(p, () => ({ ...CALM, elu: 0.6 }), 20);
    const ticks = run(p, () => SATURATED, 6, 20);
    expect(ticks.map((t) => t.level)).toEqual([0, 0, 0.5, 1, 1.5, 2]);
  });

  it('once shedding, saturation again moves the level by proportional steps, not by tiers', () => {
    const p = new LocalProtection(AT_0_9);
    run(p, () => SATURATED, 8);
    // Below the dead band (0.7 / 0.9 = 0.78): after the cool-down, down by 0.1 a tick.
    const easing = run(p, () => ({ ...CALM, elu: 0.7 }), 14, 8);
    const from = easing.at(-1)!.level;
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThan(2);
    const again = run(p, () => SATURATED, 8, 22);
    const steps = again.map((t, i) => t.level - (i === 0 ? from : again[i - 1].level));
    expect(Math.max(...steps)).toBeGreaterThan(0);
    expect(Math.max(...steps)).toBeLessThanOrEqual(0.25);
  });

  it('gives back after its 2 s cool-down once CALM', () => {
    const p = new LocalProtection(THREE_TIERS);
    const shedding = run(p, () => SATURATED, 12);
    const after = run(p, () => CALM, 60, 12);
    const movements = [...shedding, ...after].map((t) => t.movement);
    const firstFall = movements.indexOf('fall');
    const lastRise = movements.slice(0, firstFall).lastIndexOf('rise');
    expect((firstFall - lastRise) * LOCAL_TICK_MS).toBeGreaterThanOrEqual(2_000);
    expect(after.at(-1)!.level).toBe(0);
    expect(p.dropShare('free')).toBe(0);
  });

  it('a 300 ms block (one late tick with a long delay) rejects nothing', () => {
    const p = new LocalProtection(THREE_TIERS);
    const blocked: LoadSignals = { ...CALM, elu: 0.9, eventLoopDelayMs: 300, tickLatenessMs: 300 };
    const ticks = run(
      p,
      (i) => (i === 10 ? blocked : i === 11 ? { ...CALM, eventLoopDelayMs: 150 } : CALM),
      40,
    );
    expect(ticks.every((t) => t.level === 0)).toBe(true);
  });
});
