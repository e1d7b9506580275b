import type { ClientOverride } from '../policy/client-override';

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
  // A zero threshold (written by hand) would divide by zero: the policy's own applies instead.
  const [limit, windowMs, burst] = quota.slice(1).map((n) => Number(n) || undefined);
  return { action: 'quota', limit, windowMs, burst: burst ?? limit };
}
