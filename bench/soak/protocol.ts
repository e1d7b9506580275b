/** Messages between the soak (parent) and its load generator (a forked child process). */
import type { CheckSummary } from './over-admission';
import type { SoakPolicy } from './policies';

export interface LoadConfig {
  /** Base URLs of the instances (`http://127.0.0.1:port`); each request picks one at random. */
  readonly targets: readonly string[];
  readonly policies: readonly SoakPolicy[];
  /** Distinct clients, each a loopback source address of its own. */
  readonly identities: number;
  /** Zipf exponent of the clients' popularity: a few hot clients, a long cold tail. */
  readonly zipf: number;
  /** Requests kept in flight (each answered request is replaced at once). */
  readonly inflight: number;
}

export type ToGenerator =
  | { readonly type: 'start'; readonly config: LoadConfig }
  | { readonly type: 'sample' }
  | { readonly type: 'stop' };

/** Counts since the previous sample. */
export interface LoadSample {
  readonly type: 'sample';
  readonly atMs: number;
  readonly intervalMs: number;
  /** Answered 200 or 429 (anything else is an error). */
  readonly responses: number;
  readonly ok: number;
  readonly limited: number;
  /** Any other status, and socket errors or timeouts, by code. */
  readonly errors: Record<string, number>;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Found by the over-admission check in this interval (all algorithms). */
  readonly overAdmissions: number;
  /** Distinct source addresses used so far. */
  readonly identitiesSeen: number;
}

export type FromGenerator =
  | { readonly type: 'ready' }
  | LoadSample
  | { readonly type: 'stopped'; readonly check: CheckSummary; readonly totals: LoadTotals };

/** Whole-run counts (mutable: the generator adds to them as responses arrive). */
export interface LoadTotals {
  responses: number;
  ok: number;
  limited: number;
  errors: Record<string, number>;
  byAlgo: Record<string, { ok: number; limited: number }>;
}
