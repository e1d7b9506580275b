/**
 * Runs fast-check properties against a live server with bounded concurrency: `lanes` properties
 * at once, each sequential, each seeded from one base seed (FUZZ_SEED, else random and printed),
 * so a failure is replayed with `FUZZ_SEED=<seed>` and fast-check's own `seed`/`path`.
 */
import fc from 'fast-check';
import { clip } from './fuzz-client';

let baseSeed: number | undefined;

/** The base seed of this run: FUZZ_SEED when set, else a fresh one (the same for the whole file). */
export function fuzzSeed(): number {
  if (baseSeed !== undefined) return baseSeed;
  const fromEnv = process.env.FUZZ_SEED;
  if (fromEnv !== undefined && fromEnv !== '') {
    const seed = Number(fromEnv);
    if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer: ${fromEnv}`);
    return (baseSeed = seed);
  }
  return (baseSeed = Math.floor(Math.random() * 2 ** 31));
}

/** FUZZ_SCALE multiplies every surface's runs (default 1: the budget of `npm test`). */
function fuzzScale(): number {
  const scale = Number(process.env.FUZZ_SCALE ?? 1);
  if (!(scale > 0))
    throw new Error(`FUZZ_SCALE must be a positive number: ${process.env.FUZZ_SCALE}`);
  return scale;
}

export interface LanesOptions<T> {
  /** Named in failure messages. */
  surface: string;
  seed: number;
  lanes: number;
  runsPerLane: number;
  /** The generator of lane `lane` (e.g. one policy per lane, so writes to it stay sequential). */
  arbitrary: (lane: number) => fc.Arbitrary<T>;
  check: (value: T, lane: number) => Promise<void>;
}

/**
 * Every lane runs to its end (or first failure, shrunk); then one error lists the failed lanes:
 * the error (with the exact request and response), the shrunk counterexample, seed and path.
 */
export async function runLanes<T>(options: LanesOptions<T>): Promise<void> {
  const { surface, seed, lanes } = options;
  const numRuns = Math.max(1, Math.round(options.runsPerLane * fuzzScale()));
  const results = await Promise.all(
    Array.from({ length: lanes }, (_, lane) =>
      fc.check(
        fc.asyncProperty(options.arbitrary(lane), (value) => options.check(value, lane)),
        // Shrinking replays against the live server: bounded so a failure reports quickly.
        { seed: seed + lane, numRuns, interruptAfterTimeLimit: 60_000 * fuzzScale() },
      ),
    ),
  );
  const failed = results.flatMap((details, lane) => {
    if (!details.failed) return [];
    const error = details.errorInstance as Error | undefined;
    return [
      `lane ${lane} (seed ${details.seed}, path "${details.counterexamplePath}", ` +
        `after ${details.numRuns} runs, shrunk ${details.numShrinks} times):\n` +
        `${clip(error?.message ?? String(details.errorInstance), 3_000)}\n` +
        `  counterexample: ${clip(fc.stringify(details.counterexample), 600)}`,
    ];
  });
  if (failed.length > 0) {
    throw new Error(
      `${surface}: ${failed.length} of ${lanes} lanes failed (replay with FUZZ_SEED=${fuzzSeed()})\n\n` +
        failed.join('\n\n'),
    );
  }
}
