import { BadRequestException, ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { ListClientsQueryDto } from './dto/list-clients-query.dto';
import { ListKeysQueryDto } from './dto/list-keys-query.dto';
import { SetClientOverrideDto } from './dto/set-client-override.dto';
import { UpdatePolicyDto } from './dto/update-policy.dto';
import { UpdateTierDto } from './dto/update-tier.dto';
import { windowToMs } from './dto/window.validators';
import { MAX_INPUT_DEPTH, nestedDeeperThan } from './input-depth';
import type { PolicyPatch, TierPatch } from './policy-view.interface';

const PATCH_FIELDS: readonly (keyof UpdatePolicyDto)[] = [
  'limit',
  'window',
  'windowMs',
  'algo',
  'burst',
  'mode',
  'enabled',
];

const TIER_PATCH_FIELDS: readonly (keyof UpdateTierDto)[] = [
  'limit',
  'window',
  'windowMs',
  'burst',
];

const CLIENT_OVERRIDE_FIELDS: readonly (keyof SetClientOverrideDto)[] = [
  'action',
  'limit',
  'window',
  'windowMs',
  'burst',
  'message',
  'expiresAt',
  'expiresIn',
];

/** The fields each admin input may carry, checked on the raw object (see AdminValidationPipe). */
const ALLOWED_FIELDS = new Map<unknown, readonly string[]>([
  [UpdatePolicyDto, PATCH_FIELDS],
  [ListKeysQueryDto, ['cursor', 'count']],
  [UpdateTierDto, TIER_PATCH_FIELDS],
  [SetClientOverrideDto, CLIENT_OVERRIDE_FIELDS],
  [ListClientsQueryDto, ['cursor', 'count']],
]);

/**
 * ValidationPipe's whitelist misses fields named after members of objects and classes
 * (`{"constructor": 1}`, `{"prototype": 0}`, `?__proto__=`), and class-transformer drops them
 * silently: every own key of the raw object outside the allow-list is refused, in the same 400
 * as the other bad fields. Input nested deeper than any admin input is refused before
 * class-transformer, which would overflow the stack on it (a 500).
 */
class AdminValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (nestedDeeperThan(value, MAX_INPUT_DEPTH)) {
      throw new BadRequestException([
        `${metadata.type} must not nest objects or arrays more than ${MAX_INPUT_DEPTH} levels deep`,
      ]);
    }
    const allowed = ALLOWED_FIELDS.get(metadata.metatype);
    const missed =
      allowed && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.keys(value)
            .filter((field) => !allowed.includes(field))
            .map((field) => `property ${field} should not exist`)
        : [];
    let result: unknown;
    try {
      result = await super.transform(value, metadata);
    } catch (error) {
      // One 400 listing every bad field, these included.
      if (missed.length > 0 && error instanceof BadRequestException) {
        const { message } = error.getResponse() as { message?: string | string[] };
        throw new BadRequestException([...new Set([...[message ?? []].flat(), ...missed])]);
      }
      throw error;
    }
    if (missed.length > 0) throw new BadRequestException(missed);
    return result;
  }
}

/** The admin controller's validation: unknown fields are 400 naming the field, values are typed. */
export function createAdminValidationPipe(): ValidationPipe {
  return new AdminValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true });
}

/**
 * Turns a validated body into the service's `PolicyPatch` (`window` becomes `windowMs`).
 * An empty body is a 400: a PATCH that changes nothing is almost certainly a client mistake.
 */
export function toPolicyPatch(dto: UpdatePolicyDto | undefined): PolicyPatch {
  const patch: PolicyPatch = {};
  if (dto?.limit !== undefined) patch.limit = dto.limit;
  const windowMs = windowMsOf(dto);
  if (windowMs !== undefined) patch.windowMs = windowMs;
  if (dto?.algo !== undefined) patch.algo = dto.algo;
  if (dto?.burst !== undefined) patch.burst = dto.burst;
  if (dto?.mode !== undefined) patch.mode = dto.mode;
  if (dto?.enabled !== undefined) patch.enabled = dto.enabled;
  return somethingToChange(patch, PATCH_FIELDS);
}

/** As toPolicyPatch, for one tier. */
export function toTierPatch(dto: UpdateTierDto | undefined): TierPatch {
  const patch: TierPatch = {};
  if (dto?.limit !== undefined) patch.limit = dto.limit;
  const windowMs = windowMsOf(dto);
  if (windowMs !== undefined) patch.windowMs = windowMs;
  if (dto?.burst !== undefined) patch.burst = dto.burst;
  return somethingToChange(patch, TIER_PATCH_FIELDS);
}

/** `windowMs`, else `window` in ms (validation made sure both agree when both are sent). */
export function windowMsOf(
  dto: { window?: string | number; windowMs?: number } | undefined,
): number | undefined {
  return dto?.windowMs ?? (dto?.window === undefined ? undefined : windowToMs(dto.window));
}

function somethingToChange<T extends object>(patch: T, fields: readonly string[]): T {
  if (Object.keys(patch).length === 0) {
    throw new BadRequestException([
      `body must set at least one of ${fields.join(', ')} (nothing to change)`,
    ]);
  }
  return patch;
}
