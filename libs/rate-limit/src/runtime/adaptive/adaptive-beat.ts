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

  get keys(): { loads: string; lease: string; state: string } {
    const tag = `${this.prefix}:{adaptive}`;
    return { loads: `${tag}:loads`, lease: `${tag}:leader`, state: `${tag}:state` };
  }

  async beat(client: RedisClient, id: string, load: string, timeoutMs: number): Promise<BeatReply> {
    const { loads, lease, state } = this.keys;
    const reply = (await this.script.run(
      client,
      [loads, lease, state],
      [id, load, this.leaseMs, this.freshMs],
      (r) => withTimeout(r, timeoutMs),
    )) as [number, number, string | null, string[]];
    const [nowMs, leading, stored, flat] = reply;
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
    };
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
