import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { parseDurationMs } from '../../policy/parse-duration';
import { MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';

/** A window the policies accept: whole milliseconds from 1 ms to 366 days. */
export function isWindowMs(ms: number): boolean {
  return Number.isInteger(ms) && ms >= MIN_WINDOW_MS && ms <= MAX_WINDOW_MS;
}

/** Milliseconds of a valid `window` value, or undefined when it is not one. */
export function windowToMs(value: unknown): number | undefined {
  const ms = parseDurationMs(value);
  return isWindowMs(ms) ? ms : undefined;
}

/**
 * Like `@IsOptional()`, but only an absent property is skipped: an explicit `null` is validated
 * (and rejected), so it can never reach the service as a "value".
 */
export const IsOptionalNotNull = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);

/** `'500ms' | '10s' | '5m' | '1h' | '1d'` or a number of ms, giving whole ms in 1 ms..366 days. */
export function IsWindow(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isWindow',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' || typeof value === 'number') &&
          windowToMs(value) !== undefined,
        defaultMessage: (args) =>
          `${args?.property ?? 'window'} must be a duration like '500ms', '10s', '5m', '1h' or '1d', or a number of ms, ` +
          `giving whole milliseconds from ${MIN_WINDOW_MS} to ${MAX_WINDOW_MS} (366 days)`,
      },
    });
}

/**
 * On `windowMs`: when `window` is sent too (and valid), both must name the same duration;
 * otherwise it is unclear which one the operator meant.
 */
export function AgreesWithWindow(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'agreesWithWindow',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args) => {
          const window = (args?.object as { window?: unknown }).window;
          if (window === undefined) return true;
          const ms = windowToMs(window);
          return ms === undefined || ms === value; // an invalid window reports its own error
        },
        defaultMessage: (args) => {
          const window = (args?.object as { window?: unknown } | undefined)?.window;
          return (
            `${args?.property ?? 'windowMs'} (${JSON.stringify(args?.value)}) disagrees with window (${JSON.stringify(window)} = ` +
            `${windowToMs(window)} ms); send only one of them`
          );
        },
      },
    });
}
