import type { ExecutionContext } from '@nestjs/common';
import type { IdentityResolver } from '../identity/identity-resolver';

/** One policy as applied to one handler, with everything per-request precomputed. */
export interface RoutePolicy {
  readonly name: string;
  readonly cost: number | ((context: ExecutionContext) => number);
  readonly identity: IdentityResolver;
}

/** The policies guarding one handler; built once at bootstrap. */
export interface CompiledRoute {
  readonly policies: readonly RoutePolicy[];
}
