import type { ClientOverride } from '../policy/client-override';
import { instantToMs } from './dto/client-override.validators';
import type { SetClientOverrideDto } from './dto/set-client-override.dto';
import { windowToMs } from './dto/window.validators';
import { windowMsOf } from './to-policy-patch';

/**
 * Turns a validated PUT body into the `ClientOverride` to store: `window` becomes `windowMs`,
 * `expiresAt` ms since the epoch, `expiresIn` an `expiresAt` counted from `nowMs`; `action`
 * defaults to `quota`. Which fields suit the action is left to `ClientOverrides`, which checks
 * it whoever calls.
 */
export function toClientOverride(
  dto: SetClientOverrideDto | undefined,
  nowMs: number = Date.now(),
): ClientOverride {
  const windowMs = windowMsOf(dto);
  const expiresAt =
    dto?.expiresAt !== undefined
      ? instantToMs(dto.expiresAt)
      : dto?.expiresIn !== undefined
        ? nowMs + windowToMs(dto.expiresIn)!
        : undefined;
  return {
    action: dto?.action ?? 'quota',
    ...(dto?.limit !== undefined && { limit: dto.limit }),
    ...(windowMs !== undefined && { windowMs }),
    ...(dto?.burst !== undefined && { burst: dto.burst }),
    ...(dto?.message !== undefined && { message: dto.message }),
    ...(expiresAt !== undefined && { expiresAt }),
  };
}
