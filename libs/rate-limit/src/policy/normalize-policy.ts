import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import { parseDurationMs } from './parse-duration';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from './policy-limits';
import { RATE_LIMIT_ALGORITHMS, isRateLimitAlgorithm } from './rate-limit-algorithm';
import { RATE_LIMIT_MODES, isRateLimitMode } from './rate-limit-mode';
import type { RateLimitOptions } from './rate-limit-options.interface';
import type { RateLimitPolicy } from './rate-limit-policy.interface';
import { thresholdProblem } from './threshold-problem';

const NAME = /^[A-Za-z0-9._\-#/@]{1,128}$/;

export function checkCount(where: string, field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_LIMIT) {
    throw new RateLimitConfigError(
      where,
      field,
      `must be an integer from 1 to ${MAX_LIMIT} (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

export function checkDuration(where: string, field: string, value: unknown): number {
  const ms = parseDurationMs(value);
  if (!Number.isInteger(ms) || ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS) {
    throw new RateLimitConfigError(
      where,
      field,
      `must be a whole number of ms from ${MIN_WINDOW_MS} to ${MAX_WINDOW_MS}, or a string like ` +
        `'500ms', '10s', '5m', '1h', '1d' (got ${JSON.stringify(value)})`,
    );
  }
  return ms;
}

/** Validates one policy's options; `where` names the handler or option for the error. */
export function normalizePolicy(
  options: RateLimitOptions,
  name: string,
  where: string,
): RateLimitPolicy {
  if (!NAME.test(name)) {
    throw new RateLimitConfigError(
      where,
      'name',
      `must be 1-128 characters of A-Z a-z 0-9 . _ - # / @ (got ${JSON.stringify(name)})`,
    );
  }
  const algo = options.algo ?? 'fixed-window';
  if (!isRateLimitAlgorithm(algo)) {
    throw new RateLimitConfigError(
      where,
      'algo',
      `must be one of ${RATE_LIMIT_ALGORITHMS.join(', ')} (got ${JSON.stringify(algo)})`,
    );
  }
  const limit = checkCount(where, 'limit', options.limit);
  const problem = thresholdProblem({ algo, limit });
  if (problem) throw new RateLimitConfigError(where, 'limit', problem.replace(/^limit /, ''));
  const mode = options.mode ?? 'enforce';
  if (!isRateLimitMode(mode)) {
    throw new RateLimitConfigError(
      where,
      'mode',
      `must be ${RATE_LIMIT_MODES.map((m) => `'${m}'`).join(' or ')} (got ${JSON.stringify(mode)})`,
    );
  }
  if (typeof options.cost === 'number') checkCount(where, 'cost', options.cost);
  if (options.openApi !== undefined && typeof options.openApi !== 'boolean') {
    throw new RateLimitConfigError(
      where,
      'openApi',
      `must be true or false (got ${JSON.stringify(options.openApi)})`,
    );
  }
  if (options.adaptive !== undefined && typeof options.adaptive !== 'boolean') {
    throw new RateLimitConfigError(
      where,
      'adaptive',
      `must be true or false (got ${JSON.stringify(options.adaptive)})`,
    );
  }
  return {
    name,
    algo,
    limit,
    windowMs: checkDuration(where, 'window', options.window),
    burst: options.burst === undefined ? limit : checkCount(where, 'burst', options.burst),
    blockForMs:
      options.blockFor === undefined ? 0 : checkDuration(where, 'blockFor', options.blockFor),
    mode,
    enabled: true,
    ...(options.adaptive === undefined ? {} : { adaptive: options.adaptive }),
  };
}
