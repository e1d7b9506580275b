import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import {
  IdentityFingerprint,
  MIN_IDENTITY_SECRET_LENGTH,
  newIdentitySecret,
} from '../keys/identity-fingerprint';
import type { KeyBuilder } from '../keys/key-builder';
import type { IdentityHashingOptions } from './rate-limit-module-options.interface';

/** The validated `identityHashing` option; undefined when identities are kept in clear. */
export interface IdentityHashing {
  readonly secret?: string;
  readonly ips: boolean;
}

const WHERE = 'RateLimitModule options';

function fail(field: string, message: string): never {
  throw new RateLimitConfigError(WHERE, `identityHashing.${field}`, message);
}

/**
 * Validates `identityHashing` and gives `keys` its first fingerprint: the secret of the options,
 * or a random one of this process that IdentitySecret replaces with the one every instance
 * shares in Redis before the first request.
 */
export function resolveIdentityHashing(
  option: IdentityHashingOptions | false | undefined,
  keys: KeyBuilder,
): IdentityHashing | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw new RateLimitConfigError(
      WHERE,
      'identityHashing',
      `must be false or { secret?, ips? } (got ${JSON.stringify(option)})`,
    );
  }
  const { secret, ips = false } = option ?? {};
  if (
    secret !== undefined &&
    (typeof secret !== 'string' || secret.length < MIN_IDENTITY_SECRET_LENGTH)
  ) {
    fail('secret', `must be a string of at least ${MIN_IDENTITY_SECRET_LENGTH} characters`);
  }
  if (typeof ips !== 'boolean') fail('ips', `must be true or false (got ${JSON.stringify(ips)})`);
  const hashing = { secret, ips };
  keys.useFingerprint(
    new IdentityFingerprint(Buffer.from(secret ?? newIdentitySecret(), 'utf8'), { ips }),
  );
  return hashing;
}
