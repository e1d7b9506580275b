/** Messages between the adaptive benchmark and its open-loop generator (a forked child). */

/** Ten requests in turn: six `free`, three `pro`, one `enterprise`. */
export const TIER_MIX = [
  'free',
  'pro',
  'free',
  'free',
  'pro',
  'free',
  'enterprise',
  'free',
  'pro',
  'free',
] as const;
export type Tier = (typeof TIER_MIX)[number];

export interface OpenLoopRun {
  readonly targets: readonly string[];
  /** Path and query of every request. */
  readonly path: string;
  /** Requests a second, sent at fixed intervals. */
  readonly rate: number;
  readonly durationMs: number;
  readonly clientsPerTier: number;
}

/** What the requests due in one second came to. */
export interface OpenLoopSecond {
  sent: number;
  /** 2xx. */
  ok: number;
  /** 2xx within 500 ms of when the request was due (goodput). */
  good: number;
  /** 429 from adaptive protection (its body says so). */
  shed: number;
  /** 429 from a configured limit. */
  limited: number;
  /** Anything else: other statuses, socket errors, timeouts (2 s). */
  errors: number;
  /** Of the 2xx, from when each was due, ms. */
  okLatencies: number[];
  byTier: Partial<Record<Tier, { sent: number; ok: number; shed: number }>>;
}

export type ToOpenLoop =
  | { readonly type: 'run'; readonly id: number; readonly run: OpenLoopRun }
  | { readonly type: 'exit' };

export type FromOpenLoop =
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly id: number; readonly seconds: OpenLoopSecond[] };
