import type * as SwaggerPackage from '@nestjs/swagger';

/** The parts of `@nestjs/swagger` the OpenAPI documentation uses. */
export type Swagger = Pick<typeof SwaggerPackage, 'ApiProperty' | 'ApiSchema' | 'DECORATORS'>;

let loaded: Swagger | null | undefined;

/**
 * `@nestjs/swagger` when the application has it installed, else null. It is an optional peer:
 * applications that do not document their API must not need it, so it is never imported at the
 * top of a file. Loaded synchronously because decorators cannot wait.
 */
export function optionalSwagger(): Swagger | null {
  if (loaded === undefined) loaded = load();
  return loaded;
}

function load(): Swagger | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see optionalSwagger
    return require('@nestjs/swagger') as Swagger;
  } catch (error) {
    // Only its absence; a broken install (one of its own dependencies missing) must surface.
    if (isMissing(error, '@nestjs/swagger')) return null;
    throw error;
  }
}

function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${name}'`)
  );
}
