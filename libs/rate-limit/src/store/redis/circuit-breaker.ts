import { EventEmitter } from 'node:events';

export type CircuitState = 'closed' | 'open';

export interface CircuitBreakerOptions {
  /** Consecutive failed commands (errors or timeouts) that open the circuit. */
  failureThreshold: number;
  /** While open, how often the probe is tried. */
  probeIntervalMs: number;
}

/**
 * Stops sending to a Redis that keeps failing: after `failureThreshold` consecutive failures
 * every decision fails at once (and `onRedisError` applies) instead of waiting for a timeout,
 * while a probe (a PING) is tried every `probeIntervalMs`; the first probe that succeeds closes
 * the circuit. Emits 'open' and 'close'.
 */
export class CircuitBreaker extends EventEmitter {
  private failures = 0;
  private timer?: NodeJS.Timeout;
  state: CircuitState = 'closed';

  constructor(
    private readonly options: CircuitBreakerOptions,
    private readonly probe: () => Promise<unknown>,
  ) {
    super();
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  succeeded(): void {
    this.failures = 0;
  }

  failed(): void {
    if (this.state === 'open' || ++this.failures < this.options.failureThreshold) return;
    this.state = 'open';
    this.emit('open');
    this.scheduleProbe();
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.failures = 0;
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.emit('close');
  }

  /** Stops probing for good (module shutdown). */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.removeAllListeners();
  }

  private scheduleProbe(): void {
    this.timer = setTimeout(() => {
      this.probe().then(
        () => this.close(),
        () => this.scheduleProbe(),
      );
    }, this.options.probeIntervalMs).unref();
  }
}
