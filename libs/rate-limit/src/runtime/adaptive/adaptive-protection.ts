import type { ResolvedAdaptiveOptions } from '../../adaptive/adaptive-options';
import { DEFAULT_CONTROL_LAW } from '../../adaptive/control-law';
import type { Direction, DirectionChange } from '../../adaptive/direction-change';
import {
  initialControllerState,
  resetController,
  type ControllerState,
} from '../../adaptive/fleet-controller';
import { leaderStep } from '../../adaptive/leader-step';
import { encodeLoad } from '../../adaptive/load-codec';
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
import type { RedisClient } from '../../store/redis/redis-script';
import type { AdaptiveBeat } from './adaptive-beat';
import { LocalProtection, type LocalTick } from './local-protection';
import { SignalWindow } from './signal-window';

/** Local ticks per heartbeat (250 ms x 4: one beat a second). */
const TICKS_PER_BEAT = 1_000 / LOCAL_TICK_MS;

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
  /** The last reset counter this instance saw (undefined before its first beat). */
  private seenReset: number | undefined;
  /** Until when operators froze the fleet loop (Redis time), as of the last beat. */
  frozenUntil: number | undefined;
  private decided = 0;
  private limitedByConfig = 0;
  private direction: Direction | undefined;
  private readonly changeListeners: ((change: DirectionChange) => void)[] = [];

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
  async tick(signals: LoadSignals, now: number, uptimeMs: number): Promise<LocalTick> {
    const local = this.local.tick(signals, now, uptimeMs);
    this.window.add(signals);
    if (++this.ticks % TICKS_PER_BEAT === 0) await this.beatNow(now, uptimeMs);
    return local;
  }

  /** The heartbeat: this second's load in, the state out; the fleet loop when leading. */
  private async beatNow(now: number, uptimeMs: number): Promise<void> {
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
    const reset = reply.controls.reset ?? 0;
    const resetAsked = this.seenReset !== undefined && reset !== this.seenReset;
    this.seenReset = reset;
    this.frozenUntil = reply.controls.frozenUntil;
    if (!reply.leading) {
      this.leading = false;
      return;
    }
    if (!this.leading) this.continueFrom(this.held);
    this.leading = true;
    // Operators first: a reset returns every tier to its configured thresholds at once, a
    // freeze holds level and boost (the controller moves nothing until it ends).
    if (resetAsked) this.fleet = resetController(DEFAULT_CONTROL_LAW);
    this.fleet = { ...this.fleet, frozenUntil: this.frozenUntil };
    const step = leaderStep(
      this.fleet,
      reply,
      this.options.tiers,
      this.options.boostCeiling,
      this.direction,
    );
    this.record(step.change);
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

  /** The published state, this instance's loops and the multipliers in force (admin, tests). */
  snapshot(now: number) {
    return {
      leading: this.leading,
      frozenUntil: this.frozenUntil,
      state: this.held,
      localLevel: this.local.level,
      multipliers: this.multipliers(now),
    };
  }

  get isLeading(): boolean {
    return this.leading;
  }

  /** Tells `listener` of each change of direction this instance's fleet loop makes (the audit). */
  onChange(listener: (change: DirectionChange) => void): void {
    this.changeListeners.push(listener);
  }

  private record(change: DirectionChange | undefined): void {
    if (change === undefined) return;
    this.direction = change.direction;
    for (const listener of this.changeListeners) listener(change);
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
