/**
 * A fleet of Node instances as a seeded, discrete-time model, to replay minutes of overload in
 * milliseconds against the real control law (libs/rate-limit/src/adaptive). Each instance is
 * one event loop serving `capacity / instances` requests a second at full utilisation; a
 * request's latency is its service time stretched by utilisation (M/M/1) plus any backlog; a
 * rejected request costs a twentieth of a served one. Clients of a tier each send the same rate
 * against a per-client limit (what a configured threshold does: it binds only clients above it).
 */

export interface ModelTier {
  name: string;
  /** Adaptive floor (1 = exempt). */
  floor: number;
  /** Share of the offered load. */
  share: number;
  clients: number;
  /** Configured limit per client, requests a second. */
  limitPerClient: number;
}

export interface FleetModelOptions {
  /** The fleet's capacity C, requests a second at full utilisation. */
  capacity: number;
  instances: number;
  tiers: ModelTier[];
  seed: number;
  /** Offered load at second `t`, requests a second for the whole fleet. */
  offered: (t: number) => number;
  /** Share of the traffic each instance gets (a sticky balancer); even when absent. */
  split?: number[];
  /** Seconds of synchronous block that start on `instance` in the step starting at `t`. */
  block?: (t: number, instance: number) => number;
}

export const STEP_S = 0.05;
const REJECTION_COST = 0.05;

/** What one instance holds from step to step. */
export interface InstanceModel {
  backlogS: number;
  blockedS: number;
  /** Busy seconds and the largest delay seen since the sampler last read them. */
  busyS: number;
  maxDelayS: number;
  sampledS: number;
}

/** One step's traffic, by tier, for the whole fleet (requests in the step). */
export interface StepTraffic {
  offered: Record<string, number>;
  rejectedByLimit: Record<string, number>;
  rejectedAdaptive: Record<string, number>;
  admitted: Record<string, number>;
  /** Admitted and answered within 500 ms. */
  good: number;
  /** [latency s, requests] of what was admitted. */
  latencies: [number, number][];
  /** Requests each instance admitted. */
  byInstance: number[];
}

export function newInstance(): InstanceModel {
  return { backlogS: 0, blockedS: 0, busyS: 0, maxDelayS: 0, sampledS: 0 };
}

/**
 * One step of `STEP_S` seconds: offered load split evenly over the instances, cut by each
 * tier's effective limit (`multipliers`) and each instance's local drop shares, then served.
 */
export function stepFleet(
  options: FleetModelOptions,
  instances: InstanceModel[],
  t: number,
  multipliers: Record<string, number>,
  localDrops: Record<string, number>[],
  random: () => number,
): StepTraffic {
  const n = instances.length;
  const serviceS = n / options.capacity;
  const split = options.split ?? instances.map(() => 1 / n);
  const traffic: StepTraffic = {
    offered: {},
    rejectedByLimit: {},
    rejectedAdaptive: {},
    admitted: {},
    good: 0,
    latencies: [],
    byInstance: [],
  };
  const load = options.offered(t) * STEP_S * (0.97 + 0.06 * random());
  const perInstance = instances.map(() => ({ admitted: 0, rejected: 0 }));
  for (const tier of options.tiers) {
    const offered = load * tier.share;
    const perClient = offered / tier.clients;
    const cap = tier.limitPerClient * STEP_S;
    const byLimit = tier.clients * Math.min(perClient, cap);
    const byFleet = tier.clients * Math.min(perClient, cap * (multipliers[tier.name] ?? 1));
    traffic.offered[tier.name] = offered;
    traffic.rejectedByLimit[tier.name] = offered - byLimit;
    let adaptive = Math.max(0, byLimit - byFleet);
    let admitted = 0;
    instances.forEach((_, i) => {
      const reaching = byFleet * split[i];
      const dropped = reaching * (localDrops[i]?.[tier.name] ?? 0);
      adaptive += dropped;
      admitted += reaching - dropped;
      perInstance[i].admitted += reaching - dropped;
      perInstance[i].rejected += offered * split[i] - (reaching - dropped);
    });
    traffic.rejectedAdaptive[tier.name] = adaptive;
    traffic.admitted[tier.name] = admitted;
  }
  instances.forEach((instance, i) => {
    instance.blockedS += options.block?.(t, i) ?? 0;
    const work = (perInstance[i].admitted + REJECTION_COST * perInstance[i].rejected) * serviceS;
    const utilisation = Math.min(0.99, work / STEP_S);
    const latency = serviceS / (1 - utilisation) + instance.backlogS + instance.blockedS;
    instance.maxDelayS = Math.max(instance.maxDelayS, instance.backlogS + instance.blockedS);
    let free = STEP_S;
    const blocked = Math.min(free, instance.blockedS);
    instance.blockedS -= blocked;
    free -= blocked;
    instance.backlogS += work;
    const served = Math.min(free, instance.backlogS);
    instance.backlogS -= served;
    instance.busyS += blocked + served;
    instance.sampledS += STEP_S;
    traffic.latencies.push([latency, perInstance[i].admitted]);
    traffic.byInstance.push(perInstance[i].admitted);
    if (latency <= 0.5) traffic.good += perInstance[i].admitted;
  });
  return traffic;
}

/** Utilisation and delay since the last read, as the instance's sampler would report them. */
export function readSignals(instance: InstanceModel): { elu: number; delayMs: number } {
  const signals = {
    elu: instance.sampledS === 0 ? 0 : Math.min(1, instance.busyS / instance.sampledS),
    delayMs: instance.maxDelayS * 1_000,
  };
  instance.busyS = 0;
  instance.sampledS = 0;
  instance.maxDelayS = 0;
  return signals;
}

/** The latency below which `q` of the requests fall ([latency, requests] pairs). */
export function percentile(samples: [number, number][], q: number): number {
  const sorted = samples.filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  let seen = 0;
  for (const [latency, n] of sorted) {
    seen += n;
    if (seen >= q * total) return latency;
  }
  return sorted.at(-1)?.[0] ?? 0;
}
