import { once } from 'node:events';
import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  it('opens after the threshold of consecutive failures, not before', () => {
    const breaker = new CircuitBreaker(
      { failureThreshold: 3, probeIntervalMs: 10 },
      () => new Promise(() => undefined),
    );
    breaker.failed();
    breaker.failed();
    breaker.succeeded(); // a success resets the count
    breaker.failed();
    breaker.failed();
    expect(breaker.isOpen).toBe(false);
    breaker.failed();
    expect(breaker.isOpen).toBe(true);
    breaker.dispose();
  });

  it('probes while open and closes on the first successful probe', async () => {
    let probes = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 1, probeIntervalMs: 5 }, async () => {
      if (++probes < 3) throw new Error('still down');
    });
    const opened = once(breaker, 'open');
    breaker.failed();
    await opened;
    await once(breaker, 'close');
    expect(probes).toBe(3);
    expect(breaker.isOpen).toBe(false);
    breaker.dispose();
  });
});
