import type { ClientOverride } from '../policy/client-override';
import { MAX_LIMIT, MAX_WINDOW_MS } from '../policy/policy-limits';

/**
 * How a client override is stored at its key (`<prefix>:{<identity>}:<policy>:client`), read by
 * lua/decide.lua and the memory store alike: `allow`, `deny` or `deny:<message>`, or
 * `quota:<limit>:<windowMs>:<burst>` with an empty field for a threshold left to the policy.
 * Its expiry is the key's own (PXAT), so it vanishes by itself.
 */
export function encodeClientOverride(override: ClientOverride): string {
  switch (override.action) {
    case 'allow':
      return 'allow';
    case 'deny':
      return override.message === undefined ? 'deny' : `deny:${override.message}`;
    case 'quota': {
      const { limit, windowMs, burst } = override;
      return `quota:${limit ?? ''}:${windowMs ?? ''}:${burst ?? ''}`;
    }
  }
}

/** What a stored value asks of a decision: as lua/decide.lua reads it; anything else is none. */
export type StoredClientOverride =
  | { readonly action: 'allow' }
  | { readonly action: 'deny'; readonly message: string | undefined }
  | {
      readonly action: 'quota';
      readonly limit?: number;
      readonly windowMs?: number;
      readonly burst?: number;
    };

const QUOTA = /^quota:(\d*):(\d*):(\d*)$/;

export function decodeClientOverride(raw: unknown): StoredClientOverride | undefined {
  if (typeof raw !== 'string') return undefined;
  if (raw === 'allow') return { action: 'allow' };
  if (raw === 'deny') return { action: 'deny', message: undefined };
  if (raw.startsWith('deny:')) return { action: 'deny', message: raw.slice(5) };
  const quota = QUOTA.exec(raw);
  if (!quota) return undefined;
  // A threshold out of bounds (written by hand: a zero would divide by zero) is the policy's.
  const within = (raw: string, max: number) => {
    const n = Number(raw);
    return raw !== '' && n >= 1 && n <= max ? n : undefined;
  };
  const limit = within(quota[1], MAX_LIMIT);
  const burst = within(quota[3], MAX_LIMIT);
  return {
    action: 'quota',
    limit,
    windowMs: within(quota[2], MAX_WINDOW_MS),
    burst: burst ?? limit,
  };
}
