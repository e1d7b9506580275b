import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { MAX_LIMIT, MAX_WINDOW_MS, MIN_WINDOW_MS } from '../../policy/policy-limits';
import { AgreesWithWindow, IsOptionalNotNull, IsWindow } from './window.validators';

// The threshold fields of the admin bodies (a policy's, a tier's, a client quota's): the same
// validation everywhere, each body with its own description.

/** A duration text as `window` accepts it, and a number of ms, in Swagger. */
export const DURATION_SCHEMA = {
  type: 'string',
  pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)\\s*$',
} as const;
export const MS_SCHEMA = {
  type: 'integer',
  minimum: MIN_WINDOW_MS,
  maximum: MAX_WINDOW_MS,
} as const;

/** An optional count 1..MAX_LIMIT (`limit`, `burst`). */
export function CountField(description: string, example: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ description, type: 'integer', minimum: 1, maximum: MAX_LIMIT, example }),
    IsOptionalNotNull(),
    IsInt(),
    Min(1),
    Max(MAX_LIMIT),
  );
}

/** An optional `window`: a duration text or a number of ms (whole ms, 1 ms to 366 days). */
export function WindowField(
  description: string,
  example: string,
  exampleMs: number,
): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description,
      oneOf: [
        { ...DURATION_SCHEMA, example },
        { ...MS_SCHEMA, example: exampleMs },
      ],
      example,
    }),
    IsOptionalNotNull(),
    IsWindow(),
  );
}

/** An optional `windowMs`, which must agree with `window` when both are sent. */
export function WindowMsField(description: string, example: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ description, ...MS_SCHEMA, example }),
    IsOptionalNotNull(),
    IsInt(),
    Min(MIN_WINDOW_MS),
    Max(MAX_WINDOW_MS),
    AgreesWithWindow(),
  );
}
