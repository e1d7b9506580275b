import { RateLimitError } from './rate-limit.error';

/** A `.lua` file is not next to the compiled code (the build's asset copy was skipped?). */
export class MissingScriptError extends RateLimitError {
  /** Set explicitly: a minifier would rename the class. */
  override readonly name = 'MissingScriptError';

  constructor(
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(`Rate limit Lua script missing: ${path} (was the build's asset copy skipped?)`, options);
  }
}
