import { Counter, Gauge, type Registry } from 'prom-client';

/** Which loop shed a request: the fleet's lowered thresholds, or this instance's own drop share. */
export type AdaptiveLoop = 'fleet' | 'local';

/** An instance's loops after a tick. */
export interface AdaptiveLoopsView {
  readonly state?: { readonly level: number; readonly boost: number };
  readonly localLevel: number;
  readonly leading: boolean;
  readonly multipliers: Readonly<Record<string, number>>;
}

/**
 * Adaptive protection's Prometheus metrics (SPEC section 15), in the limiter's registry: the
 * pressure by signal, each loop's level, the boost, each tier's multiplier, and adaptive
 * rejections by tier and loop. Labels are signal, tier and loop names: bounded by configuration.
 */
export class AdaptiveMetrics {
  private readonly pressure: Gauge<'signal'>;
  private readonly level: Gauge<'loop'>;
  private readonly boost: Gauge;
  private readonly leading: Gauge;
  private readonly multiplier: Gauge<'tier'>;
  private readonly rejections: Counter<'tier' | 'loop' | 'shadow'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.pressure = new Gauge({
      name: 'rate_limit_adaptive_pressure',
      help: "This instance's load over its target by signal (1 = at target), and overall",
      labelNames: ['signal'] as const,
      registers,
    });
    this.level = new Gauge({
      name: 'rate_limit_adaptive_level',
      help: "Shed level of the fleet loop (published) and of this instance's local loop",
      labelNames: ['loop'] as const,
      registers,
    });
    this.boost = new Gauge({
      name: 'rate_limit_adaptive_boost',
      help: 'Boost the fleet loop published: thresholds of every tier x (1 + boost) at rest',
      registers,
    });
    this.leading = new Gauge({
      name: 'rate_limit_adaptive_leading',
      help: '1 while this instance runs the fleet loop (holds the lease)',
      registers,
    });
    this.multiplier = new Gauge({
      name: 'rate_limit_adaptive_multiplier',
      help: 'Effective / configured thresholds by tier on this instance',
      labelNames: ['tier'] as const,
      registers,
    });
    this.rejections = new Counter({
      name: 'rate_limit_adaptive_rejections_total',
      help:
        'Requests rejected by adaptive protection, by tier and loop (fleet, local); shadow="true": ' +
        'would have been, in shadow mode',
      labelNames: ['tier', 'loop', 'shadow'] as const,
      registers,
    });
  }

  /** What one tick of the loops measured and decided. */
  setTick(
    pressure: { bySignal: Readonly<Record<string, number>>; value: number },
    loops: AdaptiveLoopsView,
  ): void {
    for (const [signal, value] of Object.entries(pressure.bySignal)) {
      this.pressure.labels(signal).set(value);
    }
    this.pressure.labels('overall').set(pressure.value);
    this.level.labels('fleet').set(loops.state?.level ?? 0);
    this.level.labels('local').set(loops.localLevel);
    this.boost.set(loops.state?.boost ?? 0);
    this.leading.set(loops.leading ? 1 : 0);
    for (const [tier, value] of Object.entries(loops.multipliers)) {
      this.multiplier.labels(tier).set(value);
    }
  }

  countRejection(tier: string, loop: AdaptiveLoop, shadow: boolean): void {
    this.rejections.labels(tier, loop, shadow ? 'true' : 'false').inc();
  }
}
