/** This instance's place among the instances alive just before Redis was last reachable. */
export interface InstanceStanding {
  /** At least 1 (this instance). */
  readonly instances: number;
  /** 0 to instances - 1, the same order on every instance. */
  readonly rank: number;
}

/** Who knows the standing (the heartbeat, a layer above): the fallback only reads it. */
export interface StandingSource {
  readonly standing: InstanceStanding;
}
