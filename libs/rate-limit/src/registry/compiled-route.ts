import type { ExecutionContext } from '@nestjs/common';
import type { HandlerKind } from '../context/handler-kind';
import type { IdentityResolver } from '../identity/identity-resolver';
import type { SkipPredicate, TierResolver } from '../policy/rate-limit-options.interface';

/** One policy as applied to one handler, with everything per-request precomputed. */
export interface RoutePolicy {
  readonly name: string;
  readonly cost: number | ((context: ExecutionContext) => number);
  readonly identity: IdentityResolver;
  /** Only for a policy that declares tiers: the policy's resolver, else the module's. */
  readonly tier?: TierResolver;
  readonly skip?: SkipPredicate;
}

/** The policies guarding one handler; built once at bootstrap. */
export interface CompiledRoute {
  readonly policies: readonly RoutePolicy[];
  readonly kind: HandlerKind;
}
