import { SignalWindow } from './signal-window';

describe('SignalWindow', () => {
  it('averages utilisation, CPU and heap, keeps the worst delay, and starts afresh', () => {
    const window = new SignalWindow();
    window.add({ elu: 0.2, eventLoopDelayMs: 5, cpu: 0.1, heap: 0.3, tickLatenessMs: 1 });
    window.add({ elu: 0.6, eventLoopDelayMs: 300, cpu: 0.5, heap: 0.5, tickLatenessMs: 280 });
    expect(window.take()).toEqual({
      elu: 0.4,
      eventLoopDelayMs: 300,
      cpu: 0.3,
      heap: 0.4,
      tickLatenessMs: 280,
    });
    expect(window.take()).toEqual({
      elu: 0,
      eventLoopDelayMs: 0,
      cpu: undefined,
      heap: 0,
      tickLatenessMs: 0,
    });
  });

  it('has no CPU signal when no tick measured one', () => {
    const window = new SignalWindow();
    window.add({ elu: 0.2, eventLoopDelayMs: 5, heap: 0.3, tickLatenessMs: 1 });
    expect(window.take().cpu).toBeUndefined();
  });
});
