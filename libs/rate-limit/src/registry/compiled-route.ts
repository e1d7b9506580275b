import type { ExecutionContext } from '@nestjs/common';
import type { HandlerKind } from '../context/handler-kind';
import type { IdentityResolver } from '../identity/identity-resolver';
import type {
  KeySource,
  SkipPredicate,
  TierResolver,
  TierSource,
} from '../policy/rate-limit-options.interface';

/** One policy as applied to one handler, with everything per-request precomputed. */
export interface RoutePolicy {
  readonly name: string;
  readonly cost: number | ((context: ExecutionContext) => number);
  readonly identity: IdentityResolver;
  /** What `identity` reads: the shedder answers only for sources known before routing. */
  readonly keySource?: KeySource;
  /** Only for a policy that declares tiers: the policy's resolver, else the module's. */
  readonly tier?: TierResolver;
  /** What `tier` reads: the shedder answers only for a tier known before routing. */
  readonly tierSource?: TierSource;
  readonly skip?: SkipPredicate;
}

/** The policies guarding one handler; built once at bootstrap. */
export interface CompiledRoute {
  readonly policies: readonly RoutePolicy[];
  readonly kind: HandlerKind;
}
