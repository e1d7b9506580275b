import { FRESH_LOAD_MS } from '../../adaptive/fleet-pressure';
import { readLuaFile } from '../../store/redis/lua-file';
import { RedisScript, type RedisClient } from '../../store/redis/redis-script';
import { withTimeout } from '../../store/redis/with-timeout';
import { policyChannelName } from '../policy-channel';

/** A lease the leader renews every beat (1 s): another takes over within this and one beat (3 s). */
export const LEASE_MS = 2_000;

/** How long Redis keeps a state nobody rewrites (instances drop it long before: 10 s). */
const STATE_KEPT_MS = 60_000;

/** What one beat answered. */
export interface BeatReply {
  /** Redis time of the beat, ms. */
  nowMs: number;
  leading: boolean;
  /** The published state as stored (undefined: none yet). */
  state: string | undefined;
  /** Fresh loads by instance id, with Redis time of each report (only when leading). */
  loads: { id: string; reportedAt: number; load: string }[];
  /** Operators' controls: see AdaptiveControls. */
  controls: AdaptiveControls;
}

/** What operators set through the admin API, for the fleet loop's leader to apply. */
export interface AdaptiveControls {
  /** Until when (Redis time, ms) the level and boost stay as they are; undefined: not frozen. */
  frozenUntil?: number;
  /** Bumped by each reset; the leader resets when it changes. Undefined: never reset. */
  reset?: number;
}

/**
 * One call per instance per second (adaptive-beat.lua): stores this instance's load, keeps or
 * takes the fleet loop's lease, and reads the published state (and, for the leader, every fresh
 * load). The keys share the prefix's `{adaptive}` hash tag, so a Cluster serves them from one
 * slot.
 */
export class AdaptiveBeat {
  private readonly script = new RedisScript('adaptive-beat', readLuaFile('adaptive-beat'));
  private readonly publishScript = new RedisScript(
    'adaptive-publish',
    readLuaFile('adaptive-publish'),
  );

  constructor(
    private readonly prefix: string,
    private readonly leaseMs = LEASE_MS,
    private readonly freshMs = FRESH_LOAD_MS,
  ) {}

  get keys(): { loads: string; lease: string; state: string; controls: string } {
    const tag = `${this.prefix}:{adaptive}`;
    return {
      loads: `${tag}:loads`,
      lease: `${tag}:leader`,
      state: `${tag}:state`,
      controls: `${tag}:controls`,
    };
  }

  async beat(client: RedisClient, id: string, load: string, timeoutMs: number): Promise<BeatReply> {
    const { loads, lease, state, controls } = this.keys;
    const reply = (await this.script.run(
      client,
      [loads, lease, state, controls],
      [id, load, this.leaseMs, this.freshMs],
      (r) => withTimeout(r, timeoutMs),
    )) as [number, number, string | null, string[], (string | null)[]];
    const [nowMs, leading, stored, flat, [frozenUntil, reset] = []] = reply;
    const fresh: BeatReply['loads'] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const comma = flat[i + 1].indexOf(',');
      fresh.push({
        id: flat[i],
        reportedAt: Number(flat[i + 1].slice(0, comma)),
        load: flat[i + 1].slice(comma + 1),
      });
    }
    return {
      nowMs: Number(nowMs),
      leading: leading === 1,
      state: stored ?? undefined,
      loads: fresh,
      controls: {
        ...(wholeNumber(frozenUntil) === undefined ? {} : { frozenUntil: Number(frozenUntil) }),
        ...(wholeNumber(reset) === undefined ? {} : { reset: Number(reset) }),
      },
    };
  }

  /** Holds the fleet's level and boost until `untilMs` (Redis time), or lifts a freeze (null). */
  async freeze(client: RedisClient, untilMs: number | null, timeoutMs: number): Promise<void> {
    const { controls } = this.keys;
    await withTimeout(
      untilMs === null
        ? client.hdel(controls, 'frozenUntil')
        : client.hset(controls, 'frozenUntil', String(untilMs)),
      timeoutMs,
    );
  }

  /** Asks the leader to return every tier to its configured thresholds at its next beat. */
  async reset(client: RedisClient, timeoutMs: number): Promise<void> {
    await withTimeout(client.hincrby(this.keys.controls, 'reset', 1), timeoutMs);
  }

  /** Redis time, ms (freezes are set on it, as the leader reads them). */
  async redisNowMs(client: RedisClient, timeoutMs: number): Promise<number> {
    const [seconds, micros] = await withTimeout(client.time(), timeoutMs);
    return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
  }

  /**
   * The leader's state after its tick (adaptive-publish.lua): written with the next epoch and
   * Redis time while this instance still holds the lease; undefined when it does not.
   */
  async publish(
    client: RedisClient,
    id: string,
    level: number,
    boost: number,
    timeoutMs: number,
  ): Promise<string | undefined> {
    if (!Number.isFinite(level) || !Number.isFinite(boost))
      throw new RangeError(`level and boost must be finite (got ${level}, ${boost})`);
    const { lease, state } = this.keys;
    const written = await this.publishScript.run(
      client,
      [lease, state],
      [id, String(level), String(boost), STATE_KEPT_MS, policyChannelName(this.prefix)],
      (r) => withTimeout(r, timeoutMs),
    );
    return typeof written === 'string' ? written : undefined;
  }
}

/** A control's value when it is a whole number (anything written by hand otherwise is ignored). */
function wholeNumber(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
