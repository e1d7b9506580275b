import type { ResolvedAdaptiveOptions } from '../../adaptive/adaptive-options';
import { DEFAULT_LOCAL_LAW } from '../../adaptive/control-law';
import {
  initialControllerState,
  stepController,
  type ControllerState,
  type Movement,
} from '../../adaptive/fleet-controller';
import {
  LOCAL_PRESSURE_FILTER,
  localDropShares,
  ONSET_PRESSURE,
  SATURATED_ELU,
} from '../../adaptive/local-shedding';
import {
  nextInstancePressure,
  pressureOf,
  type InstancePressure,
  type LoadSignals,
  type Pressure,
} from '../../adaptive/pressure';
import { maxLevel } from '../../adaptive/tier-multipliers';

/** What one local tick decided, for metrics and the audit. */
export interface LocalTick {
  pressure: number;
  /** This tick's signals over their targets, unfiltered (the metrics show them). */
  measured: Pressure;
  level: number;
  movement: Movement;
  shares: Record<string, number>;
}

/**
 * The local loop of one instance (SPEC section 15): every tick it turns Node's signals into
 * this instance's pressure and moves its own level by the control law, which sets the share of
 * each tier's requests it rejects before deciding them. It never touches fleet thresholds and
 * needs no Redis. No timer here: the caller ticks it (every LOCAL_TICK_MS) with the signals
 * and the time, so every scenario can be replayed.
 */
export class LocalProtection {
  private pressure: InstancePressure | undefined;
  private state: ControllerState = initialControllerState(DEFAULT_LOCAL_LAW);
  private shares: Record<string, number> = {};
  /** Saturated since the loop left rest (see SATURATED_ELU). */
  private onset = false;
  private readonly settings;

  constructor(private readonly options: ResolvedAdaptiveOptions) {
    this.settings = { law: DEFAULT_LOCAL_LAW, maxLevel: maxLevel(options.tiers), boostCeiling: 1 };
  }

  tick(signals: LoadSignals, now: number, uptimeMs: number): LocalTick {
    const measured = pressureOf(signals, this.options.targets);
    this.pressure = nextInstancePressure(
      this.pressure,
      measured.bySignal,
      uptimeMs,
      LOCAL_PRESSURE_FILTER,
    );
    this.onset = this.saturated() && (this.onset || this.state.level === 0);
    const pressure = this.onset
      ? Math.max(ONSET_PRESSURE, this.pressure.reported)
      : this.pressure.reported;
    const step = stepController(
      this.state,
      {
        now,
        fleet: {
          value: pressure,
          overloadedShare: 1,
          instances: 1,
          overloaded: pressure > 1 ? 1 : 0,
          dominant: measured.dominant,
        },
        demandLimited: false,
      },
      this.settings,
    );
    this.state = step.state;
    this.shares = step.state.level > 0 ? localDropShares(this.options.tiers, step.state.level) : {};
    return {
      pressure,
      measured,
      level: step.state.level,
      movement: step.movement,
      shares: this.shares,
    };
  }

  /** Whether utilisation read saturated on each of the ticks that confirm a load signal. */
  private saturated(): boolean {
    const ticks = this.pressure!.recent.slice(-LOCAL_PRESSURE_FILTER.loadConfirmTicks);
    const at = SATURATED_ELU / this.options.targets.elu;
    return (
      ticks.length === LOCAL_PRESSURE_FILTER.loadConfirmTicks &&
      ticks.every((tick) => (tick.elu ?? 0) >= at)
    );
  }

  /** The share of a tier's requests to reject now: 0 for exempt and unlisted tiers, and at rest. */
  dropShare(tier: string): number {
    return this.shares[tier] ?? 0;
  }

  get level(): number {
    return this.state.level;
  }
}
