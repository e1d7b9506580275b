/**
 * The invariants every fuzzed answer must keep, as plain throws whose message carries the exact
 * request and response (so a failure is its own reproduction).
 */
import {
  MAX_LIMIT,
  MAX_SLIDING_WINDOW_LIMIT,
  MAX_WINDOW_MS,
  MIN_WINDOW_MS,
} from '../../../libs/rate-limit/src/policy/policy-limits';
import { RATE_LIMIT_ALGORITHMS } from '../../../libs/rate-limit/src/policy/rate-limit-algorithm';
import { clip, type FuzzRequest, type FuzzResponse } from './fuzz-client';

type Json = Record<string, unknown>;

export function exchange(req: FuzzRequest, res?: FuzzResponse): string {
  const headers = Object.entries(req.headers ?? {}).map(([k, v]) => `${k}: ${clip(v, 120)}`);
  return [
    `${req.method} ${clip(req.path)}${req.from ? ` (from ${req.from})` : ''}`,
    ...headers,
    ...(req.body === undefined ? [] : [`body: ${clip(req.body)}`]),
    ...(res ? [`-> ${res.status} ${res.headers['content-type'] ?? ''} ${clip(res.body)}`] : []),
  ].join('\n  ');
}

function fail(why: string, req: FuzzRequest, res?: FuzzResponse): never {
  throw new Error(`${why}\n  ${exchange(req, res)}`);
}

/**
 * A 2xx or a 4xx (never 5xx, never anything else), with a JSON body unless it is a 204.
 * Returns the parsed body.
 */
export function expectJsonAnswer(req: FuzzRequest, res: FuzzResponse): unknown {
  const ok = (res.status >= 200 && res.status < 300) || (res.status >= 400 && res.status < 500);
  if (!ok) fail(`status ${res.status} (only 2xx and 4xx are allowed)`, req, res);
  if (res.status === 204) return undefined;
  if (!/^application\/json\b/.test(res.headers['content-type'] ?? '')) {
    fail('the answer is not application/json', req, res);
  }
  try {
    return JSON.parse(res.body) as unknown;
  } catch {
    return fail('the body does not parse as JSON', req, res);
  }
}

const int = (v: unknown, min: number, max: number) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

const THRESHOLDS: Record<string, (v: unknown) => boolean> = {
  algo: (v) => (RATE_LIMIT_ALGORITHMS as readonly unknown[]).includes(v),
  limit: (v) => int(v, 1, MAX_LIMIT),
  windowMs: (v) => int(v, MIN_WINDOW_MS, MAX_WINDOW_MS),
  burst: (v) => int(v, 1, MAX_LIMIT),
  mode: (v) => v === 'enforce' || v === 'shadow',
  enabled: (v) => typeof v === 'boolean',
};

function thresholdProblems(t: Json, where: string, partial = false): string[] {
  const problems = Object.entries(THRESHOLDS).flatMap(([field, valid]) =>
    (partial && t[field] === undefined) || valid(t[field])
      ? []
      : [`${where}.${field} = ${JSON.stringify(t[field])}`],
  );
  if (t.algo === 'sliding-window' && (t.limit as number) > MAX_SLIDING_WINDOW_LIMIT) {
    problems.push(`${where}: sliding-window with limit ${String(t.limit)}`);
  }
  return problems;
}

/** A policy view whose every value is one the policy could run with. */
export function expectPolicyView(view: unknown, req: FuzzRequest, res: FuzzResponse): void {
  const v = (view ?? {}) as Json;
  const problems = [
    ...(typeof v.name === 'string' ? [] : ['name']),
    ...thresholdProblems(v, 'view'),
    ...thresholdProblems((v.defaults ?? {}) as Json, 'defaults'),
    ...(Array.isArray(v.routes) ? [] : ['routes']),
  ];
  if (v.override !== null) {
    const override = (v.override ?? {}) as Json;
    const { updatedAt, ...fields } = override;
    problems.push(...thresholdProblems(fields, 'override', true));
    const unknown = Object.keys(fields).filter((field) => !(field in THRESHOLDS));
    if (unknown.length > 0) problems.push(`override has unknown fields ${unknown.join(', ')}`);
    if (updatedAt !== undefined && !int(updatedAt, 0, Number.MAX_SAFE_INTEGER)) {
      problems.push(`override.updatedAt = ${JSON.stringify(updatedAt)}`);
    }
  }
  const stats = (v.stats ?? {}) as Json;
  for (const field of ['allowed', 'rejected', 'shadowRejected']) {
    if (!int(stats[field], 0, Number.MAX_SAFE_INTEGER)) {
      problems.push(`stats.${field} = ${JSON.stringify(stats[field])}`);
    }
  }
  if (problems.length > 0) fail(`invalid policy view: ${problems.join('; ')}`, req, res);
}

/** `{ items: [{ identity, used, remaining, resetMs }], cursor }`. */
export function expectKeysPage(page: unknown, req: FuzzRequest, res: FuzzResponse): void {
  const p = (page ?? {}) as Json;
  const items = Array.isArray(p.items) ? (p.items as Json[]) : undefined;
  const okItem = (item: Json) =>
    typeof item.identity === 'string' &&
    ['used', 'remaining', 'resetMs'].every((f) => int(item[f], 0, Number.MAX_SAFE_INTEGER));
  if (!items || !items.every(okItem) || !(p.cursor === null || typeof p.cursor === 'string')) {
    fail('invalid keys page', req, res);
  }
}

/** Fails unless `cond`, with the exchange in the message. */
export function expectThat(cond: boolean, why: string, req: FuzzRequest, res: FuzzResponse): void {
  if (!cond) fail(why, req, res);
}
