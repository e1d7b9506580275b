import { resolveAdaptiveOptions } from '../../src/adaptive/adaptive-options';
import type { LoadSignals } from '../../src/adaptive/pressure';

/** Three tiers as the adaptive tests shed them: free first, then pro, enterprise exempt. */
export const THREE_TIERS = resolveAdaptiveOptions({
  mode: 'enforce',
  tiers: [{ name: 'free' }, { name: 'pro', floor: 0.5 }, { name: 'enterprise', exempt: true }],
});

/** Signals of an instance at rest, and of one whose event loop is saturated. */
export const CALM: LoadSignals = { elu: 0.3, eventLoopDelayMs: 2, heap: 0.3, tickLatenessMs: 1 };
export const SATURATED: LoadSignals = { ...CALM, elu: 1 };

/** An uptime past the warm-up, when every signal counts. */
export const WARM_UPTIME_MS = 60_000;
