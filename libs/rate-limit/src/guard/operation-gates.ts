import type { RateLimitVerdict } from '../decision/rate-limit-decision.interface';
import type { PolicyRequest } from '../engine/policy-request';
import { mostRestrictive } from './rate-limit-headers';

type Verdict = RateLimitVerdict | Promise<RateLimitVerdict>;

/** The calls of one operation that ask for the same policies, identities and costs. */
interface Gate {
  /** Decisions asked of the engine and not yet answered. */
  inFlight: number;
  /** Calls waiting for room; each starts its own decision when woken. */
  readonly waiting: (() => void)[];
  /** Once one call is rejected, every later one of the operation is, without a decision. */
  rejected?: RateLimitVerdict;
}

/**
 * One GraphQL operation can run a limited resolver thousands of times (aliases, a field of every
 * item of a list), all started before the first answer. Each call still counts against the limit,
 * but within one operation the calls of one resolver for one client take turns: no more are
 * decided at once than the last answer said were left (at least one), and once one is rejected
 * the rest of the operation gets that verdict without asking the store. So a rejected client
 * costs one decision per resolver per operation, however many aliases it sends, and the
 * admitted ones still go several at a time.
 */
export class OperationGates {
  private readonly operations = new WeakMap<object, Map<string, Gate>>();

  /** The verdict for `requests` made by one call of `operation` (its GraphQL context value). */
  decide(operation: object, requests: readonly PolicyRequest[], decide: () => Verdict): Verdict {
    const gate = this.gateFor(operation, requests);
    if (gate.rejected) return gate.rejected;
    if (gate.inFlight === 0) return this.start(gate, decide);
    return new Promise<void>((wake) => gate.waiting.push(wake)).then(
      () => gate.rejected ?? this.started(gate, decide),
    );
  }

  private gateFor(operation: object, requests: readonly PolicyRequest[]): Gate {
    let gates = this.operations.get(operation);
    if (!gates) {
      gates = new Map();
      this.operations.set(operation, gates);
    }
    const key = gateKey(requests);
    let gate = gates.get(key);
    if (!gate) {
      gate = { inFlight: 0, waiting: [] };
      gates.set(key, gate);
    }
    return gate;
  }

  private start(gate: Gate, decide: () => Verdict): Verdict {
    gate.inFlight++;
    return this.started(gate, decide);
  }

  /** Runs a decision already counted in `inFlight`. */
  private started(gate: Gate, decide: () => Verdict): Verdict {
    let verdict: Verdict;
    try {
      verdict = decide();
    } catch (error) {
      this.settle(gate, undefined);
      throw error;
    }
    if (!(verdict instanceof Promise)) {
      this.settle(gate, verdict);
      return verdict;
    }
    return verdict.then(
      (decided) => {
        this.settle(gate, decided);
        return decided;
      },
      (error: unknown) => {
        this.settle(gate, undefined);
        throw error;
      },
    );
  }

  private settle(gate: Gate, verdict: RateLimitVerdict | undefined): void {
    gate.inFlight--;
    if (verdict && !verdict.allowed) {
      gate.rejected = verdict;
      this.wake(gate, gate.waiting.length);
      return;
    }
    // Without an answer to go by (an error, a request let through without a decision), one more.
    const left = verdict ? mostRestrictive(verdict.decisions)?.remaining : undefined;
    const room = left === undefined ? 1 : left - gate.inFlight;
    this.wake(gate, Math.max(room, gate.inFlight === 0 ? 1 : 0));
  }

  /** Wakes `count` waiting calls, counting them in flight before they run. */
  private wake(gate: Gate, count: number): void {
    const woken = gate.waiting.splice(0, count);
    if (!gate.rejected) gate.inFlight += woken.length;
    for (const wake of woken) wake();
  }
}

function gateKey(requests: readonly PolicyRequest[]): string {
  let key = '';
  for (const { policy, identity, cost } of requests) {
    key += `${policy.name}\u0000${policy.tier ?? ''}\u0000${identity}\u0000${cost}\u0001`;
  }
  return key;
}
