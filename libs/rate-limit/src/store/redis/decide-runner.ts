import type { StoreEntry } from '../rate-limit-store.interface';
import type { DecideScripts } from './decide-script';
import type { RedisClient, RedisScript, RoundTrip } from './redis-script';

/** How a store runs the decide program: its library where the server allows, or its scripts. */
export type DecideWith = 'functions' | 'scripts';

/**
 * Runs one call of the decide program for some groups: FCALL of the library (which answers with
 * the scripts itself where the server has no functions), or EVALSHA of the script holding only
 * the algorithm the groups share (every algorithm when they mix).
 */
export class DecideRunner {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: DecideScripts,
    private readonly decideWith: DecideWith,
  ) {}

  run(
    groups: readonly (readonly StoreEntry[])[],
    keys: readonly string[],
    args: readonly (string | number)[],
    roundTrip: RoundTrip,
  ): Promise<unknown> {
    const script = this.scriptFor(groups);
    if (this.decideWith === 'scripts') return script.run(this.client, keys, args, roundTrip);
    return this.scripts.library.run(this.client, script, keys, args, roundTrip);
  }

  private scriptFor(groups: readonly (readonly StoreEntry[])[]): RedisScript {
    const algo = groups[0][0].policy.algo;
    for (const entries of groups) {
      for (const entry of entries) if (entry.policy.algo !== algo) return this.scripts.all;
    }
    return this.scripts.byAlgorithm[algo];
  }
}
