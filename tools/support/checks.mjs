// @ts-check
/**
 * A minimal harness for the tools' end-to-end checks: named checks that fail with what was
 * expected and what came instead, timed steps, one overall deadline, and a closing line in the
 * form CI reads ("<name>: N passed, N failed").
 */

export class CheckFailure extends Error {}

/** @param {string} suite */
export function createChecks(suite) {
  let passed = 0;
  let failed = 0;
  let stage = 'starting';
  const started = Date.now();
  const seconds = (/** @type {number} */ since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
  return {
    /**
     * Counts a passed check, or throws a CheckFailure naming it and what was seen.
     * @param {unknown} condition @param {string} description @param {() => unknown} [seen]
     */
    ok(condition, description, seen) {
      if (!condition) {
        const detail = seen ? `\n  seen: ${JSON.stringify(seen(), null, 2)}` : '';
        throw new CheckFailure(`${suite}: check failed: ${description}${detail}`);
      }
      passed++;
      console.log(`  ok  ${description}`);
    },
    /**
     * Runs one stage, logging how long it took.
     * @template T @param {string} label @param {() => Promise<T> | T} fn @returns {Promise<T>}
     */
    async step(label, fn) {
      const since = Date.now();
      stage = label;
      console.log(`- ${label}`);
      const result = await fn();
      console.log(`  (${label}: ${seconds(since)})`);
      return result;
    },
    /** The step running now (for a deadline's message). */
    stage: () => stage,
    /** Records the failure that ended the run (prints it; the caller sets the exit code). */
    fail(/** @type {unknown} */ error) {
      failed++;
      // Failures name their command or check and carry its output; only a bug in the tool
      // itself (a TypeError and the like) needs its stack.
      const bug =
        error instanceof TypeError ||
        error instanceof ReferenceError ||
        error instanceof SyntaxError;
      const text = error instanceof Error ? (bug ? error.stack : error.message) : String(error);
      console.error(error instanceof CheckFailure ? text : `${suite}: ${text}`);
    },
    /** The closing line, with the whole run's time. */
    summary() {
      console.log(`${suite} took ${seconds(started)}`);
      console.log(`${suite}: ${passed} passed, ${failed} failed`);
      return failed === 0;
    },
  };
}

/**
 * Rejects after `ms` with a message naming what was being waited for: the bound around a whole
 * run, so a hang anywhere still ends in a clear failure.
 * @template T @param {Promise<T>} work @param {number} ms @param {() => string} what
 * @returns {Promise<T>}
 */
export function withDeadline(work, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${ms / 1000} s during: ${what()}`)),
      ms,
    );
  });
  return /** @type {Promise<T>} */ (Promise.race([work, deadline])).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * One HTTP request, bounded by a timeout; the body is read whole.
 * @param {string} url @param {Record<string, string>} [headers]
 */
export async function httpGet(url, headers = {}) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
