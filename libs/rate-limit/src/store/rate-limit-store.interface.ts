import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';
import type { RateLimitDecision } from '../decision/rate-limit-decision.interface';

/** `peek` writes nothing; `refund` gives back a cost that an earlier `consume` charged. */
export type StoreOp = 'consume' | 'peek' | 'refund';

/** One policy of one identity, with the keys that hold its state. */
export interface StoreEntry {
  readonly key: string;
  /**
   * Where this client's override of the policy would be (see client-override-value.ts); left
   * out while no client override is in use (KeyBuilder.clientOverridesInUse): nothing is read.
   */
  readonly overrideKey?: string;
  readonly blockKey: string;
  readonly policy: RateLimitPolicy;
  readonly cost: number;
}

export interface StoreReply {
  /** Every enforced policy admitted the request, so every admitting policy was charged. */
  readonly admitted: boolean;
  /** One per entry, in the entries' order, as the engine reports them. */
  readonly decisions: readonly RateLimitDecision[];
  /** The store's time of the decision (µs): a refund names it, so it gives back to that window. */
  readonly decidedAtUs: number;
  /**
   * The entries (by index) admitted by an `allow` override over their limit: nothing was
   * charged, so nothing is refunded.
   */
  readonly uncharged?: readonly number[];
}

/**
 * The seam between the decision engine and where state lives. Decides all policies of one
 * identity atomically, all-or-nothing; both stores give the same replies for the same calls
 * (the conformance suite runs one set of expectations against each), and nothing outside
 * `store/` knows which one it talks to. `nowUs` (tests only) replaces the store's clock.
 */
export interface RateLimitStore {
  /** Reported as the `source` of the decisions it makes; never branched on. */
  readonly source: StoreSource;
  /**
   * `chargedAtUs` (refund only): the `decidedAtUs` of the consume being refunded; the window
   * algorithms give back to the window that was charged, which may have ended since.
   */
  decide(
    op: StoreOp,
    entries: readonly StoreEntry[],
    nowUs?: number,
    chargedAtUs?: number,
  ): Promise<StoreReply>;
  /**
   * Only a store in this process, which never fails for want of a connection: decides every
   * group of a call at once, all-or-nothing across them (one reply for all their entries, in
   * order). The engine then uses it instead of one call per group and refunds, and no outage
   * fallback applies.
   */
  decideAll?(
    op: StoreOp,
    groups: readonly (readonly StoreEntry[])[],
    nowUs?: number,
  ): Promise<StoreReply>;
  /**
   * The standing of many groups without charging (the admin listing): batched, on a time budget
   * of its own, never counted as a request failure (no breaker, no fallback). A group Redis
   * could not read (a key of another type) is an Error in its place; a store that does not
   * answer in time rejects the whole call.
   */
  inspect(groups: readonly (readonly StoreEntry[])[]): Promise<(StoreReply | Error)[]>;
  /** Which of the keys exist (the admin listing), on the listing's own time budget like inspect. */
  existing(keys: readonly string[]): Promise<boolean[]>;
  /**
   * Lowers each key's time to live to `maxMs` where it is longer (a window was shortened), on
   * the listing's own time budget like inspect.
   */
  shortenExpiries(keys: readonly string[], maxMs: number): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
  /**
   * Sets the client override that decisions read at `key` (the value of client-override-value.ts),
   * until `expiresAt` (ms since the epoch) when given; null removes it. On the listing's own time
   * budget like inspect.
   */
  putClientOverride(key: string, value: string | null, expiresAt?: number): Promise<void>;
  /**
   * Keys matching a glob (`*` only), a page at a time without blocking the store; `cursor` null
   * starts, and a null cursor in the reply ends. A page may hold more or fewer than `count`.
   * Each store has its own cursors: one it did not give out is an `InvalidCursorError`.
   */
  scan(match: string, cursor: string | null, count: number): Promise<ScanPage>;
  /**
   * Only a store that can time out: tells `listener` what Redis answered to a consume call after
   * that call had timed out (Redis did decide those groups; the requests were decided by
   * `onRedisError` meanwhile). One listener; a later one replaces it.
   */
  onLateReplies?(listener: LateRepliesListener): void;
}

/** The groups of a consume call that timed out, and Redis's late reply for each (or its error). */
export type LateRepliesListener = (
  groups: readonly (readonly StoreEntry[])[],
  replies: readonly (StoreReply | Error)[],
) => void;

/** Which store made a decision. */
export type StoreSource = 'redis' | 'memory';

export interface ScanPage {
  readonly keys: string[];
  readonly cursor: string | null;
}
