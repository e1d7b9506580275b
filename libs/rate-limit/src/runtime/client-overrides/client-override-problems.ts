import {
  CLIENT_OVERRIDE_ACTIONS,
  DENY_MESSAGE_RULES,
  MAX_DENY_MESSAGE_LENGTH,
  WITHOUT_CONTROL_CHARACTERS,
  type ClientOverride,
} from '../../policy/client-override';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import type { RateLimitPolicy } from '../../policy/rate-limit-policy.interface';
import { thresholdProblem } from '../../policy/threshold-problem';

const isIntegerIn = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/**
 * What is wrong with a client override for this policy (empty when nothing): checked before
 * anything is written, whoever calls (the admin API validates the shape first).
 */
export function clientOverrideProblems(
  override: ClientOverride,
  policy: RateLimitPolicy,
  nowMs: number,
): string[] {
  const problems: string[] = [];
  const { action, limit, windowMs, burst, message, expiresAt } = override;
  if (!(CLIENT_OVERRIDE_ACTIONS as readonly unknown[]).includes(action)) {
    problems.push(`action must be one of ${CLIENT_OVERRIDE_ACTIONS.join(', ')}`);
  }
  const thresholds = { limit, windowMs, burst };
  if (action === 'quota') {
    if (limit === undefined && windowMs === undefined && burst === undefined) {
      problems.push('a quota must set at least one of limit, window, burst');
    }
    for (const field of ['limit', 'burst'] as const) {
      const value = thresholds[field];
      if (value !== undefined && !isIntegerIn(value, 1, MAX_LIMIT)) {
        problems.push(`${field} must be an integer from 1 to ${MAX_LIMIT}`);
      }
    }
    if (windowMs !== undefined && !isIntegerIn(windowMs, MIN_WINDOW_MS, MAX_WINDOW_MS)) {
      problems.push(
        `window must be a whole number of ms from ${MIN_WINDOW_MS} to ${MAX_WINDOW_MS}`,
      );
    }
    const problem =
      limit === undefined ? undefined : thresholdProblem({ algo: policy.algo, limit });
    if (problem) problems.push(problem);
  } else {
    for (const [field, value] of Object.entries(thresholds)) {
      if (value !== undefined) problems.push(`${field} is only for action 'quota'`);
    }
  }
  if (message !== undefined) {
    if (action !== 'deny') problems.push("message is only for action 'deny'");
    else if (typeof message !== 'string' || !WITHOUT_CONTROL_CHARACTERS.test(message)) {
      problems.push('message must be text without control characters');
    } else if (message.length > MAX_DENY_MESSAGE_LENGTH) {
      problems.push(`message must be at most ${MAX_DENY_MESSAGE_LENGTH} characters`);
    } else {
      for (const [rule, problem] of DENY_MESSAGE_RULES) {
        if (!rule.test(message)) problems.push(problem);
      }
    }
  }
  if (expiresAt !== undefined && !isIntegerIn(expiresAt, nowMs + 1, nowMs + MAX_WINDOW_MS)) {
    problems.push('expiresAt must be in the future, at most 366 days ahead');
  }
  return problems;
}
