import { Injectable } from '@nestjs/common';
import { RateLimitConfigError } from '../errors/rate-limit-config.error';
import type { RateLimitPolicy } from '../policy/rate-limit-policy.interface';

interface RegisteredPolicy {
  readonly policy: RateLimitPolicy;
  readonly declaredAt: string[];
}

const FIELDS: readonly (keyof RateLimitPolicy)[] = [
  'algo',
  'limit',
  'windowMs',
  'burst',
  'blockForMs',
  'mode',
];

/**
 * Every policy of the application by name: declared by decorators and module options at
 * bootstrap. Requests look policies up here, so one name is one shared set of thresholds.
 */
@Injectable()
export class PolicyRegistry {
  private readonly policies = new Map<string, RegisteredPolicy>();

  register(policy: RateLimitPolicy, where: string): void {
    const existing = this.policies.get(policy.name);
    if (!existing) {
      this.policies.set(policy.name, { policy, declaredAt: [where] });
      return;
    }
    const differs = FIELDS.find((field) => existing.policy[field] !== policy[field]);
    if (differs) {
      throw new RateLimitConfigError(
        where,
        differs,
        `differs from policy "${policy.name}" as declared on ${existing.declaredAt[0]}; ` +
          'give one of them another name',
      );
    }
    if (!existing.declaredAt.includes(where)) existing.declaredAt.push(where);
  }

  get(name: string): RateLimitPolicy | undefined {
    return this.policies.get(name)?.policy;
  }

  names(): string[] {
    return [...this.policies.keys()];
  }

  list(): RateLimitPolicy[] {
    return [...this.policies.values()].map((entry) => entry.policy);
  }
}
