import type { ResolvedAdaptiveOptions } from '../../adaptive/adaptive-options';
import { DEFAULT_CONTROL_LAW } from '../../adaptive/control-law';
import {
  directionChange,
  type Direction,
  type DirectionChange,
} from '../../adaptive/direction-change';
import {
  initialControllerState,
  stepController,
  type ControllerState,
} from '../../adaptive/fleet-controller';
import { fleetPressureOf } from '../../adaptive/fleet-pressure';
import { decodeLoad, encodeLoad } from '../../adaptive/load-codec';
import { LOCAL_TICK_MS } from '../../adaptive/local-shedding';
import {
  DEFAULT_PRESSURE_FILTER,
  nextInstancePressure,
  pressureOf,
  type InstancePressure,
  type LoadSignals,
} from '../../adaptive/pressure';
import {
  appliedMultipliers,
  decodeAdaptiveState,
  isNewer,
  type PublishedAdaptiveState,
} from '../../adaptive/published-state';
import { maxLevel } from '../../adaptive/tier-multipliers';
import type { RedisClient } from '../../store/redis/redis-script';
import type { AdaptiveBeat } from './adaptive-beat';
import { LocalProtection } from './local-protection';
import { SignalWindow } from './signal-window';

/** Local ticks per heartbeat (250 ms x 4: one beat a second). */
const TICKS_PER_BEAT = 1_000 / LOCAL_TICK_MS;
/** Direction changes kept for whoever reads them (the audit log, once wired). */
const CHANGES_KEPT = 50;
/** A boost needs at least this share of some instance's requests rejected by configured limits. */
const LIMITED_SHARE = 0.01;

/**
 * Adaptive protection on one instance (SPEC section 15), without timers or Nest: its caller
 * ticks it every LOCAL_TICK_MS with Node's signals. Each tick runs the local loop; every fourth
 * one beats (adaptive-beat.lua: this instance's load in, the state out) and, while this instance
 * holds the lease, runs the fleet loop on every instance's load and publishes the result. A new
 * leader continues from the published level and boost, so a handover does not jump.
 */
export class AdaptiveProtection {
  readonly local: LocalProtection;
  private readonly window = new SignalWindow();
  private beatPressure: InstancePressure | undefined;
  private fleet: ControllerState = initialControllerState(DEFAULT_CONTROL_LAW);
  private leading = false;
  private held: PublishedAdaptiveState | undefined;
  /** Redis time minus this process's clock at the last beat (states carry Redis time). */
  private redisOffsetMs = 0;
  private ticks = 0;
  private decided = 0;
  private limitedByConfig = 0;
  private direction: Direction | undefined;
  /** The fleet loop's changes of direction while this instance led, newest last. */
  readonly changes: DirectionChange[] = [];

  constructor(
    private readonly options: ResolvedAdaptiveOptions,
    readonly id: string,
    private readonly beat: AdaptiveBeat,
    private readonly client: () => RedisClient | undefined,
    private readonly timeoutMs: number,
  ) {
    this.local = new LocalProtection(options);
  }

  /** Counts a request decided here (the guard, later): its weight in the fleet's pressure. */
  countDecision(rejectedByConfiguredLimit: boolean): void {
    this.decided++;
    if (rejectedByConfiguredLimit) this.limitedByConfig++;
  }

  /** One local tick; every fourth, the heartbeat (and the fleet loop when leading). */
  async tick(signals: LoadSignals, now: number, uptimeMs: number): Promise<void> {
    this.local.tick(signals, now, uptimeMs);
    this.window.add(signals);
    if (++this.ticks % TICKS_PER_BEAT !== 0) return;
    const measured = pressureOf(this.window.take(), this.options.targets);
    this.beatPressure = nextInstancePressure(
      this.beatPressure,
      measured.bySignal,
      uptimeMs,
      DEFAULT_PRESSURE_FILTER,
    );
    const client = this.client();
    const load = encodeLoad({
      pressure: this.beatPressure.reported,
      dominant: measured.dominant,
      rps: this.decided,
      limited: this.decided === 0 ? 0 : this.limitedByConfig / this.decided,
    });
    this.decided = 0;
    this.limitedByConfig = 0;
    if (!client || client.status !== 'ready') return;
    let reply;
    try {
      reply = await this.beat.beat(client, this.id, load, this.timeoutMs);
    } catch {
      // Kept as it was: the state held goes stale after 10 s (configured thresholds) and the
      // local loop protects this instance meanwhile; the request path reports Redis failures.
      return;
    }
    this.redisOffsetMs = reply.nowMs - now;
    this.take(reply.state);
    if (!reply.leading) {
      this.leading = false;
      return;
    }
    if (!this.leading) this.continueFrom(this.held);
    this.leading = true;
    const loads = reply.loads
      .map((l) => decodeLoad(l.id, l.reportedAt, l.load))
      .filter((l) => l !== undefined);
    const fleet = fleetPressureOf(loads, reply.nowMs);
    const step = stepController(
      this.fleet,
      {
        now: reply.nowMs,
        fleet,
        demandLimited: loads.some((l) => l.limited >= LIMITED_SHARE),
      },
      {
        law: DEFAULT_CONTROL_LAW,
        maxLevel: maxLevel(this.options.tiers),
        boostCeiling: this.options.boostCeiling,
      },
    );
    this.record(
      directionChange(
        this.direction,
        step.movement,
        this.fleet,
        step.state,
        fleet,
        this.options.tiers,
      ),
    );
    this.fleet = step.state;
    const written = await this.beat
      .publish(client, this.id, step.state.level, step.state.boost, this.timeoutMs)
      .catch(() => undefined);
    this.take(written);
  }

  /** A state announced on the policy channel: taken if newer than the one held. */
  receive(text: string): void {
    this.take(text);
  }

  /** The multiplier of each tier's thresholds on this instance at `now` (its own clock). */
  multipliers(now: number): Record<string, number> {
    return appliedMultipliers(this.held, this.options.tiers, now + this.redisOffsetMs);
  }

  get state(): PublishedAdaptiveState | undefined {
    return this.held;
  }

  get isLeading(): boolean {
    return this.leading;
  }

  private record(change: DirectionChange | undefined): void {
    if (change === undefined) return;
    this.direction = change.direction;
    this.changes.push(change);
    if (this.changes.length > CHANGES_KEPT) this.changes.shift();
  }

  private take(text: string | undefined): void {
    const state = text === undefined ? undefined : decodeAdaptiveState(text);
    if (state !== undefined && isNewer(this.held, state)) this.held = state;
  }

  private continueFrom(state: PublishedAdaptiveState | undefined): void {
    this.fleet = {
      ...initialControllerState(DEFAULT_CONTROL_LAW),
      level: state?.level ?? 0,
      boost: state?.boost ?? 0,
    };
  }
}
