import { createHash } from 'node:crypto';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { RateLimitAdminModuleOptions } from './rate-limit-admin-options.interface';

/** Injection token of the SHA-256 digest of the configured admin token. */
export const ADMIN_TOKEN_DIGEST = Symbol('ADMIN_TOKEN_DIGEST');

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Shorter tokens can be guessed or were typed by hand (`change-me`); 32 random characters cannot. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/**
 * Validates the configured token once, at bootstrap, and keeps only its digest: a missing,
 * short or whitespace-containing token (which no `Bearer` header could carry) stops the app.
 */
export function adminTokenDigest(options: RateLimitAdminModuleOptions | undefined): Buffer {
  const token: unknown = options?.token;
  if (typeof token !== 'string' || !/^\S+$/.test(token)) {
    throw new RateLimitConfigError(
      'RateLimitAdminModule',
      'token',
      `must be a non-empty string without whitespace (the admin API's bearer token); got ${
        typeof token === 'string' ? 'a string that is empty or contains whitespace' : typeof token
      }`,
    );
  }
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new RateLimitConfigError(
      'RateLimitAdminModule',
      'token',
      `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (got ${token.length}); ` +
        'generate one, e.g. with `openssl rand -hex 32`',
    );
  }
  return sha256(token);
}
