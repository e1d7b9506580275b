import { applyDecorators } from '@nestjs/common';
import { Matches, registerDecorator, type ValidationOptions } from 'class-validator';
import { DENY_MESSAGE_RULES } from '../../policy/client-override';

/**
 * RFC 3339 (ISO 8601) date-time with its offset: without one, the instant would depend on the
 * server's time zone.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i;

/** Milliseconds since the epoch of a valid `expiresAt` value, or undefined when it is not one. */
export function instantToMs(value: unknown): number | undefined {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  // Date.parse rolls 2026-02-31 over to March 3rd: the day must exist in its month.
  const [year, month, day] = match.slice(1, 4).map(Number);
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** An ISO 8601 date-time with offset (`2026-01-01T00:00:00Z`), or ms since the epoch. */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isInstant',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => instantToMs(value) !== undefined,
        defaultMessage: (args) =>
          `${args?.property ?? 'expiresAt'} must be an ISO 8601 date-time with a time zone ` +
          "(like '2026-01-01T00:00:00Z') or a positive whole number of ms since the Unix epoch",
      },
    });
}

/** Two fields that say the same thing differently: which one the operator meant is unclear. */
export function NotWith(other: string, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'notWith',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [other],
      options,
      validator: {
        validate: (_value: unknown, args) =>
          (args?.object as Record<string, unknown>)[other] === undefined,
        defaultMessage: (args) =>
          `${args?.property} and ${other} are exclusive: send only one of them`,
      },
    });
}

/** A deny message's rules (DENY_MESSAGE_RULES, which ClientOverrides applies too), each a 400. */
export function DenyMessageRules(): PropertyDecorator {
  return applyDecorators(
    ...DENY_MESSAGE_RULES.map(([rule, message]) => Matches(rule, { message })),
  );
}
