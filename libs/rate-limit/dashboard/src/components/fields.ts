import { windowText } from '../format';
import type { PolicyView } from '../types';

/** A count as a number when it is one; otherwise the raw text, for the API to reject by name. */
export function countOrText(text: string): number | string {
  const t = text.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

/** The fields the API's validation messages name (they start with the property name). */
export function fieldsNamed(messages: string[]): Set<string> {
  const names = new Set<string>();
  for (const m of messages) {
    const match = /^(?:property\s+)?([a-zA-Z]+)\b/.exec(m);
    if (match) names.add(match[1] === 'windowMs' ? 'window' : match[1]);
  }
  return names;
}

/** The threshold form's inputs, as typed. */
export interface Fields {
  limit: string;
  window: string;
  burst: string;
  algo: string;
  mode: string;
  enabled: boolean;
}

export const fieldsOf = (p: PolicyView): Fields => ({
  limit: String(p.limit),
  window: windowText(p.windowMs),
  burst: String(p.burst),
  algo: p.algo,
  mode: p.mode,
  enabled: p.enabled,
});

/** Only what the operator changed, so a save never rewrites values someone else just set. */
export function changes(now: Fields, was: Fields): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (now.limit.trim() !== was.limit) body.limit = countOrText(now.limit);
  if (now.window.trim() !== was.window) body.window = now.window.trim();
  if (now.burst.trim() !== was.burst) body.burst = countOrText(now.burst);
  if (now.algo !== was.algo) body.algo = now.algo;
  if (now.mode !== was.mode) body.mode = now.mode;
  if (now.enabled !== was.enabled) body.enabled = now.enabled;
  return body;
}
